"""A seeded store data directory: the demo store's setup plus clones up to N published products."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, func, select

from storefront.config import PROJECT_ROOT
from storefront.db import make_engine
from storefront.models import CatalogProduct
from storefront.services.catalog.sync import upsert_product
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID, demo_catalogue, hex_id
from storefront.wiring import DEMO_MEDIA_URL

#: Settings a bench store never inherits from the shell (it runs on the demo provider).
PROVIDER_SETTINGS = ("PRINTIFY_API_TOKEN", "PRINTIFY_SHOP_ID", "PRINTIFY_API_BASE", "PRINTIFY_WEBHOOK_SECRET")


def store_env(data_dir: Path, port: int, overrides: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a bench store: its own data directory and port, the demo provider."""
    env = {**os.environ, "DATA_DIR": str(data_dir), "PORT": str(port), "REFLEX_USE_NPM": "1",
           "PYTHONUNBUFFERED": "1",
           # Every bench order comes from one address: the per-address order limit is not measured.
           "ORDERS_PER_HOUR": "1000000"}
    for name in ("DB_URL", "UPLOAD_DIR", "REDIS_URL", *PROVIDER_SETTINGS):
        env.pop(name, None)
    env.update(overrides or {})
    return env


def clone_product(template: dict[str, Any], number: int) -> dict[str, Any]:
    """A copy of a demo product under a new id and a numbered title (same images and variants)."""
    product = copy.deepcopy(template)
    product["id"] = hex_id(f"bench-product-{number}")
    product["title"] = f"{template['title']} No. {number}"
    product["visible"] = True
    product["is_published"] = True
    return product


def seed_catalogue(data_dir: Path, total: int) -> int:
    """Prepare `data_dir` like the store does (migrate, demo seed), then add clones up to `total`."""
    subprocess.run([sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT,
                   env=store_env(data_dir, 3000), check=True, capture_output=True)
    engine = make_engine(f"sqlite:///{data_dir / 'storefront.db'}")
    try:
        return add_clones(engine, total)
    finally:
        engine.dispose()


def add_clones(engine: Engine, total: int) -> int:
    """Clone the visible demo products into the catalogue until it holds `total`; the count."""
    templates = [p for p in demo_catalogue(DEMO_MEDIA_URL) if p.get("visible", p.get("is_published"))]
    with Session(engine) as session:
        count = session.exec(select(func.count()).select_from(CatalogProduct)).one()
        number = 0
        while count < total:
            upsert_product(session, clone_product(templates[number % len(templates)], number), DEMO_SHOP_ID)
            number += 1
            count += 1
        session.commit()
    return count
