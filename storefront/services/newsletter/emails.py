"""The newsletter's emails, rendered from Jinja2 templates (HTML autoescaped, plain text as is)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from storefront.services.mail.outbox import Mail
from storefront.services.mail.templates import Contact

TEMPLATES = Path(__file__).parent / "templates"
CONFIRM_KIND = "newsletter-confirm"
CONFIRM_SUBJECT = "Confirm your newsletter subscription"


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def render(name: str, **values: object) -> str:
    """Template `name` filled with `values` (a missing value is an error, not an empty string)."""
    return _environment().get_template(name).render(**values)


def confirmation_mail(
    email: str, confirm_url: str, unsubscribe_url: str, key: str, one_click_url: str = "",
    contact: Contact | None = None,
) -> Mail:
    """The double opt-in email: the confirm link and, as in every newsletter message, the unsubscribe
    link, the one-click List-Unsubscribe address and the support address and policies."""
    values = {
        "email": email, "confirm_url": confirm_url, "unsubscribe_url": unsubscribe_url,
        "contact": contact or Contact(),
    }
    return Mail(
        kind=CONFIRM_KIND,
        recipient=email,
        subject=CONFIRM_SUBJECT,
        text=render("confirm.txt", **values),
        html=render("confirm.html", **values),
        key=key,
        list_unsubscribe=one_click_url or None,
    )


WELCOME_KIND = "newsletter-welcome"
WELCOME_SUBJECT = "Welcome! Here is {percent}% off your next order"


def welcome_mail(
    email: str, code: str, percent: int, ends: str, shop_url: str, unsubscribe_url: str, key: str,
    one_click_url: str = "", contact: Contact | None = None,
) -> Mail:
    """A confirmed subscriber's welcome: its single-use discount code, and the newsletter's footer."""
    values = {
        "email": email, "code": code, "percent": percent, "ends": ends, "shop_url": shop_url,
        "unsubscribe_url": unsubscribe_url, "contact": contact or Contact(),
    }
    return Mail(
        kind=WELCOME_KIND,
        recipient=email,
        subject=WELCOME_SUBJECT.format(percent=percent),
        text=render("welcome.txt", **values),
        html=render("welcome.html", **values),
        key=key,
        list_unsubscribe=one_click_url or None,
    )
