"""Roles and what each may do: the one place the back office's permissions are decided.

Every admin API route and every admin event handler is checked here (through the guards in
storefront/api/admin/session.py and storefront/state/admin/session.py); a route not in the table
below is the owner's alone, so a new route is closed until someone opens it on purpose.
"""

from __future__ import annotations

from typing import Final

OWNER: Final = "owner"
STAFF: Final = "staff"
FULFILMENT: Final = "fulfilment"
ROLES: Final = (OWNER, STAFF, FULFILMENT)
ROLE_LABELS: Final = {OWNER: "Owner", STAFF: "Staff", FULFILMENT: "Fulfilment"}
INVITABLE_ROLES: Final = (STAFF, FULFILMENT)

# What can be done (tabs and actions).
SIGNED_IN: Final = "signed-in"  # one's own session, password and two-factor sign-in (only that)
PRODUCTS: Final = "products"
CATEGORIES: Final = "categories"
ORDERS: Final = "orders"
REFUNDS: Final = "refunds"
EVENTS: Final = "events"
SYNC: Final = "sync"
CUSTOMERS: Final = "customers"
ACTIVITY: Final = "activity"
ACCOUNTS: Final = "accounts"
STORE_SETTINGS: Final = "store-settings"  # shops, store pages, the newsletter list
DISCOUNTS: Final = "discounts"  # discount codes: what the shop gives away

PERMISSIONS: Final = (
    SIGNED_IN, PRODUCTS, CATEGORIES, ORDERS, REFUNDS, EVENTS, SYNC, CUSTOMERS, ACTIVITY, ACCOUNTS, STORE_SETTINGS,
    DISCOUNTS,
)

GRANTS: Final[dict[str, frozenset[str]]] = {
    OWNER: frozenset(PERMISSIONS),
    # Runs the catalogue and the orders, but moves no money back and sees no customer records.
    STAFF: frozenset({SIGNED_IN, PRODUCTS, CATEGORIES, ORDERS, EVENTS, SYNC}),
    # Packs and follows orders only.
    FULFILMENT: frozenset({SIGNED_IN, ORDERS}),
}

NOT_ALLOWED = "Your role does not allow this"

#: What a person may still do while two-factor sign-in is due for them (services/staff/two_factor.py
#: `is_due`): see their session, set it up, change their password and sign out. Everything else
#: waits until it is on.
WHILE_TWO_FACTOR_DUE: Final = frozenset({SIGNED_IN})

#: What each admin API route needs, by (method, path template); missing: the owner's alone.
ROUTE_PERMISSIONS: Final[dict[tuple[str, str], str]] = {
    ("POST", "/api/admin/logout"): SIGNED_IN,
    ("GET", "/api/admin/session"): SIGNED_IN,
    ("POST", "/api/admin/password"): SIGNED_IN,
    ("GET", "/api/admin/staff"): ACCOUNTS,
    ("POST", "/api/admin/staff"): ACCOUNTS,
    ("POST", "/api/admin/staff/{account_id}/disable"): ACCOUNTS,
    ("POST", "/api/admin/staff/{account_id}/enable"): ACCOUNTS,
    ("DELETE", "/api/admin/staff/{account_id}"): ACCOUNTS,
    ("GET", "/api/admin/activity"): ACTIVITY,
    ("GET", "/api/admin/activity/export.csv"): ACTIVITY,
    ("GET", "/api/admin/customers"): CUSTOMERS,
    ("POST", "/api/admin/customers/detail"): CUSTOMERS,
    ("POST", "/api/admin/customers/export"): CUSTOMERS,
    ("POST", "/api/admin/customers/erase"): CUSTOMERS,
    ("GET", "/api/admin/two-factor"): SIGNED_IN,
    ("POST", "/api/admin/two-factor/enrol"): SIGNED_IN,
    ("POST", "/api/admin/two-factor/confirm"): SIGNED_IN,
    ("POST", "/api/admin/two-factor/disable"): SIGNED_IN,
    ("POST", "/api/admin/two-factor/policy"): ACCOUNTS,
    ("GET", "/api/admin/discounts"): DISCOUNTS,
    ("GET", "/api/admin/discounts/export.csv"): DISCOUNTS,
    ("POST", "/api/admin/discounts"): DISCOUNTS,
    ("GET", "/api/admin/discounts/{discount_id}"): DISCOUNTS,
    ("PUT", "/api/admin/discounts/{discount_id}"): DISCOUNTS,
    ("POST", "/api/admin/discounts/{discount_id}/active"): DISCOUNTS,
    ("GET", "/api/orders"): ORDERS,
    ("GET", "/api/orders/export.csv"): ORDERS,
    ("POST", "/api/orders/{order_id}/retry-fulfilment"): ORDERS,
    ("POST", "/api/orders/{order_id}/refund"): REFUNDS,
    # Cancelling a paid order refunds it.
    ("POST", "/api/orders/{order_id}/cancel"): REFUNDS,
    ("POST", "/api/orders/{order_id}/resend-confirmation"): ORDERS,
    ("POST", "/api/orders/{order_id}/revoke-links"): ORDERS,
    ("POST", "/api/orders/{order_id}/resolve"): ORDERS,
    ("GET", "/api/printify/shops/{shop_id}/products"): PRODUCTS,
    ("POST", "/api/printify/shops/{shop_id}/products"): PRODUCTS,
    ("GET", "/api/printify/shops/{shop_id}/products/{product_id}"): PRODUCTS,
    ("PUT", "/api/printify/shops/{shop_id}/products/{product_id}"): PRODUCTS,
    ("GET", "/api/printify/shops/{shop_id}/products/{product_id}/margins"): PRODUCTS,
    ("POST", "/api/printify/shops/{shop_id}/products/{product_id}/publish"): PRODUCTS,
    ("POST", "/api/printify/shops/{shop_id}/products/{product_id}/unpublish"): PRODUCTS,
    ("POST", "/api/printify/shops/{shop_id}/sync"): SYNC,
    ("PUT", "/api/products/{product_id}/update"): PRODUCTS,
    ("PUT", "/api/products/{product_id}/category"): CATEGORIES,
    ("PUT", "/api/products/{product_id}/visibility"): PRODUCTS,
    ("POST", "/api/products/{product_id}/archive"): PRODUCTS,
    ("POST", "/api/products/{product_id}/restore"): PRODUCTS,
    ("POST", "/api/products/{product_id}/sync-price"): SYNC,
    ("POST", "/api/products/{product_id}/sync"): SYNC,
    ("GET", "/api/events/admin/all"): EVENTS,
    ("POST", "/api/events"): EVENTS,
    ("PUT", "/api/events/{event_id}"): EVENTS,
    ("DELETE", "/api/events/{event_id}"): EVENTS,
    ("POST", "/api/upload/images"): EVENTS,
}


