"""Customers: the people who ordered or subscribed, derived from the orders and the newsletter
(`customers.py`), and the two privacy duties, exporting and erasing one's data (`privacy.py`).

May use: platform, orders, mail, staff.
"""
