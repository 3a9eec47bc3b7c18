"""The HTTP API's request and answer shapes (spec section 7 names), for validation and /api/docs.

Request models are deliberately permissive where a service checks the field and answers the
spec's own message ('Please enter a valid email address', 'Name must be at least 2 characters',
'Invalid price value', ...): the field is optional and typed the way the browser sends it, so a
body of the right shape always reaches the service, which stays the one place of each rule. A body
that does not fit the model at all (not an object, a list where an object belongs) is FastAPI's 422,
answered by the app as {"error": "Invalid request", "details": {field: reason}}.

Every model allows extra fields: the services ignore what they do not read (or refuse it with
their own message), and answers may carry more than the fields named here.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field


#: A text field the service checks itself (missing, blank or mistyped -> the spec's message).
Text = str | None
#: A number the browser may send as a JSON number or a numeric string ("29.99").
Number = int | float | str | None
#: An id the browser may send as a number or a string.
Id = int | str | None
#: A field documented as text but taken as sent, whatever its JSON type: the service answers the
#: spec's message for a wrong type too (the order lookup names both fields in one refusal).
AnyText = Annotated[Any, Field(json_schema_extra={"type": ["string", "null"]})]
#: An email the service checks itself; documented as an email so generated examples look like one.
Email = Annotated[str | None, Field(json_schema_extra={"format": "email"})]


class _Open(BaseModel):
    """A JSON object that may carry more fields than declared."""

    model_config = ConfigDict(extra="allow")


def _example(*examples: dict[str, Any]) -> ConfigDict:
    """A request model's config with examples (shown in /api/docs, sent by the fuzz test)."""
    return ConfigDict(extra="allow", json_schema_extra={"examples": list(examples)})


_ADDRESS_EXAMPLE = {"first_name": "Ada", "last_name": "Lovelace", "address1": "12 Analytical Row", "city": "Albany", "state_code": "NY", "country_code": "US", "zip": "12207"}
_CARD_EXAMPLE = {"cardNumber": "4242 4242 4242 4242", "expiryDate": "12/39", "cvv": "739", "cardholderName": "Ada Lovelace"}


def dump(model: BaseModel | None) -> dict[str, Any]:
    """The request model as a dict ({} when no body was sent)."""
    return {} if model is None else model.model_dump(exclude_unset=True)


# --------------------------------------------------------------------------- errors


class ErrorBody(_Open):
    """Every refusal: the message, and per-field messages or the provider's details."""

    error: str = Field(description="What went wrong, in the spec's words")
    details: Any = Field(None, description="Messages per field ({field: message}) or the provider's reason")


class LoginErrorBody(ErrorBody):
    """A refused sign-in also carries the spec's {message}."""

    message: str | None = Field(None, description="The spec's login failure text")


class ProviderErrorBody(ErrorBody):
    """A refusal by the print provider: the spec's failure text, its reason and its own error body."""

    provider: Any = Field(None, description="The provider's error body")


def errors(*statuses: int, model: type[BaseModel] = ErrorBody, **described: str) -> dict[int | str, dict[str, Any]]:
    """`responses=` entries for these statuses, all answering {"error", "details"}."""
    texts = {
        400: "Bad request",
        401: "No live admin session (x-admin-token), or a wrong key",
        402: "The payment was declined",
        404: "Not found (a wrong key answers the same)",
        409: "Conflict with the record's current state",
        413: "The body is too large",
        422: "Invalid request: {error, details: {field: message}}",
        429: "Too many requests from this address; Retry-After says when to come back",
        500: "The provider accepted the change but it could not be recorded (a sync catches up)",
        502: "The provider, store or engine could not answer",
        503: "Not now: try again later",
    }
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        out[status] = {"model": model, "description": described.get(f"d{status}", texts.get(status, "Refused"))}
    return out


# --------------------------------------------------------------------------- admin sign-in


class LoginRequest(_Open):
    model_config = _example({"username": "admin", "password": "admin123"})

    username: Text = Field(None, description="Required ('Username is required')")
    password: Text = Field(None, description="Required ('Password is required')")


class LoginAnswer(_Open):
    token: str = Field(description="The admin session, sent back in x-admin-token")


class SessionAnswer(_Open):
    username: str
    expiresAt: str  # noqa: N815  (the API's names)


class Success(_Open):
    success: bool


