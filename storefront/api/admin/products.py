"""Product routes (spec section 7): the admin's /api/printify/shops/{shop}/products calls and
/api/products/{id} calls, plus the public category read.

A refusal by the print provider answers {"error": the spec's failure text, "details": the
provider's reason, "provider": its error body} with the provider error's status; other service
errors go through the app's handler ({"error", "details"}).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlmodel import Session

from storefront.api.admin.products_schemas import (
    ArchiveRequest,
    CategoryChange,
    CategoryProducts,
    CreatedProductAnswer,
    EditorSave,
    MarginAnswer,
    PriceSync,
    ProductCreate,
    ProductPage,
    ProductRowAnswer,
    ProductSync,
    ProviderProductAnswer,
    ProviderProductUpdate,
    PublishRequest,
    ShopSync,
    VisibilityChange,
)
from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY, actor_of
from storefront.api.schemas import ProviderErrorBody, dump, errors
from storefront.models import DB_INT_MAX, DB_INT_MIN
from storefront.services.admin import admin_catalog, product_forms, product_margins, product_rows
from storefront.services.catalog import catalog, sync as catalog_sync
from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.money import cents_to_dollars
from storefront.services.printify.errors import ProviderError, provider_reason
from storefront.services.printify.provider import PrintProvider

router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["products (admin)"])
#: A provider shop id, within the database's integer range.
ShopId = Annotated[int, Path(ge=DB_INT_MIN, le=DB_INT_MAX)]
#: The public catalogue reads of section 7 (shown products only).
public_router = APIRouter(tags=["products"])

SHOP_PRODUCTS = "/api/printify/shops/{shop_id}/products"
SHOP_PRODUCT = SHOP_PRODUCTS + "/{product_id}"
PRODUCT = "/api/products/{product_id}"
CATEGORY_PAGE_SIZE = 50
#: A create carries its design as a data URL: the largest image in base64, and room for the form.
CREATE_PATTERN = r"/api/printify/shops/[^/]+/products"
MAX_CREATE_BYTES = (MAX_IMAGE_BYTES + 2) // 3 * 4 + 64 * 1024
CREATE_TOO_LARGE = f"The design is too large: at most {MAX_IMAGE_BYTES // (1024 * 1024)} MB."


def _provider(request: Request) -> PrintProvider:
    return request.app.state.services.provider


def _session(request: Request) -> Session:
    return request.app.state.services.session_factory()


def _object(payload: BaseModel | None) -> dict[str, Any]:
    """The body as the dict the service reads (only the fields sent); a missing body is {}.
    A body that is not an object is FastAPI's 422."""
    return dump(payload)


#: What a provider-backed route may answer besides 200: the provider's refusal (404 for an unknown
#: shop or product, 502 when it failed), the service's 404/409/422, and 500 when the provider took
#: a change the cache could not record.
PROVIDER_ERRORS = {
    **errors(404, 409, 422),
    **errors(500, 502, model=ProviderErrorBody),
}


def _refused(failure: str, action: Callable[[], Any], status_code: int = 200) -> JSONResponse:
    """Run a provider-backed action; the provider's refusal answers with the spec's failure text."""
    try:
        return JSONResponse(action(), status_code=status_code)
    except ProviderError as exc:
        body = {"error": failure, "details": provider_reason(exc), "provider": exc.details}
        return JSONResponse(body, status_code=exc.status_code)


def _shop_for(request: Request, product_id: str, payload: dict[str, Any]) -> int:
    """The body's shopId, else the shop the cached product belongs to (read in its own short session)."""
    if payload.get("shopId") is not None:
        return product_forms.parse_shop_id(payload["shopId"])
    with _session(request) as session:
        return product_rows.shop_of(session, product_id)


def _row_answer(row: product_rows.AdminProductRow) -> dict[str, Any]:
    return {"data": product_rows.serialize_row(row)}


# --------------------------------------------------------------------------- /api/printify/shops/...


