"""Staff making and changing discount codes: a form checked field by field and saved whole, or
refused with a message per field; codes are unique without regard to case."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from storefront.models import CatalogProduct, DiscountCode, utcnow
from storefront.services.collections import COLLECTIONS_BY_KEY
from storefront.services.discounts.rules import (
    AMOUNT,
    KINDS,
    PERCENT,
    SCOPE_ALL,
    SCOPE_COLLECTIONS,
    SCOPES,
    code_key,
    describe,
    scope_values,
)
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.money import dollars_to_cents

CODE_INVALID = "A code is 2 to 40 letters, digits, dashes or underscores."
CODE_TAKEN = "Another discount already has this code."
KIND_INVALID = "Choose percent, amount or free_shipping."
PERCENT_INVALID = "A percent is a whole number from 1 to 100."
AMOUNT_INVALID = "The amount must be a number of dollars above zero, with at most two decimals."
MINIMUM_INVALID = "The minimum subtotal must be a number of dollars, zero or more."
LIMIT_INVALID = "A limit is a whole number from 1 to 1,000,000, or empty for no limit."
TIME_INVALID = "Use a date and time such as 2030-06-01T09:00 (UTC)."
ENDS_BEFORE_START = "The end must be after the start."
SCOPE_INVALID = "Choose all, collections or products."
COLLECTIONS_INVALID = "Choose one or more of the store's collections."
PRODUCTS_INVALID = "Choose one or more products of the catalogue."
DISCOUNT_NOT_FOUND = "Discount not found"
FORM_INVALID = "Please correct the highlighted fields."

_CODE = re.compile(r"^[A-Za-z0-9_-]{2,40}$")
_DIGITS = re.compile(r"^[0-9]{1,18}$")
MAX_LIMIT = 1_000_000
MAX_SCOPE_VALUES = 200


@dataclass(frozen=True, slots=True)
class DiscountForm:
    """A checked discount form, ready to save."""

    code: str
    kind: str
    percent: int
    amount_cents: int
    starts_at: datetime | None
    ends_at: datetime | None
    min_subtotal_cents: int
    usage_limit: int | None
    per_customer_limit: int | None
    scope: str
    scope_values: tuple[str, ...]
    active: bool


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _whole(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _DIGITS.match(value.strip()):
        return int(value.strip())
    return None


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _cents(value: object) -> int | None:
    """Dollars (a number or text, at most two decimals) as cents; None when not such a number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    text = str(value).strip()
    if "." in text and len(text.split(".", 1)[1]) > 2:
        return None
    try:
        return dollars_to_cents(text)
    except ValueError:
        return None


def _time(value: object) -> datetime | None:
    """An ISO date and time; one without an offset is UTC. ValueError when not one."""
    parsed = datetime.fromisoformat(_text(value))
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _limit(payload: Mapping[str, Any], name: str, errors: dict[str, str]) -> int | None:
    value = payload.get(name)
    if _blank(value):
        return None
    number = _whole(value)
    if number is None or not 1 <= number <= MAX_LIMIT:
        errors[name] = LIMIT_INVALID
        return None
    return number


def _scope_values(session: Session, scope: str, raw: object, errors: dict[str, str]) -> tuple[str, ...]:
    if scope == SCOPE_ALL:
        return ()
    values = raw if isinstance(raw, list) else [part for part in _text(raw).split(",")]
    cleaned = tuple(dict.fromkeys(_text(value) for value in values if _text(value)))
    if scope == SCOPE_COLLECTIONS:
        keys = tuple(value.lower() for value in cleaned)
        if not keys or any(key not in COLLECTIONS_BY_KEY for key in keys):
            errors["scopeValues"] = COLLECTIONS_INVALID
        return keys
    if not cleaned or len(cleaned) > MAX_SCOPE_VALUES or any(len(value) > 64 for value in cleaned):
        errors["scopeValues"] = PRODUCTS_INVALID
        return cleaned
    known = set(session.exec(select(CatalogProduct.id).where(col(CatalogProduct.id).in_(cleaned))).all())
    if set(cleaned) - known:
        errors["scopeValues"] = PRODUCTS_INVALID
    return cleaned


