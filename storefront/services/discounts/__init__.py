"""Discounts: the codes staff make and what they take off an order.

A code's rules and its pricing in cents (`rules.py`: percent off rounded half up, a fixed amount,
or free shipping, over the whole cart, some collections or chosen products), staff making and
changing codes (`codes.py`), pricing a cart with a code (`quotes.py`), and the uses orders hold,
claimed with a compare-and-set on the code's row and given back when an order is cancelled or
expires unpaid (`claims.py`).

May use: platform, collections.
"""
