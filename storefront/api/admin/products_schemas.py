"""Request and answer models of the product routes (storefront/api/admin/products.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from storefront.api.schemas import Id, Number, Text, _example, _Open


class Placement(_Open):
    """Where the design is printed: side, centre (0-1 of the print area), width as a share of it, angle."""

    position: str | None = Field(None, description="front (default) or back")
    x: float | None = Field(None, description="0-1, default 0.5")
    y: float | None = Field(None, description="0-1, default 0.5")
    scale: float | None = Field(None, description="Above 0 up to 2; 1 (default) is the print area's width")
    angle: Any = Field(None, description="Whole degrees, default 0")


class ProductCreate(_Open):
    """The create-product form: a design printed on the chosen colours and sizes of a product type."""

    model_config = _example(
        {
            "title": "Kappa Tee",
            "description": "A soft tee for the chapter.",
            "blueprint_id": 384,
            "print_provider_id": 1,
            "price": 29.99,
            "design": "data:image/png;base64,iVBORw0KGgo...",
            "placement": {"position": "front", "x": 0.5, "y": 0.5, "scale": 1},
            "colors": ["White", "Black"],
            "sizes": ["S", "M", "L", "XL", "2XL"],
        }
    )

    title: Text = Field(None, description="At least 3 characters")
    description: Text = Field(None, description="At least 10 characters")
    blueprint_id: Id = Field(None, description="Product type (384, 386, 387, 388, 400)")
    blueprintId: Id = None
    print_provider_id: Id = Field(None, description="Print provider (1, 2, 3, 29)")
    printProviderId: Id = None
    price: Number = Field(None, description="Dollars, default 29.99")
    shopId: Id = None
    variants: list[Any] | None = Field(None, description="Ignored: the catalogue's variants are used")
    design: Text = Field(
        None,
        description="The artwork as an image data URL (PNG with a transparent background, or JPEG); required "
        "unless designUploadId is sent",
    )
    designUploadId: Id = Field(None, description="The provider's id of the design, uploaded by an earlier create")
    placement: Placement | None = None
    colors: list[str] | None = Field(None, description="Colours to sell (default: every colour of the type)")
    sizes: list[str] | None = Field(None, description="Sizes to sell (default: every size of the type)")
    sizePrices: dict[str, Number] | None = Field(
        None, description="Dollars per size; other sizes are the price plus the size's extra cost"
    )


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
    model_config = _example(
        {"title": "Kappa Tee", "description": "A soft tee for the chapter.", "price": "31.50", "category": "hwdkn"}
    )

    title: Text = None
    description: Text = None
    price: Number = Field(None, description="Dollars, a number not below 0 ('Invalid price value')")
    category: Text = None
    shopId: Id = None
    printifyProductId: Id = None
    variants: list[Any] | None = None
    confirmBelowCost: bool | None = Field(
        None,
        description=("true: save even where a variant would sell below its provider cost (409 names them otherwise)"),
    )


class CategoryChange(_Open):
    model_config = _example({"category": "hwdrn"})

    category: Text = Field(None, description="A collection key (hwdkn, hwdrn, hwdzn, hwdpn, swdnn)")
    printifyProductId: Id = None
    shopId: Id = None
    name: Text = None
    description: Text = None


class VisibilityChange(_Open):
    model_config = _example({"isActive": False})

    isActive: Any = Field(None, description="true to show, false to hide")


class ArchiveRequest(_Open):
    model_config = _example({"deleteAtProvider": False, "shopId": 1})

    deleteAtProvider: bool | None = Field(
        None, description="true: also delete the product at the print provider (left alone otherwise)"
    )
    shopId: Id = None


class PriceSync(_Open):
    model_config = _example({"price": 27.5})

    price: Number = Field(None, description="Dollars ('Invalid price value')")
    shopId: Id = None
    printifyProductId: Id = None
    confirmBelowCost: bool | None = Field(
        None,
        description=("true: save even where a variant would sell below its provider cost (409 names them otherwise)"),
    )


class ProductSync(_Open):
    shopId: Id = None
    printifyData: Any = Field(None, description="Ignored: the provider's own copy is read")


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
    shopId: int
    title: str
    description: str
    descriptionText: str | None = None
    price: Any = None
    priceCents: int | None = None
    category: str
    isActive: bool
    is_published: bool
    status: str
    variants: list[VariantRow]


class ProductRowAnswer(_Open):
    data: ProductRow


class SizePrice(_Open):
    size: str
    price: int = Field(description="Cents")
    cost: int | None = Field(description="The provider's cost in cents, when the catalogue says")
    margin: int | None = Field(description="Price minus cost in cents")


class CreatedProductAnswer(_Open):
    data: ProductRow
    designUploadId: str = Field(description="The provider's upload of the design (send it to create again)")
    warning: str | None = Field(description="Why the design may print soft, when it may")
    mockups: list[str] = Field(description="The provider's mockup of each colour")
    prices: list[SizePrice]


class ProductPage(_Open):
    data: list[ProductRow]
    total: int
    limit: int
    offset: int
    hasMore: bool


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
    marginPercent: float | None = None


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
    imageUrl: str | None = None
    isActive: bool | None = None


class CategoryProducts(_Open):
    data: list[CategoryProduct]
    total: int