# --------------------------------------------------------------------------- orders


class Address(_Open):
    """An address of the checkout form (spec section 3); each field's rule is checked by the service."""

    first_name: Text = Field(None, description="Required ('First name is required')")
    last_name: Text = Field(None, description="Required ('Last name is required')")
    address1: Text = Field(None, description="Required ('Address is required')")
    address2: Text = None
    city: Text = Field(None, description="Required ('City is required')")
    state_code: Text = Field(None, description="At least 2 characters ('State is required')")
    country_code: Text = Field(None, description="At least 2 characters ('Country is required'); default US")
    zip: Text = Field(None, description="Required ('ZIP code is required')")


class OrderLine(_Open):
    """An order line as the cart sends it; its price is never trusted (the server reprices it)."""

    id: Id = None
    productId: Id = None  # noqa: N815
    printifyProductId: Id = None  # noqa: N815
    printifyVariantId: Id = None  # noqa: N815
    variantId: Id = None  # noqa: N815
    name: Text = None
    size: Text = None
    color: Text = None
    price: Number = None
    quantity: Number = None
    imageUrl: Text = None  # noqa: N815
    source: Text = None


class OrderRequest(_Open):
    """The spec's order payload."""

    model_config = _example(
        {
            "customerEmail": "ada@example.com",
            "customerName": "Ada Lovelace",
            "shippingAddress": _ADDRESS_EXAMPLE,
            "sameAsShipping": True,
            "items": [{"productId": "1", "name": "Tee", "size": "M", "price": 24.99, "quantity": 1}],
            "subtotal": 24.99,
            "shipping": 9.99,
            "tax": 0,
            "total": 34.98,
        }
    )

    customerEmail: Email = Field(None, description="A valid email ('Please enter a valid email address')")  # noqa: N815
    customerName: Text = Field(None, description="At least 2 characters ('Name must be at least 2 characters')")  # noqa: N815
    customerPhone: Text = Field(None, description="Optional")  # noqa: N815
    shippingAddress: Address | None = None  # noqa: N815
    billingAddress: Address | None = Field(None, description="Checked only when sameAsShipping is false")  # noqa: N815
    sameAsShipping: bool | None = Field(None, description="Default true")  # noqa: N815
    items: list[OrderLine] | None = Field(None, description="Not empty ('No items in cart')")
    subtotal: Number = Field(None, description="Must match the lines within 0.01 (else 'Price mismatch detected...')")
    shipping: Number = None
    tax: Number = None
    total: Number = None
    idempotencyKey: Text = Field(None, description="Or the Idempotency-Key header")  # noqa: N815


class OrderItemView(_Open):
    id: Any = None
    productId: Any = None  # noqa: N815
    variantId: Any = None  # noqa: N815
    name: str | None = None
    size: str | None = None
    color: str | None = None
    quantity: int | None = None
    price: float | None = None
    imageUrl: str | None = None  # noqa: N815


class ShopperOrder(_Open):
    """What the shopper is told about an order: lines, money in dollars, where it stands."""

    id: str
    orderNumber: str  # noqa: N815
    subtotal: float
    shipping: float
    tax: float
    total: float
    status: str
    paymentStatus: str  # noqa: N815
    createdAt: str  # noqa: N815
    items: list[OrderItemView]


class PaymentHandoff(_Open):
    """What the browser needs to pay with Stripe's Payment Element (only when Stripe takes payments)."""

    provider: str = Field(description="'stripe'")
    clientSecret: str = Field(description="The order's PaymentIntent client secret, for Stripe.js only")  # noqa: N815
    publishableKey: str  # noqa: N815


class PlacedOrder(_Open):
    order: ShopperOrder
    accessToken: str | None = Field(None, description="Opens the order later (X-Order-Token)")  # noqa: N815
    payment: PaymentHandoff | None = Field(None, description="With Stripe: how the browser pays the order")


class CardData(_Open):
    """The card form; numbers typed into JSON are read as text. Checked by the payment rules."""

    cardNumber: str | int | None = None  # noqa: N815
    expiryDate: str | int | None = Field(None, description="MM/YY")  # noqa: N815
    expiryMonth: str | int | None = None  # noqa: N815
    expiryYear: str | int | None = None  # noqa: N815
    cvv: str | int | None = None
    cardholderName: str | int | None = None  # noqa: N815


