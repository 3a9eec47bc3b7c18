"""Admin: the back office, on top of the catalogue and the orders.

Staff views of the catalogue cache: product rows, pages and collection cards (`product_rows.py`),
the input rules of the product forms (`product_forms.py`), variant margins (`product_margins.py`),
a new product's design, placement, colours, sizes and prices (`product_designs.py`),
every product action staff can take (`admin_catalog.py`), the Product Editor's rules
(`admin_editor.py`), descriptions edited as text and saved as sanitised HTML (`descriptions.py`),
staff views of orders: pages, stat cards, revenue, CSV export, sending a
refused order again (`admin_orders.py`), discount codes with their uses and the revenue of
their orders, and their CSV (`admin_discounts.py`), and admin sign-in with server-side sessions and login
throttling (`auth.py`).

May use: platform, collections, catalog, orders, printify, shopify, media, discounts, staff (accounts,
the activity log).
"""