@router.get(SHOP_PRODUCTS, response_model=ProductPage, responses=errors(422))
def list_shop_products(
    request: Request,
    shop_id: ShopId,
    q: str = "",
    category: str | None = None,
    limit: int = Query(product_rows.DEFAULT_PAGE_SIZE, ge=DB_INT_MIN, le=DB_INT_MAX),
    offset: int = Query(0, ge=DB_INT_MIN, le=DB_INT_MAX),
    archived: bool = Query(False, description="true: the archived products only (left out otherwise)"),
) -> dict[str, Any]:
    """A page of the shop's products from the catalogue cache (hidden and unpublished included),
    newest first; `q` searches title and description. {data, total, limit, offset, hasMore}."""
    with _session(request) as session:
        page = product_rows.product_page(
            session, shop_id=shop_id, query=q, category=category, limit=limit, offset=offset, archived=archived
        )
    return {
        "data": [product_rows.serialize_row(row) for row in page.rows],
        "total": page.total,
        "limit": page.limit,
        "offset": page.offset,
        "hasMore": page.has_more,
    }


@router.get(SHOP_PRODUCT, response_model=ProviderProductAnswer, responses=PROVIDER_ERRORS)
def get_shop_product(request: Request, shop_id: ShopId, product_id: str) -> JSONResponse:
    """The product as the provider has it now (costs and lock state included): {data}."""
    return _refused(
        admin_catalog.FAILED_TO_LOAD_PRODUCTS, lambda: {"data": _provider(request).get_product(shop_id, product_id)}
    )


@router.get(SHOP_PRODUCT + "/margins", response_model=MarginAnswer, responses=PROVIDER_ERRORS)
def get_shop_product_margins(request: Request, shop_id: ShopId, product_id: str) -> JSONResponse:
    """Each variant's price, provider cost and margin in cents, with the provider's current costs."""
    return _refused(
        admin_catalog.FAILED_TO_LOAD_PRODUCTS,
        lambda: {
            "data": [
                product_margins.serialize_margin(m)
                for m in product_margins.variant_margins(_provider(request), shop_id, product_id)
            ]
        },
    )


@router.post(SHOP_PRODUCTS, status_code=201, response_model=CreatedProductAnswer, responses=PROVIDER_ERRORS)
def create_shop_product(request: Request, shop_id: ShopId, payload: ProductCreate | None = Body(None)) -> JSONResponse:
    """Create a product from a design: {title, description, blueprint_id (or blueprintId),
    print_provider_id (or printProviderId), price in dollars (default 29.99), design (an image data
    URL) or designUploadId, placement, colors, sizes, sizePrices}. The design is uploaded to the
    provider once and printed on the chosen colours and sizes (variants sent by the browser are not
    trusted); 422 'Add a design to print' without one. 201 {data, designUploadId, warning, mockups, prices}."""
    form = product_forms.ProductForm.from_payload(_object(payload))

    def create() -> dict[str, Any]:
        with _session(request) as session:
            created = admin_catalog.create_designed_product(session, _provider(request), shop_id, form)
        return {
            **_row_answer(created.row),
            "designUploadId": created.upload_id,
            "warning": created.warning,
            "mockups": created.mockups,
            "prices": [
                {"size": p.size, "price": p.price_cents, "cost": p.cost_cents, "margin": p.margin_cents}
                for p in created.prices
            ],
        }

    return _refused(admin_catalog.FAILED_TO_CREATE_PRODUCT, create, status_code=201)