class PaymentRequest(_Open):
    model_config = _example({"paymentId": "pay_1700000000_abc123", "paymentMethod": "card", "cardData": _CARD_EXAMPLE})

    paymentId: str | int | None = Field(None, description="Client-generated; a retried request charges once")  # noqa: N815
    shopId: Any = None  # noqa: N815
    paymentMethod: Text = None  # noqa: N815
    amount: Number = None
    cardData: CardData | None = None  # noqa: N815


class PaymentAnswer(_Open):
    success: bool
    order: ShopperOrder


class CardCheckRequest(_Open):
    model_config = _example({"cardData": _CARD_EXAMPLE})

    cardData: CardData  # noqa: N815


class CardCheckAnswer(_Open):
    valid: bool
    fieldErrors: dict[str, str]  # noqa: N815


class OrderStatusAnswer(_Open):
    id: str
    status: str
    paymentStatus: str  # noqa: N815
    printifyStatus: str | None = None  # noqa: N815
    printifyOrderId: str | None = None  # noqa: N815
    trackingNumber: str | None = None  # noqa: N815
    trackingCarrier: str | None = None  # noqa: N815
    trackingUrl: str | None = None  # noqa: N815
    shippedAt: str | None = None  # noqa: N815
    deliveredAt: str | None = None  # noqa: N815
    needsAttention: bool = False  # noqa: N815
    attentionReason: str | None = None  # noqa: N815


class LookupRequest(_Open):
    model_config = _example({"number": "SF-000001", "email": "ada@example.com"})

    number: AnyText = Field(None, description="The order number ('SF-000123'); 'Order number is required'")
    email: AnyText = Field(
        None, description="The email the order was placed with; 'Email is required'", json_schema_extra={"format": "email"}
    )


class GuestOrder(_Open):
    """The guest view of an order (lookup or token)."""

    id: str
    orderNumber: str | None = None  # noqa: N815


class AdminOrder(_Open):
    """The spec's admin Order entity, with tracking."""

    id: str
    orderNumber: str | None = None  # noqa: N815
    customerName: str | None = None  # noqa: N815
    customerEmail: str | None = None  # noqa: N815
    customerPhone: str | None = None  # noqa: N815
    subtotal: float | None = None
    shipping: float | None = None
    tax: float | None = None
    total: float | None = None
    status: str | None = None
    paymentStatus: str | None = None  # noqa: N815
    printifyStatus: str | None = None  # noqa: N815
    printifyOrderId: str | None = None  # noqa: N815
    trackingNumber: str | None = None  # noqa: N815
    createdAt: str | None = None  # noqa: N815
    shippingAddress: dict[str, Any] | None = None  # noqa: N815
    items: list[dict[str, Any]] = []
    paymentProvider: str | None = None  # noqa: N815
    history: list[dict[str, Any]] | None = Field(None, description="Refunds, cancellations, expiry: at, actor, action, detail")


class OrderPage(_Open):
    data: list[AdminOrder]
    total: int
    nextCursor: str | None = None  # noqa: N815
    hasMore: bool  # noqa: N815


class RetryAnswer(_Open):
    success: bool
    order: AdminOrder


class CancellationAnswer(_Open):
    success: bool
    order: AdminOrder
    message: str = Field("", description="What became of the print order (already printing, cancelled, ...)")


class WebhookReceipt(_Open):
    received: bool
    result: str


# --------------------------------------------------------------------------- events


class EventLink(_Open):
    title: Text = None
    url: Text = None


class EventForm(_Open):
    """The event form (spec section 5): title, location, description and startDate required."""

    model_config = _example(
        {
            "title": "Spring Step Show",
            "description": "An evening of stepping.",
            "location": "Albany, NY",
            "startDate": "2030-04-05T19:00",
            "endDate": "2030-04-05T22:00",
            "images": [],
            "videos": [""],
            "links": [{"title": "Tickets", "url": "https://example.com/tickets"}],
            "isActive": True,
            "featured": False,
            "capacity": 200,
            "price": 15.5,
        }
    )

    title: Text = Field(None, description="Required")
    description: Text = Field(None, description="Required")
    location: Text = Field(None, description="Required")
    startDate: Text = Field(None, description="Required, yyyy-mm-ddThh:mm")  # noqa: N815
    endDate: Text = Field(None, description="Optional, yyyy-mm-ddThh:mm")  # noqa: N815
    images: list[Any] | None = Field(None, description="Image URLs; blank entries are dropped")
    videos: list[Any] | None = Field(None, description="Video URLs; blank entries are dropped")
    links: list[Any] | None = Field(None, description="[{title, url}]; a link missing either is dropped")
    isActive: bool | None = Field(None, description="Default true")  # noqa: N815
    featured: bool | None = Field(None, description="Default false")
    capacity: Number = Field(None, description="Optional whole number")
    price: Number = Field(None, description="Optional, at least 0, dollars")