def parse_form(session: Session, payload: Mapping[str, Any] | None) -> DiscountForm:
    """The staff's discount form checked; ValidationError with a message per bad field."""
    payload = payload if isinstance(payload, Mapping) else {}
    errors: dict[str, str] = {}
    code = _text(payload.get("code"))
    if not _CODE.match(code):
        errors["code"] = CODE_INVALID
    kind = _text(payload.get("kind")).lower()
    percent = amount = 0
    if kind not in KINDS:
        errors["kind"] = KIND_INVALID
    elif kind == PERCENT:
        number = _whole(payload.get("value"))
        if number is None or not 1 <= number <= 100:
            errors["value"] = PERCENT_INVALID
        else:
            percent = number
    elif kind == AMOUNT:
        cents = _cents(payload.get("value"))
        if cents is None or cents <= 0:
            errors["value"] = AMOUNT_INVALID
        else:
            amount = cents
    times: dict[str, datetime | None] = {}
    for name in ("startsAt", "endsAt"):
        value = payload.get(name)
        try:
            times[name] = None if _blank(value) else _time(value)
        except (TypeError, ValueError):
            errors[name] = TIME_INVALID
            times[name] = None
    starts, ends = times["startsAt"], times["endsAt"]
    if starts is not None and ends is not None and ends <= starts:
        errors["endsAt"] = ENDS_BEFORE_START
    minimum_raw = payload.get("minSubtotal")
    minimum = 0 if _blank(minimum_raw) else _cents(minimum_raw)
    if minimum is None or minimum < 0:
        errors["minSubtotal"] = MINIMUM_INVALID
        minimum = 0
    usage_limit = _limit(payload, "usageLimit", errors)
    per_customer = _limit(payload, "perCustomerLimit", errors)
    scope = _text(payload.get("scope")).lower() or SCOPE_ALL
    values: tuple[str, ...] = ()
    if scope not in SCOPES:
        errors["scope"] = SCOPE_INVALID
    else:
        values = _scope_values(session, scope, payload.get("scopeValues"), errors)
    active = payload.get("active", True)
    if errors:
        raise ValidationError(next(iter(errors.values())) if len(errors) == 1 else FORM_INVALID, errors)
    return DiscountForm(
        code=code,
        kind=kind,
        percent=percent,
        amount_cents=amount,
        starts_at=starts,
        ends_at=ends,
        min_subtotal_cents=minimum,
        usage_limit=usage_limit,
        per_customer_limit=per_customer,
        scope=scope,
        scope_values=values,
        active=active is not False and str(active).lower() not in ("false", "0", "off", "no"),
    )


def _apply(code: DiscountCode, form: DiscountForm, now: datetime) -> None:
    code.code = form.code
    code.code_key = code_key(form.code)
    code.kind = form.kind
    code.percent = form.percent
    code.amount_cents = form.amount_cents
    code.starts_at = form.starts_at
    code.ends_at = form.ends_at
    code.min_subtotal_cents = form.min_subtotal_cents
    code.usage_limit = form.usage_limit
    code.per_customer_limit = form.per_customer_limit
    code.scope = form.scope
    code.scope_values_json = json.dumps(list(form.scope_values))
    code.active = form.active
    code.updated_at = now


def _taken(session: Session, key: str, other_than: int | None) -> bool:
    query = select(DiscountCode.id).where(col(DiscountCode.code_key) == key)
    if other_than is not None:
        query = query.where(col(DiscountCode.id) != other_than)
    return session.exec(query).first() is not None


def _save(session: Session, code: DiscountCode) -> DiscountCode:
    if _taken(session, code.code_key, code.id):
        raise ValidationError(CODE_TAKEN, {"code": CODE_TAKEN})
    try:
        session.add(code)
        session.commit()
    except IntegrityError:  # the same code saved by someone else meanwhile
        session.rollback()
        raise ValidationError(CODE_TAKEN, {"code": CODE_TAKEN}) from None
    session.refresh(code)
    return code


def create_code(session: Session, payload: Mapping[str, Any] | None, *, now: datetime | None = None) -> DiscountCode:
    """A new code from the staff's form, saved whole or refused with a message per field."""
    form = parse_form(session, payload)
    moment = now or utcnow()
    code = DiscountCode(code=form.code, code_key=code_key(form.code), kind=form.kind, created_at=moment)
    _apply(code, form, moment)
    return _save(session, code)


def get_code(session: Session, discount_id: int | str) -> DiscountCode:
    """The code with this id; NotFoundError otherwise."""
    number = _whole(discount_id)
    code = session.get(DiscountCode, number) if number is not None and 0 < number < 2**62 else None
    if code is None:
        raise NotFoundError(DISCOUNT_NOT_FOUND)
    return code


def update_code(
    session: Session, discount_id: int | str, payload: Mapping[str, Any] | None, *, now: datetime | None = None
) -> DiscountCode:
    """Change a code from the staff's whole form (its uses so far are kept)."""
    code = get_code(session, discount_id)
    form = parse_form(session, payload)
    _apply(code, form, now or utcnow())
    return _save(session, code)


def set_active(session: Session, discount_id: int | str, active: bool, *, now: datetime | None = None) -> DiscountCode:
    code = get_code(session, discount_id)
    code.active = active
    code.updated_at = now or utcnow()
    session.add(code)
    session.commit()
    session.refresh(code)
    return code


def find_code(session: Session, text: str) -> DiscountCode | None:
    """The code a shopper typed, matched without regard to case."""
    key = code_key(text)
    if not key or len(key) > 40:
        return None
    return session.exec(select(DiscountCode).where(col(DiscountCode.code_key) == key)).first()


def code_values(code: DiscountCode) -> dict[str, Any]:
    """The code's settings as the staff form and the API name them (money in dollars)."""
    value: float | int | None = None
    if code.kind == PERCENT:
        value = code.percent
    elif code.kind == AMOUNT:
        value = code.amount_cents / 100
    return {
        "id": code.id,
        "code": code.code,
        "kind": code.kind,
        "value": value,
        "description": describe(code),
        "startsAt": code.starts_at.isoformat() if code.starts_at else None,
        "endsAt": code.ends_at.isoformat() if code.ends_at else None,
        "minSubtotal": code.min_subtotal_cents / 100,
        "usageLimit": code.usage_limit,
        "perCustomerLimit": code.per_customer_limit,
        "scope": code.scope,
        "scopeValues": scope_values(code),
        "active": code.active,
        "usedCount": code.used_count,
    }