def allows(role: str, permission: str) -> bool:
    """Whether `role` may do what `permission` names (an unknown role may do nothing)."""
    return permission in GRANTS.get(role, frozenset())


def route_permission(method: str, path: str) -> str:
    """What the admin route needs (ACCOUNTS, the owner's, for a route not in the table)."""
    return ROUTE_PERMISSIONS.get((method.upper(), path), ACCOUNTS)


def permissions_of(role: str) -> list[str]:
    """The role's permissions, in PERMISSIONS order (what the dashboard shows or hides by)."""
    granted = GRANTS.get(role, frozenset())
    return [permission for permission in PERMISSIONS if permission in granted]


#: What the handlers of each admin page state need, by the state's class name; missing: the owner's alone.
STATE_PERMISSIONS: Final[dict[str, str]] = {
    "AdminState": SIGNED_IN,
    "AdminLoginState": SIGNED_IN,
    # A mixin: its handlers run as the tab that mixes it in (checked by that tab's class name).
    "PagedAdminState": ACCOUNTS,
    "AccountState": SIGNED_IN,
    "TwoFactorState": SIGNED_IN,
    "ProductEditorState": PRODUCTS,
    "ProductPanelState": PRODUCTS,
    "ProductDesignState": PRODUCTS,
    "ProductManagementState": PRODUCTS,
    # The product tabs' shop picker (every role with a product tab has PRODUCTS).
    "ShopsState": PRODUCTS,
    "CategoriesState": CATEGORIES,
    "OrdersState": ORDERS,
    # The subscriber count shown on the Orders tab.
    "NewsletterAdminState": ORDERS,
    "AdminEventsState": EVENTS,
    "SyncPricingState": SYNC,
    "StorePagesAdminState": STORE_SETTINGS,
    "StaffAdminState": ACCOUNTS,
    "ActivityAdminState": ACTIVITY,
    "CustomersAdminState": CUSTOMERS,
    "DiscountsAdminState": DISCOUNTS,
}

#: Handlers that need more than their state does, by 'State.handler'.
HANDLER_PERMISSIONS: Final[dict[str, str]] = {
    "OrdersState.ask_refund": REFUNDS,
    "OrdersState.ask_cancel": REFUNDS,
    "OrdersState.confirm_refund": REFUNDS,
    "OrdersState.confirm": REFUNDS,
    # The subscribers' addresses are customer records.
    "NewsletterAdminState._download_csv": CUSTOMERS,
}


def handler_permission(state: str, handler: str) -> str:
    """What an admin state's handler needs (ACCOUNTS, the owner's, for a state not in the table)."""
    return HANDLER_PERMISSIONS.get(f"{state}.{handler}", STATE_PERMISSIONS.get(state, ACCOUNTS))