class Event(_Open):
    id: int
    title: str
    description: str
    location: str
    startDate: str  # noqa: N815
    endDate: str | None = None  # noqa: N815
    images: list[str]
    videos: list[str]
    links: list[EventLink]
    isActive: bool  # noqa: N815
    featured: bool
    capacity: int | None = None
    price: float | None = None
    registrations: list[Any] = []
    registrationCount: int = 0  # noqa: N815


class Deleted(_Open):
    success: bool
    id: int


# --------------------------------------------------------------------------- products


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


class PriceSync(_Open):
    model_config = _example({"price": 27.5})

    price: Number = Field(None, description="Dollars ('Invalid price value')")
    shopId: Id = None  # noqa: N815
    printifyProductId: Id = None  # noqa: N815


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


# --------------------------------------------------------------------------- provider


class Shop(_Open):
    id: Any
    title: str | None = None
    sales_channel: str | None = None


class ProviderStatusAnswer(_Open):
    configured: bool
    hasApiKey: bool  # noqa: N815
    apiKeyLength: int  # noqa: N815
    timestamp: str


class RefreshAnswer(_Open):
    message: str
    isConfigured: bool  # noqa: N815


class WebhookAnswer(_Open):
    ok: bool
    result: str | None = None


# --------------------------------------------------------------------------- store catalogue


class StoreStatusAnswer(_Open):
    status: str = Field(description="'demo', 'connected' or 'error'")
    message: str | None = None
    shopName: str | None = None  # noqa: N815
    domain: str | None = None


class StoreImage(_Open):
    src: str
    alt: str | None = None
    width: int | None = None
    height: int | None = None


class StoreOption(_Open):
    name: str
    position: int
    values: list[str]


class StoreVariant(_Open):
    id: int
    title: str | None = None
    price: str | None = None
    option1: str | None = None
    option2: str | None = None
    option3: str | None = None


class StoreProduct(_Open):
    id: int
    title: str
    body_html: str | None = None
    vendor: str | None = None
    product_type: str | None = None
    tags: str = ""
    image: StoreImage | None = None
    images: list[StoreImage]
    options: list[StoreOption]
    variants: list[StoreVariant]


class StoreProducts(_Open):
    products: list[StoreProduct]
    nextCursor: str | None = None  # noqa: N815


class Collection(_Open):
    id: int
    title: str


class Collections(_Open):
    collections: list[Collection]


# --------------------------------------------------------------------------- uploads and try-on


class UploadedFile(_Open):
    url: str


class UploadAnswer(_Open):
    files: list[UploadedFile]


class TryOnAnswer(_Open):
    url: str = Field(description="The photo wearing the item, as an image data URL")


TRY_ON_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "properties": {
                    "userPhoto": {"type": "string", "description": "The shopper's photo as an image data URL"},
                    "selectedItem": {"type": "string", "description": "The item's image as an image data URL"},
                },
                "required": ["userPhoto", "selectedItem"],
            }
        }
    },
}

UPLOAD_BODY = {
    "required": True,
    "content": {
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "properties": {
                    "images": {
                        "type": "array",
                        "items": {"type": "string", "format": "binary"},
                        "maxItems": 10,
                        "description": "1 to 10 images (JPEG, PNG, GIF, WebP, HEIC), up to 10 MB each",
                    }
                },
                "required": ["images"],
            }
        }
    },
}

WEBHOOK_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "description": "A Printify webhook envelope, signed over its raw bytes (X-Pfy-Signature)",
                "properties": {
                    "id": {"type": "string"},
                    "type": {"type": "string", "description": "e.g. order:updated, product:publish:started"},
                    "created_at": {"type": "string"},
                    "resource": {"type": "object"},
                },
            }
        }
    },
}
