"""Cart state: the cart lives in the browser's local storage; rules come from services.cart."""

import reflex as rx

from storefront.services import cart


class CartState(rx.State):
    """The shopper's cart, stored as JSON under `cart-storage`."""

    cart_json: str = rx.LocalStorage("[]", name=cart.CART_STORAGE_KEY, sync=True)

    @rx.var
    def total_quantity(self) -> int:
        return cart.total_quantity(cart.load_cart(self.cart_json))
