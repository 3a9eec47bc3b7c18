"""The newsletter's welcome code: a percent off, usable once, made for one confirmed subscriber."""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta

from sqlmodel import Session

from storefront.models import DiscountCode
from storefront.services.discounts.rules import PERCENT, SCOPE_ALL

WELCOME_PREFIX = "WELCOME-"
WELCOME_DAYS = 30


def welcome_code(session: Session, percent: int, now: datetime, days: int = WELCOME_DAYS) -> DiscountCode:
    """A new single-use code of `percent` off the whole cart, valid `days` from `now`, added to the
    caller's transaction (the caller commits). Its name is random: it cannot be guessed from the address."""
    name = f"{WELCOME_PREFIX}{secrets.token_hex(4).upper()}"
    code = DiscountCode(
        code=name,
        code_key=name,
        kind=PERCENT,
        percent=percent,
        starts_at=now,
        ends_at=now + timedelta(days=days),
        usage_limit=1,
        per_customer_limit=1,
        scope=SCOPE_ALL,
        scope_values_json=json.dumps([]),
        active=True,
        created_at=now,
        updated_at=now,
    )
    session.add(code)
    session.flush()
    return code
