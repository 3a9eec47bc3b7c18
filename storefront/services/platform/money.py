"""Money helpers: services count integer cents; dollars appear only for display and payloads."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

_CENT = Decimal("0.01")


def dollars_to_cents(value: str | int | float | Decimal) -> int:
    """Dollars to cents, rounding half away from zero; ValueError unless a finite number."""
    # bool is an int subclass, but True dollars is always a bug upstream.
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise ValueError(f"Not a dollar amount: {value!r}")
    try:
        # str() of a float is its shortest repr, so 1.005 means "1.005", not 1.00499999...
        amount = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
        if not amount.is_finite():
            raise ValueError(f"Not a finite dollar amount: {value!r}")
        return int(amount.quantize(_CENT, rounding=ROUND_HALF_UP).scaleb(2))
    except InvalidOperation as exc:  # unparsable text, or too large to quantize
        raise ValueError(f"Not a dollar amount: {value!r}") from exc


def cents_to_dollars(cents: int) -> Decimal:
    """Exact dollar amount with two decimal places, e.g. 1050 -> Decimal('10.50')."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"cents must be an int, got {type(cents).__name__}")
    return Decimal(cents).scaleb(-2)


def format_usd(cents: int) -> str:
    """en-US display form: '$1,234.50', '$0.00', '-$5.00'."""
    dollars = cents_to_dollars(cents)
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(dollars):,.2f}"


def parse_cents(value: object) -> int | None:
    """A dollar amount from the browser (number or numeric string) in cents; None when unusable."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        cents = dollars_to_cents(value)
    except ValueError:
        return None
    return cents if cents >= 0 else None
