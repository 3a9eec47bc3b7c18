"""SQLModel tables. The schema is created only by the Alembic migrations in alembic/versions."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import Column, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class CatalogProduct(SQLModel, table=True):
    """A provider product as cached for the storefront, with its collection placement."""

    __tablename__ = "catalog_product"

    id: str = Field(primary_key=True, max_length=64)
    shop_id: int = Field(index=True)
    title: str = Field(max_length=255)
    description: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    tags_json: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    collection_key: str = Field(index=True, max_length=16)
    #: True once staff placed the product by hand; sync then keeps the placement.
    collection_assigned: bool = Field(default=False)
    #: Shown on the storefront (the admin visibility toggle).
    is_active: bool = Field(default=True, index=True)
    is_published: bool = Field(default=False)
    blueprint_id: int | None = Field(default=None)
    print_provider_id: int | None = Field(default=None)
    provider_created_at: datetime | None = Field(default=None, index=True)
    provider_updated_at: datetime | None = Field(default=None)
    synced_at: datetime = Field(default_factory=utcnow)


class CatalogVariant(SQLModel, table=True):
    """One variant (colour and size) of a cached product; price in cents."""

    __tablename__ = "catalog_variant"
    __table_args__ = (UniqueConstraint("product_id", "variant_id", name="uq_catalog_variant"),)

    id: int | None = Field(default=None, primary_key=True)
    product_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("catalog_product.id", ondelete="CASCADE"), index=True, nullable=False
        )
    )
    variant_id: int = Field(sa_column=Column(Integer, nullable=False))
    sku: str = Field(default="", max_length=128)
    title: str = Field(default="", max_length=255)
    price_cents: int
    is_enabled: bool = Field(default=True)
    color: str = Field(default="", max_length=64)
    size: str = Field(default="", max_length=32)
    sort_order: int = Field(default=0)


class CatalogImage(SQLModel, table=True):
    """One mockup image of a cached product."""

    __tablename__ = "catalog_image"

    id: int | None = Field(default=None, primary_key=True)
    product_id: str = Field(
        sa_column=Column(
            String(64), ForeignKey("catalog_product.id", ondelete="CASCADE"), index=True, nullable=False
        )
    )
    src: str = Field(sa_column=Column(Text, nullable=False))
    position: str = Field(default="", max_length=32)
    is_default: bool = Field(default=False)
    sort_order: int = Field(default=0)
