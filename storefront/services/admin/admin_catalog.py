"""Every product action staff can take: at the print provider first, then in the catalogue cache.

The reads are in `product_rows.py`, the input rules in `product_forms.py` and the variant margins
in `product_margins.py`. A change goes to the print provider first and reaches the cache only
once the provider accepted it, in one transaction: an action is complete or refused with a
reason, and a refused one changes nothing locally. Provider errors (ProviderError) reach the
caller unchanged, carrying the provider's details; `printify.errors.provider_reason` words them
for a toast. The catalogue sync (`sync_shop`) lives in `catalog/sync.py`.
No database transaction is open while the provider is called.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from storefront.models import CatalogProduct, utcnow
from storefront.services.admin import base_price, product_designs
from storefront.services.admin.product_forms import (
    DESCRIPTION_NOT_TEXT,
    DESCRIPTION_TOO_SHORT,
    INVALID_PRICE,
    MIN_DESCRIPTION_CHARS,
    MIN_TITLE_CHARS,
    PRINT_PROVIDERS,
    PRODUCT_TYPES,
    SELECT_PRINT_PROVIDER,
    SELECT_PRODUCT_TYPE,
    TITLE_REQUIRED,
    TITLE_TOO_SHORT,
    ProductForm,
    category_key,
    checked_changes,
    choice,
    parse_price,
    parse_product_id,
    raise_if,
    title_errors,
)
from storefront.services.admin.product_rows import AdminProductRow, get_product_row
from storefront.services.catalog.catalog import PRODUCT_NOT_FOUND, storefront_handle
from storefront.services.catalog.sync import remove_products, upsert_product
from storefront.services.platform.errors import NotFoundError, ServiceError, ValidationError
from storefront.services.platform.money import format_usd
from storefront.services.printify.errors import ProviderError, ProviderNotFound, provider_reason
from storefront.services.printify.provider import PRODUCT_LOCKED_CODE, PUBLISH_EVERYTHING, PrintProvider
from storefront.services.staff import activity
from storefront.services.staff.activity import Actor

# --------------------------------------------------------------------------- the spec's texts

SELECT_PRODUCT_TO_PUBLISH = "Please select a product to publish"
#: Failure texts of the admin toasts (spec section 8); the API answers them as `error`.
FAILED_TO_LOAD_PRODUCTS = "Failed to load products for selected shop"
FAILED_TO_CREATE_PRODUCT = "Failed to create product"
FAILED_TO_PUBLISH_PRODUCT = "Failed to publish product"
FAILED_TO_UPDATE_PRODUCT = "Failed to update product"
FAILED_TO_UPDATE_IN_PRINTIFY = "Failed to update product in Printify"
FAILED_TO_UPDATE_CATEGORY = "Failed to update product category in database"
FAILED_TO_PUBLISH_OR_UNPUBLISH = "Failed to publish/unpublish product"
FAILED_TO_SYNC_PRICE_WITH_PRINTIFY = "Failed to sync price with Printify"
FAILED_TO_SYNC_PRODUCT_PRICE = "Failed to sync product price"

# --------------------------------------------------------------------------- our own texts

FAILED_TO_ARCHIVE_PRODUCT = "Failed to archive product"
PRODUCT_ARCHIVED = "Product Archived"
PRODUCT_RESTORED = "Product Restored"
INVALID_VISIBILITY = "Visibility must be true or false"
UNKNOWN_VARIANT = "Unknown variant"
CATALOGUE_NOT_UPDATED = (
    "The print provider saved the change, but the store's catalogue could not be updated. "
    "Sync the catalogue to catch up."
)


class CatalogueWriteError(ServiceError):
    """The provider accepted a change but the cache could not record it (a sync catches up)."""

    status_code = 500


# --------------------------------------------------------------------------- the activity log


@dataclass(frozen=True, slots=True)
class Logged:
    """The activity log's row of a staff change, added in the change's own transaction."""

    actor: Actor
    action: str
    target: str
    before: dict[str, Any] | None = None

    def add(self, session: Session, *, after: dict[str, Any], before: dict[str, Any] | None = None) -> None:
        activity.record(session, self.actor, self.action, self.target, before=before or self.before, after=after)


def _edit_summary(product: Mapping[str, Any]) -> dict[str, Any]:
    """What the log shows of a product before and after an edit: its title and base price."""
    cents = base_price.base_price((v.price_cents, v.enabled) for v in base_price.provider_variants(product))
    return {"title": product.get("title"), "price": format_usd(cents) if cents is not None else None}


def _logged(
    actor: Actor | None, action: str, product_id: object, before: dict[str, Any] | None = None
) -> Logged | None:
    return None if actor is None else Logged(actor, action, f"product {product_id}", before)


# --------------------------------------------------------------------------- writing the cache


def _store(
    session: Session,
    product: dict[str, Any],
    shop_id: int,
    *,
    category: str | None = None,
    failure: str = CATALOGUE_NOT_UPDATED,
    logged: Logged | None = None,
) -> AdminProductRow:
    """Write the provider's answer (and a staff placement) into the cache in one transaction, with
    the activity log's row of the change when `logged`."""
    try:
        row = upsert_product(session, product, shop_id)
        if category is not None:
            row.collection_key, row.collection_assigned = category, True
        if logged is not None:
            logged.add(session, after=_edit_summary(product))
        session.commit()
    except SQLAlchemyError as exc:
        session.rollback()
        raise CatalogueWriteError(failure) from exc
    return get_product_row(session, row.id)


