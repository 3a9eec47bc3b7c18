"""Header state: the mobile menu, the search field and the hidden admin gesture."""

import reflex as rx

from storefront.state.catalog import listing_url
from storefront.web.page_texts import SEARCH_PARAM

ADMIN_LOGIN_ROUTE = "/admin/login"
GESTURE_CLICKS = 5
GESTURE_WINDOW_MS = 3000

# Counted in the browser, so a click sends nothing to the server; the counter lives on window and
# resets when a click comes more than GESTURE_WINDOW_MS after the last or after that long idle.
# The script answers the route to open on the fifth quick click and null otherwise.
ADMIN_GESTURE_SCRIPT = f"""
(() => {{
  const g = window.__adminGesture || (window.__adminGesture = {{count: 0, last: 0, timer: null}});
  const now = Date.now();
  if (now - g.last > {GESTURE_WINDOW_MS}) g.count = 0;
  g.count += 1;
  g.last = now;
  clearTimeout(g.timer);
  g.timer = setTimeout(() => {{ g.count = 0; }}, {GESTURE_WINDOW_MS});
  if (g.count >= {GESTURE_CLICKS}) {{ g.count = 0; clearTimeout(g.timer); return "{ADMIN_LOGIN_ROUTE}"; }}
  return null;
}})()
"""


class HeaderState(rx.State):
    """Open/closed state of the mobile menu and of the search field."""

    mobile_menu_open: bool = False
    search_open: bool = False

    @rx.event
    def set_search_open(self, value: bool) -> None:
        self.search_open = value
        if value:
            self.mobile_menu_open = False

    @rx.event
    def search(self, form_data: dict[str, str]):
        """The search field's submit: the listing with the query in its address."""
        self.search_open = False
        return rx.redirect(listing_url(str(form_data.get(SEARCH_PARAM) or "")))

    @rx.event
    def toggle_mobile_menu(self) -> None:
        self.mobile_menu_open = not self.mobile_menu_open

    @rx.event
    def close_mobile_menu(self) -> None:
        self.mobile_menu_open = False


def admin_gesture_click() -> rx.event.EventSpec:
    """One click on the hidden corner, counted in the browser.

    The callback is a client-side redirect: a null path is ignored by the browser, so only the
    fifth quick click navigates, and no click ever becomes a server event."""
    return rx.call_script(ADMIN_GESTURE_SCRIPT, callback=rx.redirect)
