"""Collections: the five themed collections, their names, routes, colours and category keywords.

The store's merchandising data, read by the catalogue, the demo data of every domain and the pages.

May use: no other domain (only storefront.models and storefront.config).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Collection:
    """One themed collection of the store."""

    key: str
    label: str
    title: str
    tagline: str
    description: str
    primary: str
    secondary: str
    keywords: tuple[str, ...]

    @property
    def route(self) -> str:
        return f"/collections/{self.key}"


SWDNN = Collection(
    key="swdnn",
    label="SWDNN",
    title="She Wit Da Nupes Now",
    tagline="The main collection",
    description="Our signature line: crimson and cream pieces made for the ladies who ride with the Nupes.",
    primary="#9b111e",
    secondary="#f3e5c8",
    keywords=("swdnn", "nupe"),
)
HWDKN = Collection(
    key="hwdkn",
    label="HWDKN",
    title="He Wit Da K's Now",
    tagline="Greek organization themed",
    description="Greek organization themed gear with bold letters for the brothers and everyone who stands with them.",
    primary="#2b2b2b",
    secondary="#c8a24a",
    keywords=("hwdkn", "kappa", "k's"),
)
HWDRN = Collection(
    key="hwdrn",
    label="HWDRN",
    title="He Wit Da Redz Now",
    tagline="Red all the way",
    description="Everything red: tees, hoodies and crewnecks that turn heads from across the yard.",
    primary="#c8102e",
    secondary="#ffffff",
    keywords=("hwdrn", "red"),
)
HWDZN = Collection(
    key="hwdzn",
    label="HWDZN",
    title="He Wit Da Zetas Now",
    tagline="Blue and proud",
    description="Royal blue and white styles made for standing with the Zetas.",
    primary="#1f4fbf",
    secondary="#ffffff",
    keywords=("hwdzn", "zeta"),
)
HWDPN = Collection(
    key="hwdpn",
    label="HWDPN",
    title="He Wit Da Poodles Now",
    tagline="Yellow and golden",
    description="Golden yellow looks with royal blue accents for the Poodles' biggest fans.",
    primary="#f2c200",
    secondary="#1a3a8f",
    keywords=("hwdpn", "poodle"),
)

#: Display order: the main collection first.
COLLECTIONS: tuple[Collection, ...] = (SWDNN, HWDKN, HWDRN, HWDZN, HWDPN)
COLLECTIONS_BY_KEY: dict[str, Collection] = {c.key: c for c in COLLECTIONS}
DEFAULT_COLLECTION_KEY = SWDNN.key
#: Order in which category keywords are tried (the spec's order; swdnn is also the default).
DERIVATION_ORDER: tuple[Collection, ...] = (HWDKN, HWDRN, HWDZN, HWDPN, SWDNN)


def get_collection(key: str) -> Collection | None:
    """The collection with this key (case-insensitive), or None."""
    return COLLECTIONS_BY_KEY.get(key.lower())