def set_visibility(session: Session, product_id: str, active: object) -> AdminProductRow:
    """Show or hide a product on the storefront (the cache only: the provider has no such flag)."""
    if not isinstance(active, bool):
        raise ValidationError(INVALID_VISIBILITY, {"isActive": INVALID_VISIBILITY})
    return _save_locally(session, _cached_product(session, product_id), is_active=active)


def _cached_product(session: Session, product_id: str) -> CatalogProduct:
    product = session.get(CatalogProduct, parse_product_id(product_id))
    if product is None:
        raise NotFoundError(PRODUCT_NOT_FOUND)
    return product


def _save_locally(
    session: Session, product: CatalogProduct, logged: Logged | None = None, **fields: Any
) -> AdminProductRow:
    """Set fields the provider has no part in (visibility, archive) and commit (with the log's row)."""
    before = {name: getattr(product, name) for name in fields}
    for name, value in fields.items():
        setattr(product, name, value)
    session.add(product)
    if logged is not None:
        logged.add(session, before=logged.before or before, after=fields)
    session.commit()
    return get_product_row(session, product.id)


# --------------------------------------------------------------------------- provider actions


def update_product(
    session: Session,
    provider: PrintProvider,
    shop_id: int,
    product_id: str,
    *,
    title: object,
    description: object,
    price: object,
    category: object | None = None,
    below_cost_confirmed: bool = False,
    actor: Actor | None = None,
) -> AdminProductRow:
    """The editor's Save (logged as `actor`'s edit, title and price before and after): the
    provider gets only what differs from what it holds (title,
    description (None keeps it), and, when the typed price (dollars) is a new base price, every
    variant moved by the same amount); the cache gets the answer and the category (when given)."""
    errors: dict[str, str] = {}
    try:
        price_cents = parse_price(price)
    except ValidationError as exc:
        errors.update(exc.field_errors)
    if (title_error := title_errors(title, 1, TITLE_REQUIRED)) is not None:
        errors["title"] = title_error
    if description is not None and not isinstance(description, str):
        errors["description"] = DESCRIPTION_NOT_TEXT
    key: str | None = None
    if category is not None and category != "":
        try:
            key = category_key(category)
        except ValidationError as exc:
            errors.update(exc.field_errors)
    raise_if(errors)
    product_id = parse_product_id(product_id)
    current = provider.get_product(shop_id, product_id)
    changes: dict[str, Any] = {}
    if (new_title := str(title).strip()) != current.get("title"):
        changes["title"] = new_title
    if description is not None and description != current.get("description"):
        changes["description"] = description
    move = base_price.move_base(base_price.provider_variants(current), price_cents)
    if move.changed:
        changes["variants"] = base_price.confirmed(move, below_cost_confirmed).variants
    answer = provider.update_product(shop_id, product_id, changes) if changes else current
    action = activity.PRICE_EDIT if "variants" in changes else activity.PRODUCT_EDIT
    logged = _logged(actor, action, product_id, _edit_summary(current)) if changes else None
    return _store(session, answer, shop_id, category=key, logged=logged)