@router.post(SHOP_PRODUCT + "/publish", response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def publish_shop_product(
    request: Request, shop_id: ShopId, product_id: str, payload: PublishRequest | None = Body(None)
) -> JSONResponse:
    """Publish the product to the storefront (body {publish_to_storefront: true} or empty): {data}."""
    _object(payload)

    def publish() -> dict[str, Any]:
        with _session(request) as session:
            return _row_answer(admin_catalog.publish_product(session, _provider(request), shop_id, product_id))

    return _refused(admin_catalog.FAILED_TO_PUBLISH_PRODUCT, publish)


@router.post(SHOP_PRODUCT + "/unpublish", response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def unpublish_shop_product(request: Request, shop_id: ShopId, product_id: str) -> JSONResponse:
    """Take the product off the storefront: {data}."""

    def unpublish() -> dict[str, Any]:
        with _session(request) as session:
            return _row_answer(admin_catalog.unpublish_product(session, _provider(request), shop_id, product_id))

    return _refused(admin_catalog.FAILED_TO_PUBLISH_OR_UNPUBLISH, unpublish)


@router.put(SHOP_PRODUCT, response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def update_shop_product(
    request: Request, shop_id: ShopId, product_id: str, payload: ProviderProductUpdate | None = Body(None)
) -> JSONResponse:
    """Change the product at the provider, then in the cache: {tags: [...]} or {title, description,
    variants: [{id, price (cents)}]}. {data}."""
    changes = _object(payload)

    def update() -> dict[str, Any]:
        with _session(request) as session:
            return _row_answer(
                admin_catalog.update_provider_product(session, _provider(request), shop_id, product_id, changes)
            )

    return _refused(admin_catalog.FAILED_TO_UPDATE_IN_PRINTIFY, update)


@router.post("/api/printify/shops/{shop_id}/sync", response_model=ShopSync, responses=PROVIDER_ERRORS)
def sync_shop(request: Request, shop_id: ShopId) -> JSONResponse:
    """Copy every product of the shop into the catalogue cache and drop those the provider no
    longer has: {synced, removed}."""

    def sync() -> dict[str, int]:
        with _session(request) as session:
            result = catalog_sync.sync_shop(session, _provider(request), shop_id)
        return {"synced": result.synced, "removed": result.removed}

    return _refused(admin_catalog.FAILED_TO_LOAD_PRODUCTS, sync)


# --------------------------------------------------------------------------- /api/products/{id}/...


@router.put(PRODUCT + "/update", response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def update_product(request: Request, product_id: str, payload: EditorSave | None = Body(None)) -> JSONResponse:
    """The editor's Save: {title, description, price (dollars), category, shopId}; the provider gets
    only what changed (a new base price moves every variant by the same amount, keeping the
    upcharges of larger sizes), the cache the answer and the category. {data}; 409 names the
    variants a price would sell below cost until the body says confirmBelowCost: true."""
    body = _object(payload)
    shop_id = _shop_for(request, product_id, body)

    def update() -> dict[str, Any]:
        with _session(request) as session:
            row = admin_catalog.update_product(
                session,
                _provider(request),
                shop_id,
                product_id,
                title=body.get("title"),
                description=body.get("description"),
                price=body.get("price"),
                category=body.get("category"),
                below_cost_confirmed=body.get("confirmBelowCost") is True,
                actor=actor_of(request),
            )
        return _row_answer(row)

    return _refused(admin_catalog.FAILED_TO_UPDATE_PRODUCT, update)


@router.put(PRODUCT + "/category", response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def set_category(request: Request, product_id: str, payload: CategoryChange | None = Body(None)) -> JSONResponse:
    """Place the product in a collection ({category, shopId}): provider tags, then the cache. {data}."""
    body = _object(payload)
    category = product_forms.category_key(body.get("category"))
    shop_id = _shop_for(request, product_id, body)

    def place() -> dict[str, Any]:
        with _session(request) as session:
            return _row_answer(admin_catalog.set_category(session, _provider(request), shop_id, product_id, category))

    return _refused(admin_catalog.FAILED_TO_UPDATE_IN_PRINTIFY, place)


@router.put(PRODUCT + "/visibility", response_model=ProductRowAnswer, responses=errors(404, 422))
def set_visibility(request: Request, product_id: str, payload: VisibilityChange | None = Body(None)) -> dict[str, Any]:
    """Show or hide the product on the storefront ({isActive: true|false}): {data}."""
    body = _object(payload)
    with _session(request) as session:
        return _row_answer(admin_catalog.set_visibility(session, product_id, body.get("isActive")))


@router.post(PRODUCT + "/archive", response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def archive_product(request: Request, product_id: str, payload: ArchiveRequest | None = Body(None)) -> JSONResponse:
    """Archive the product ({deleteAtProvider, shopId}): out of the store and the lists, kept for
    its orders; deleted at the provider only when asked. {data}."""
    body = _object(payload)
    delete_at_provider = body.get("deleteAtProvider") is True
    shop_id = _shop_for(request, product_id, body)

    def archive() -> dict[str, Any]:
        with _session(request) as session:
            return _row_answer(
                admin_catalog.archive_product(
                    session, _provider(request), shop_id, product_id, delete_at_provider=delete_at_provider,
                    actor=actor_of(request),
                )
            )

    return _refused(admin_catalog.FAILED_TO_ARCHIVE_PRODUCT, archive)


@router.post(PRODUCT + "/restore", response_model=ProductRowAnswer, responses=errors(404))
def restore_product(request: Request, product_id: str) -> dict[str, Any]:
    """Back in the lists (still hidden from the store until shown). {data}."""
    with _session(request) as session:
        return _row_answer(admin_catalog.restore_product(session, product_id, actor=actor_of(request)))


@router.post(PRODUCT + "/sync-price", response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def sync_price(request: Request, product_id: str, payload: PriceSync | None = Body(None)) -> JSONResponse:
    """A new base price ({price (dollars), shopId}): every variant moves by the same amount, at the
    provider then in the cache. {data}; 409 as for the editor's Save (confirmBelowCost)."""
    body = _object(payload)
    product_forms.parse_price(body.get("price"))  # a bad price is refused before anything else
    shop_id = _shop_for(request, product_id, body)

    def sync() -> dict[str, Any]:
        with _session(request) as session:
            return _row_answer(
                admin_catalog.sync_price(
                    session,
                    _provider(request),
                    shop_id,
                    product_id,
                    body.get("price"),
                    below_cost_confirmed=body.get("confirmBelowCost") is True,
                    actor=actor_of(request),
                )
            )

    return _refused(admin_catalog.FAILED_TO_SYNC_PRICE_WITH_PRINTIFY, sync)


@router.post(PRODUCT + "/sync", response_model=ProductRowAnswer, responses=PROVIDER_ERRORS)
def sync_product(request: Request, product_id: str, payload: ProductSync | None = Body(None)) -> JSONResponse:
    """Copy the product from the provider into the cache again ({shopId}); `printifyData` from the
    browser is not trusted, the provider's own copy is read instead. {data}."""
    shop_id = _shop_for(request, product_id, _object(payload))

    def sync() -> dict[str, Any]:
        with _session(request) as session:
            return _row_answer(admin_catalog.refresh_product(session, _provider(request), shop_id, product_id))

    return _refused(admin_catalog.FAILED_TO_SYNC_PRODUCT_PRICE, sync)


# --------------------------------------------------------------------------- public


def _category_product(product: catalog.ProductSummary) -> dict[str, Any]:
    """The spec's 'Product in a category': id, name, description, price (dollars), imageUrl, isActive."""
    price = None if product.price_cents is None else float(cents_to_dollars(product.price_cents))
    return {
        "id": product.id,
        "name": product.name,
        "description": product.description,
        "price": price,
        "imageUrl": product.image_url,
        "isActive": product.is_active,
    }


@public_router.get("/api/products/category/{category}", response_model=CategoryProducts, responses=errors(404, 422))
def category_products(
    request: Request,
    category: str,
    limit: int = Query(CATEGORY_PAGE_SIZE, ge=1, le=product_rows.MAX_PAGE_SIZE),
    offset: int = Query(0, ge=0, le=DB_INT_MAX),
) -> dict[str, Any]:
    """The products a collection page shows (visible and published), newest first: {data, total}."""
    try:
        key = product_forms.category_key(category)
    except ValidationError:
        raise NotFoundError(product_forms.UNKNOWN_CATEGORY) from None
    with _session(request) as session:
        products = catalog.search_products(session, collection_key=key, limit=limit, offset=offset)
        total = catalog.collection_counts(session)[key]
    return {"data": [_category_product(p) for p in products], "total": total}
