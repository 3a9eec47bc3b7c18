"""Where the store ships: the countries of SHIP_TO_COUNTRIES (ISO 3166-1 alpha-2 codes) by name,
and the US states a US address picks from. The flat shipping rule (free over $100, else $9.99) is
priced for these countries only, so an order to any other is refused."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

import pycountry

DEFAULT_SHIP_TO: tuple[str, ...] = ("US",)
US = "US"
#: US subdivisions a parcel cannot be addressed to (pycountry lists them with the states).
_NOT_ADDRESSABLE = frozenset({"UM"})


def not_shipped_message(countries: Sequence[str]) -> str:
    """What a shopper is told when the address is outside the ship-to countries."""
    return f"We only ship to {names_sentence(countries)} for now."


def country_name(code: str) -> str:
    """The country's common name ('US' -> 'United States'); the code itself when unknown."""
    country = pycountry.countries.get(alpha_2=code.upper()) if len(code) == 2 else None
    if country is None:
        return code
    return str(getattr(country, "common_name", None) or country.name)


def is_country_code(code: str) -> bool:
    """Whether `code` is an ISO 3166-1 alpha-2 country code (either case)."""
    return len(code) == 2 and pycountry.countries.get(alpha_2=code.upper()) is not None


def names_sentence(countries: Iterable[str]) -> str:
    """'the United States', 'the United States and Canada', 'A, B and C'."""
    names = [_with_article(country_name(code)) for code in countries]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _with_article(name: str) -> str:
    return f"the {name}" if name.startswith(("United ", "Netherlands", "Philippines", "Czech")) else name


def country_options(countries: Sequence[str]) -> list[dict[str, str]]:
    """The checkout's country select: {'value': code, 'label': name}, in the order configured."""
    return [{"value": code, "label": country_name(code)} for code in countries]


@lru_cache(maxsize=1)
def us_states() -> tuple[tuple[str, str], ...]:
    """(code, name) of the states, DC and the territories a US address may name, by name."""
    found = (
        (sub.code.split("-", 1)[1], str(sub.name))
        for sub in pycountry.subdivisions.get(country_code=US) or ()
    )
    return tuple(sorted((item for item in found if item[0] not in _NOT_ADDRESSABLE), key=lambda item: item[1]))


def state_options() -> list[dict[str, str]]:
    """The US state select: {'value': code, 'label': name}."""
    return [{"value": code, "label": name} for code, name in us_states()]


def us_state_code(value: str) -> str | None:
    """A US state's two-letter code from its code or its name (either case); None when neither."""
    text = value.strip()
    for code, name in us_states():
        if text.upper() == code or text.casefold() == name.casefold():
            return code
    return None


@lru_cache(maxsize=1)
def all_countries() -> tuple[tuple[str, str], ...]:
    """(code, name) of every ISO 3166-1 country, by name (a billing address may be anywhere)."""
    return tuple(
        sorted(((str(c.alpha_2), country_name(str(c.alpha_2))) for c in pycountry.countries), key=lambda i: i[1])
    )