def set_category(
    session: Session, provider: PrintProvider, shop_id: int, product_id: str, category: object
) -> AdminProductRow:
    """Place a product in a collection: provider tags [KEY], then the cache's placement."""
    key = category_key(category)
    answer = provider.update_product(shop_id, parse_product_id(product_id), {"tags": [key.upper()]})
    return _store(session, answer, shop_id, category=key, failure=FAILED_TO_UPDATE_CATEGORY)


def sync_price(
    session: Session,
    provider: PrintProvider,
    shop_id: int,
    product_id: str,
    price: object,
    *,
    below_cost_confirmed: bool = False,
    actor: Actor | None = None,
) -> AdminProductRow:
    """A new base price (dollars as typed): every variant moved by the same amount, at the
    provider then in the cache (logged as `actor`'s price sync); the same price again sends nothing."""
    price_cents = parse_price(price)
    product_id = parse_product_id(product_id)
    current = provider.get_product(shop_id, product_id)
    move = base_price.move_base(base_price.provider_variants(current), price_cents)
    if not move.changed:
        return _store(session, current, shop_id)
    variants = base_price.confirmed(move, below_cost_confirmed).variants
    logged = _logged(actor, activity.PRICE_SYNC, product_id, _edit_summary(current))
    return _store(session, provider.update_product(shop_id, product_id, {"variants": variants}), shop_id, logged=logged)


def set_variant_prices(
    session: Session,
    provider: PrintProvider,
    shop_id: int,
    product_id: str,
    prices: Mapping[int, object],
) -> AdminProductRow:
    """The pricing editor: each listed variant (id -> dollars as typed) to its own price."""
    product_id = parse_product_id(product_id)
    errors: dict[str, str] = {}
    cents: dict[int, int] = {}
    for variant_id, price in prices.items():
        try:
            cents[variant_id] = parse_price(price)
        except ValidationError:
            errors[f"variants.{variant_id}.price"] = INVALID_PRICE
    raise_if(errors)
    if not cents:
        return get_product_row(session, product_id)
    current = provider.get_product(shop_id, product_id)
    known = {v["id"] for v in current.get("variants") or []}
    raise_if({f"variants.{vid}.id": UNKNOWN_VARIANT for vid in cents if vid not in known})
    variants = [{"id": vid, "price": price} for vid, price in cents.items()]
    answer = provider.update_product(shop_id, product_id, {"variants": variants})
    return _store(session, answer, shop_id)


def update_provider_product(
    session: Session, provider: PrintProvider, shop_id: int, product_id: str, changes: object
) -> AdminProductRow:
    """Send a provider-shaped change ({tags} or {title, description, variants} with prices in
    cents) to the provider, then its answer to the cache (placements made by staff are kept)."""
    checked = checked_changes(changes)
    answer = provider.update_product(shop_id, parse_product_id(product_id), checked)
    return _store(session, answer, shop_id)


@dataclass(frozen=True, slots=True)
class ProductPlan:
    """A create form checked and priced, before anything is uploaded or created."""

    body: dict[str, Any]
    variants: list[dict[str, Any]]
    placement: product_designs.Placement
    prices: list[product_designs.SizePrice]
    design: product_designs.Design | None
    upload_id: str | None
    resolution: product_designs.Resolution | None


@dataclass(frozen=True, slots=True)
class CreatedProduct:
    """A product created from a design: its row, the provider's upload id and mockups, any resolution warning."""

    row: AdminProductRow
    upload_id: str
    warning: str | None
    prices: list[product_designs.SizePrice]
    #: The provider's mockup of each colour (its front view), in the provider's order.
    mockups: list[str]


