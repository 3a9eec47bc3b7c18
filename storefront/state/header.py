"""Header state: the mobile menu and the hidden admin gesture."""

import reflex as rx

ADMIN_LOGIN_ROUTE = "/admin/login"
GESTURE_CLICKS = 5
GESTURE_WINDOW_MS = 3000

# Counted in the browser, so a click costs no round trip; the counter lives on window and
# resets when a click comes more than GESTURE_WINDOW_MS after the last or after that long idle.
ADMIN_GESTURE_SCRIPT = f"""
(() => {{
  const g = window.__adminGesture || (window.__adminGesture = {{count: 0, last: 0, timer: null}});
  const now = Date.now();
  if (now - g.last > {GESTURE_WINDOW_MS}) g.count = 0;
  g.count += 1;
  g.last = now;
  clearTimeout(g.timer);
  g.timer = setTimeout(() => {{ g.count = 0; }}, {GESTURE_WINDOW_MS});
  if (g.count >= {GESTURE_CLICKS}) {{ g.count = 0; return true; }}
  return false;
}})()
"""


class HeaderState(rx.State):
    """Open/closed state of the mobile menu."""

    mobile_menu_open: bool = False

    @rx.event
    def toggle_mobile_menu(self) -> None:
        self.mobile_menu_open = not self.mobile_menu_open

    @rx.event
    def close_mobile_menu(self) -> None:
        self.mobile_menu_open = False

    @rx.event
    def admin_gesture_result(self, complete: bool):
        """Called back by the browser's click counter; five quick clicks open the admin login."""
        if complete:
            return rx.redirect(ADMIN_LOGIN_ROUTE)


def admin_gesture_click() -> rx.event.EventSpec:
    """One click on the hidden corner, counted in the browser."""
    return rx.call_script(ADMIN_GESTURE_SCRIPT, callback=HeaderState.admin_gesture_result)
