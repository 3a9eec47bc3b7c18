"""The provider's shops, shared by the product tabs: each shows shop buttons over one selection."""

from __future__ import annotations

import asyncio
import logging
from typing import TypedDict

import reflex as rx

from storefront.state.admin.session import AdminState, admin_event
from storefront.wiring import services

log = logging.getLogger(__name__)

SHOPS_FAILED_TITLE = "Error Loading Shops"
SHOPS_FAILED_TEXT = "Failed to load shop information. Please try again later."


class Shop(TypedDict):
    id: str
    title: str


def _shops() -> list[Shop]:
    return [Shop(id=str(shop["id"]), title=str(shop.get("title", ""))) for shop in services().provider.list_shops()]


class ShopsState(AdminState):
    """The shops and the one selected (the first, until staff pick another)."""

    shops: list[Shop] = []
    shop_id: str = ""

    @rx.event(background=True)
    @admin_event
    async def load_shops(self):
        try:
            shops = await asyncio.to_thread(_shops)
        except Exception:  # the provider may be down; the tab says so
            log.exception("loading the provider's shops failed")
            yield rx.toast.error(SHOPS_FAILED_TITLE, description=SHOPS_FAILED_TEXT)
            return
        async with self:
            self.shops = shops
            if shops and self.shop_id not in {shop["id"] for shop in shops}:
                self.shop_id = shops[0]["id"]

    @rx.event
    @admin_event
    async def select_shop(self, shop_id: str):
        self.shop_id = shop_id
        return None


async def current_shop(state: rx.State) -> str:
    """The selected shop's id for a background handler of any admin state, loading the shops first
    when none is known yet; "" when the provider has none (or cannot be reached)."""
    async with state:
        shops = await state.get_state(ShopsState)
        shop_id = shops.shop_id
    if shop_id:
        return shop_id
    try:
        loaded = await asyncio.to_thread(_shops)
    except Exception:  # the caller shows its own failure
        log.exception("loading the provider's shops failed")
        return ""
    async with state:
        shops = await state.get_state(ShopsState)
        shops.shops = loaded
        if not shops.shop_id and loaded:
            shops.shop_id = loaded[0]["id"]
        return shops.shop_id