def _form_errors(form: ProductForm) -> tuple[dict[str, str], int | None, int | None, int]:
    errors: dict[str, str] = {}
    if (title_error := title_errors(form.title, MIN_TITLE_CHARS, TITLE_TOO_SHORT)) is not None:
        errors["title"] = title_error
    description = form.description.strip() if isinstance(form.description, str) else ""
    if len(description) < MIN_DESCRIPTION_CHARS:
        errors["description"] = DESCRIPTION_TOO_SHORT
    blueprint_id = choice(form.blueprint_id, PRODUCT_TYPES)
    if blueprint_id is None:
        errors["blueprintId"] = SELECT_PRODUCT_TYPE
    print_provider_id = choice(form.print_provider_id, PRINT_PROVIDERS)
    if print_provider_id is None:
        errors["printProviderId"] = SELECT_PRINT_PROVIDER
    price_cents = 0
    try:
        price_cents = parse_price(form.price)
    except ValidationError as exc:
        errors.update(exc.field_errors)
    return errors, blueprint_id, print_provider_id, price_cents


def _design_of(form: ProductForm) -> tuple[product_designs.Design | None, str | None]:
    """The form's artwork (checked by content) or the id of an earlier upload of it."""
    if isinstance(form.design_upload_id, str | int) and str(form.design_upload_id).strip():
        return None, str(form.design_upload_id).strip()
    data = form.design if isinstance(form.design, bytes) else product_designs.decode_data_url(form.design)
    return product_designs.read_design(data), None


def plan_product(provider: PrintProvider, form: ProductForm) -> ProductPlan:
    """Check the create form and price its sizes: every field's message at once, then the choices
    that need the catalogue (colours, sizes, the placed side, the design's print resolution)."""
    errors, blueprint_id, print_provider_id, price_cents = _form_errors(form)
    design: product_designs.Design | None = None
    upload_id: str | None = None
    placement = product_designs.Placement()
    try:
        design, upload_id = _design_of(form)
    except ValidationError as exc:
        errors.update(exc.field_errors)
    try:
        placement = product_designs.parse_placement(form.placement)
    except ValidationError as exc:
        errors.update(exc.field_errors)
    raise_if(errors)
    assert blueprint_id is not None and print_provider_id is not None
    catalogue = provider.catalog_variants(blueprint_id, print_provider_id)["variants"]
    chosen = product_designs.choose_variants(catalogue, form.colors, form.sizes)
    placeholder = product_designs.placeholder_size(chosen, placement.position)
    if placeholder is None:
        message = product_designs.NO_SUCH_SIDE.format(position=placement.position)
        raise ValidationError(message, {"placement": message})
    resolution = product_designs.check_resolution(design, placement, placeholder) if design else None
    prices = product_designs.size_prices(chosen, price_cents, form.size_prices)
    body = {
        "title": form.title.strip(),
        "description": form.description.strip() if isinstance(form.description, str) else "",
        "blueprint_id": blueprint_id,
        "print_provider_id": print_provider_id,
        "variants": product_designs.create_variants(chosen, prices),
    }
    return ProductPlan(body, chosen, placement, prices, design, upload_id, resolution)


def create_designed_product(
    session: Session, provider: PrintProvider, shop_id: int, form: ProductForm
) -> CreatedProduct:
    """Create a product from the form and its design: the design uploaded once (by its contents),
    printed where placed on the chosen colours and sizes, each size at its price; unpublished
    until published. A form without a design is refused: 'Add a design to print'."""
    plan = plan_product(provider, form)
    upload_id = plan.upload_id
    if upload_id is None:
        assert plan.design is not None
        upload_id = str(provider.upload_image(plan.design.file_name, contents=plan.design.base64())["id"])
    body = {**plan.body, "print_areas": product_designs.print_areas(plan.variants, plan.placement, upload_id)}
    created = provider.create_product(shop_id, body)
    mockups = [
        str(image["src"])
        for image in created.get("images") or []
        if image.get("src") and image.get("position", "front") == plan.placement.position
    ]
    return CreatedProduct(
        row=_store(session, created, shop_id),
        upload_id=upload_id,
        warning=plan.resolution.warning if plan.resolution else None,
        prices=plan.prices,
        mockups=mockups,
    )


