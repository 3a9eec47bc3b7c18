"""Payments: talking to the card processor, and nothing of orders.

The PaymentGateway protocol, card checks and the built-in test gateway (`gateway.py`), and Stripe
behind the same interface: PaymentIntents, refunds and signed webhook events
(`stripe_gateway.py`). When to charge an order and what a charge changes is the orders domain's.

May use: platform.
"""
