"""Orders: from a cart to an order delivered, refunded or cancelled.

Cart rules (`cart.py`), a shopper's pick priced from the catalogue (`shopping.py`) or from the
store (`store_lines.py`), checkout: the payload's validation (`order_request.py`), repricing from the catalogue
(`repricing.py`), placing the order once (`checkout.py`) with its discount code claimed
(`order_discounts.py`), the checkout form (`checkout_form.py`),
what the browser and the admin API are told about an order (`order_views.py`) with its money
(`order_money.py`); the order's states and moves, with what staff may do (`lifecycle.py`); who may reach an
order (`order_access.py`), charging it once (`order_payment.py`) or through Stripe's
PaymentIntents (`intent_payments.py`), the outbox that sends a paid order to the print provider
(`fulfilment.py`), keeping it in step with the provider (`order_tracking.py`) and the provider's
webhooks, which also keep the catalogue cache in step (`provider_events.py`), refunds,
cancellations and expiry (`order_cancellation.py`) with the order's history
(`order_history.py`), the customer's emails about the order (`order_emails.py`), a guest's own
order (`order_lookup.py`), and the statuses an order, its
payment and its charge attempts move through, with their labels (`statuses.py`).

May use: platform, catalog, payments, printify, shopify, mail, discounts, staff.
"""
