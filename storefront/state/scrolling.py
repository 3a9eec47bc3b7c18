"""Scrolling the page to an element that a state update brings (a result, a card)."""

from __future__ import annotations

import json

import reflex as rx


def scroll_into_view(element_id: str, *, only_if_hidden: bool = False) -> rx.event.EventSpec:
    """Scroll the page to an element (smoothly unless the user asked for less motion); with
    `only_if_hidden`, only when part of it is off the screen.

    The element may arrive in the same state update as this script, before React has drawn it,
    so the script looks for it again on each of the next frames (about a second's worth)."""
    return rx.call_script(
        f"""(() => {{
  let frames = 0;
  const onlyIfHidden = {json.dumps(only_if_hidden)};
  const scroll = () => {{
    const element = document.getElementById({json.dumps(element_id)});
    if (!element) {{ if (frames++ < 60) requestAnimationFrame(scroll); return; }}
    const box = element.getBoundingClientRect();
    if (onlyIfHidden && box.top >= 0 && box.bottom <= window.innerHeight) return;
    const calm = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    element.scrollIntoView({{behavior: calm ? "auto" : "smooth", block: "start"}});
  }};
  scroll();
}})()"""
    )