def create_product(session: Session, provider: PrintProvider, shop_id: int, form: ProductForm) -> AdminProductRow:
    """create_designed_product's row."""
    return create_designed_product(session, provider, shop_id, form).row


def publish_product(session: Session, provider: PrintProvider, shop_id: int, product_id: str | None) -> AdminProductRow:
    """Publish a product to the storefront: the provider starts the publish and locks the product;
    the storefront is the sales channel, so it confirms at once (which unlocks it). A product still
    locked by a publish nobody confirmed is confirmed now."""
    if not isinstance(product_id, str) or not product_id.strip():
        raise ValidationError(SELECT_PRODUCT_TO_PUBLISH, {"productId": SELECT_PRODUCT_TO_PUBLISH})
    product_id = product_id.strip()
    try:
        provider.publish_product(shop_id, product_id, dict(PUBLISH_EVERYTHING))
    except ProviderError as exc:
        if exc.code != PRODUCT_LOCKED_CODE:
            raise
    try:
        provider.publishing_succeeded(shop_id, product_id, {"id": product_id, "handle": storefront_handle(product_id)})
    except ProviderError as exc:
        _unlock(provider, shop_id, product_id, provider_reason(exc))
        raise
    return _store(session, provider.get_product(shop_id, product_id), shop_id)


def _unlock(provider: PrintProvider, shop_id: int, product_id: str, reason: str) -> None:
    """Report a failed publish so the provider unlocks the product; the first error is the one told."""
    with contextlib.suppress(ProviderError):
        provider.publishing_failed(shop_id, product_id, reason)


def unpublish_product(session: Session, provider: PrintProvider, shop_id: int, product_id: str) -> AdminProductRow:
    """Take a product off the storefront, at the provider then in the cache."""
    product_id = parse_product_id(product_id)
    provider.unpublish_product(shop_id, product_id)
    return _store(session, provider.get_product(shop_id, product_id), shop_id)


def archive_product(
    session: Session, provider: PrintProvider, shop_id: int, product_id: str, *, delete_at_provider: bool = False,
    actor: Actor | None = None,
) -> AdminProductRow:
    """Take a product out of the store and of the back office's lists for good; its cached row
    stays for the orders that name it. The provider product is left alone unless
    `delete_at_provider` (deleted there first; one already gone there is fine)."""
    product = _cached_product(session, product_id)
    if delete_at_provider:
        with contextlib.suppress(ProviderNotFound):
            provider.delete_product(shop_id, product.id)
    if product.archived_at is not None:
        return get_product_row(session, product.id)  # archived already: what it was before is kept
    return _save_locally(
        session, product, _logged(actor, activity.ARCHIVE, product.id), is_active=False, archived_at=utcnow(),
        shown_before_archive=product.is_active,
    )


def restore_product(session: Session, product_id: str, *, actor: Actor | None = None) -> AdminProductRow:
    """Back in the back office's lists and, when it was shown before Archive, in the store again."""
    product = _cached_product(session, product_id)
    if product.archived_at is None:
        return get_product_row(session, product.id)
    shown = bool(product.shown_before_archive)
    return _save_locally(
        session, product, _logged(actor, activity.RESTORE, product.id), archived_at=None, is_active=shown,
        shown_before_archive=None,
    )


def refresh_product(session: Session, provider: PrintProvider, shop_id: int, product_id: str) -> AdminProductRow:
    """Copy one product from the provider into the cache again; one the provider no longer has
    leaves the cache (and ProviderNotFound is raised)."""
    product_id = parse_product_id(product_id)
    try:
        product = provider.get_product(shop_id, product_id)
    except ProviderNotFound:
        remove_products(session, [product_id])
        session.commit()
        raise
    return _store(session, product, shop_id)
