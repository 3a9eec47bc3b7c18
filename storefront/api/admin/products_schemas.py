"""Request and answer models of the product routes (storefront/api/admin/products.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.schemas import Id, Number, Text, _example, _Open


class ProductCreate(_Open):
    """The create-product form; every catalogue variant of the type is enabled at `price`."""

    model_config = _example(
        {"title": "Kappa Tee", "description": "A soft tee for the chapter.", "blueprint_id": 384, "print_provider_id": 1, "price": 29.99}
    )

    title: Text = Field(None, description="At least 3 characters")
    description: Text = Field(None, description="At least 10 characters")
    blueprint_id: Id = Field(None, description="Product type (384, 386, 387, 388, 400)")
    blueprintId: Id = None  # noqa: N815
    print_provider_id: Id = Field(None, description="Print provider (1, 2, 3, 29)")
    printProviderId: Id = None  # noqa: N815
    price: Number = Field(None, description="Dollars, default 29.99")
    shopId: Id = None  # noqa: N815
    variants: list[Any] | None = Field(None, description="Ignored: the catalogue's variants are used")


class PublishRequest(_Open):
    publish_to_storefront: bool | None = None


class VariantPrice(_Open):
    id: Any = None
    price: Any = Field(None, description="Cents")
    is_enabled: Any = None


class ProviderProductUpdate(_Open):
    """{tags: [CATEGORY]} or {title, description, variants: [{id, price (cents)}]}."""

    tags: list[Any] | None = None
    title: Text = None
    description: Text = None
    variants: list[Any] | None = None


class EditorSave(_Open):
    model_config = _example({"title": "Kappa Tee", "description": "A soft tee for the chapter.", "price": "31.50", "category": "hwdkn"})

    title: Text = None
    description: Text = None
    price: Number = Field(None, description="Dollars, a number not below 0 ('Invalid price value')")
    category: Text = None
    shopId: Id = None  # noqa: N815
    printifyProductId: Id = None  # noqa: N815
    variants: list[Any] | None = None
    confirmBelowCost: bool | None = Field(  # noqa: N815
        None, description="true: save even where a variant would sell below its provider cost (409 names them otherwise)"
    )


class CategoryChange(_Open):
    model_config = _example({"category": "hwdrn"})

    category: Text = Field(None, description="A collection key (hwdkn, hwdrn, hwdzn, hwdpn, swdnn)")
    printifyProductId: Id = None  # noqa: N815
    shopId: Id = None  # noqa: N815
    name: Text = None
    description: Text = None


class VisibilityChange(_Open):
    model_config = _example({"isActive": False})

    isActive: Any = Field(None, description="true to show, false to hide")  # noqa: N815


class ArchiveRequest(_Open):
    model_config = _example({"deleteAtProvider": False, "shopId": 1})

    deleteAtProvider: bool | None = Field(  # noqa: N815
        None, description="true: also delete the product at the print provider (left alone otherwise)"
    )
    shopId: Id = None  # noqa: N815


class PriceSync(_Open):
    model_config = _example({"price": 27.5})

    price: Number = Field(None, description="Dollars ('Invalid price value')")
    shopId: Id = None  # noqa: N815
    printifyProductId: Id = None  # noqa: N815
    confirmBelowCost: bool | None = Field(  # noqa: N815
        None, description="true: save even where a variant would sell below its provider cost (409 names them otherwise)"
    )


class ProductSync(_Open):
    shopId: Id = None  # noqa: N815
    printifyData: Any = Field(None, description="Ignored: the provider's own copy is read")  # noqa: N815


class VariantRow(_Open):
    id: Any = None
    title: str | None = None
    size: str | None = None
    color: str | None = None
    price: int | None = None
    is_enabled: bool | None = None


class ProductRow(_Open):
    """An editable product row: variant prices in cents, `price` in dollars."""

    id: str
    shopId: int  # noqa: N815
    title: str
    description: str
    descriptionText: str | None = None  # noqa: N815
    price: Any = None
    priceCents: int | None = None  # noqa: N815
    category: str
    isActive: bool  # noqa: N815
    is_published: bool
    status: str
    variants: list[VariantRow]


class ProductRowAnswer(_Open):
    data: ProductRow


class ProductPage(_Open):
    data: list[ProductRow]
    total: int
    limit: int
    offset: int
    hasMore: bool  # noqa: N815


class ProviderProductAnswer(_Open):
    data: Any = Field(description="The product as the provider has it")


class Margin(_Open):
    id: Any = None
    title: str | None = None
    size: str | None = None
    color: str | None = None
    is_enabled: bool | None = None
    price: int | None = None
    cost: int | None = None
    margin: int | None = None
    marginPercent: float | None = None  # noqa: N815


class MarginAnswer(_Open):
    data: list[Margin]


class ShopSync(_Open):
    synced: int
    removed: int


class CategoryProduct(_Open):
    id: Any
    name: str | None = None
    description: str | None = None
    price: float | None = None
    imageUrl: str | None = None  # noqa: N815
    isActive: bool | None = None  # noqa: N815


class CategoryProducts(_Open):
    data: list[CategoryProduct]
    total: int
