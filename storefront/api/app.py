"""The HTTP API (spec section 7) and static files, mounted in front of the Reflex backend."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from datetime import datetime

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from storefront.api import (
    events,
    health,
    metrics,
    newsletter,
    orders,
    payments,
    provider as provider_routes,
    search_engines,
    shopify as shopify_routes,
    stripe_webhooks,
    tryon,
    uploads,
    webhooks,
)
from storefront.api.admin import (
    activity as admin_activity,
    customers as admin_customers,
    discounts as admin_discounts,
    orders as admin_orders,
    products as admin_products,
    session as admin,
    staff,
)
from storefront.api.admin.session import ADMIN_TOKEN_HEADER
from storefront.api.bodies import API_BODY_TOO_LARGE, MAX_API_BODY_BYTES
from storefront.api.body_limit import (
    MAX_PHOTO_UPLOAD_BYTES,
    MAX_UPLOAD_BYTES,
    PHOTO_UPLOAD_TOO_LARGE,
    UPLOAD_TOO_LARGE,
    BodyCap,
    BodyLimit,
    SignedInCheck,
    UploadGate,
    UploadRule,
    upload_path,
)
from storefront.api.database_errors import answer_database_outages
from storefront.api.errors import error_response
from storefront.api.schemas import errors
from storefront.api.security_headers import DOCS_PATH, SecurityHeaders, page_policy
from storefront.api.static import IMMUTABLE, ONE_HOUR, CachedStaticFiles
from storefront.config import PRODUCTION, Settings
from storefront.container import Services
from storefront.models import utcnow
from storefront.services.media import uploads as media_uploads
from storefront.services.media.uploads import IMAGES_UPLOAD, PHOTO_UPLOAD
from storefront.services.payments.gateway import PaymentGateway
from storefront.services.platform.errors import ServiceError
from storefront.services.platform.private_files import private_dir
from storefront.services.printify.provider import PrintProvider
from storefront.services.tryon import throttle
from storefront.services.tryon.engine import TryOnEngine

INVALID_REQUEST = "Invalid request"
#: Every API body is capped before anything reads it; the routes that take photos keep their own,
#: larger caps (and their own refusal texts), every other route has 1 MB.
BODY_CAPS = (
    BodyCap(tryon.TRY_ON, tryon.MAX_BODY_BYTES, tryon.BODY_TOO_LARGE),
    BodyCap(uploads.UPLOAD_IMAGES, uploads.MAX_BODY_BYTES, uploads.BODY_TOO_LARGE),
    # A create carries its design: the largest image as a data URL (the route is an admin one).
    BodyCap(admin_products.CREATE_PATTERN, admin_products.MAX_CREATE_BYTES, admin_products.CREATE_TOO_LARGE,
            pattern=True, signed_in_only=True),
    BodyCap("/api/", MAX_API_BODY_BYTES, API_BODY_TOO_LARGE, prefix=True),
)


def upload_rules(services: Services) -> dict[str, UploadRule]:
    """The cap and count of each kind of upload to Reflex's /_upload (storefront/api/body_limit.py)."""
    return {
        PHOTO_UPLOAD: UploadRule(
            MAX_PHOTO_UPLOAD_BYTES, PHOTO_UPLOAD_TOO_LARGE,
            count=lambda client: services.tryon_limiter.check(throttle.tryon_key(client)),
        ),
        IMAGES_UPLOAD: UploadRule(
            MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE,
            count=lambda client: services.upload_limiter.check(media_uploads.upload_key(client)),
        ),
    }


def signed_in_check(services: Services) -> SignedInCheck:
    """Whether a request's x-admin-token opens an admin session (checked off the event loop)."""
    header = ADMIN_TOKEN_HEADER.encode()

    async def signed_in(scope: Scope) -> bool:
        token = next((value for name, value in scope.get("headers", ()) if name == header), None)
        if token is None:
            return False
        try:
            await asyncio.to_thread(services.auth.verify, token.decode("latin-1"))
        except ServiceError:
            return False
        return True

    return signed_in


async def _service_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    return error_response(exc)


async def _request_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    # FastAPI's own errors (unparsable JSON); never echo the input, it may hold card data.
    details = {".".join(str(part) for part in error["loc"]): error["msg"] for error in exc.errors()}
    return JSONResponse({"error": INVALID_REQUEST, "details": details}, status_code=422)


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    """Starlette's and FastAPI's own refusals (a body that cannot be decoded, an unknown path or
    method) in the API's shape: {"error": their text, "details": null}, with their status."""
    assert isinstance(exc, StarletteHTTPException)
    return JSONResponse(
        {"error": str(exc.detail), "details": None}, status_code=exc.status_code, headers=exc.headers
    )


def create_api(
    settings: Settings,
    *,
    engine: Engine | None = None,
    gateway: PaymentGateway | None = None,
    provider: PrintProvider | None = None,
    clock: Callable[[], datetime] = utcnow,
    tryon_engine: TryOnEngine | None = None,
    pages: type | None = None,
    upload_handlers: Mapping[str, str] | None = None,
    services: Services | None = None,
) -> FastAPI:
    """The FastAPI app; it never shadows Reflex's own /_event, /_upload or /ping. `pages` is the
    ASGI step that rewrites the built pages on their way out (storefront/web/first_view.py), innermost
    so every other step (the security headers' script hashes first) sees the page it sends.
    `upload_handlers` names the kind (PHOTO_UPLOAD, IMAGES_UPLOAD) of each Reflex upload handler;
    any other handler's upload is held to a photo's cap and count. `services` are what the routes
    use (the store passes the process's own, `wiring.services()`, which its pages use too); without
    them the API builds its own from `settings` and the engine, gateway, provider, clock and try-on
    engine given."""
    production = settings.store_env == PRODUCTION
    api = FastAPI(
        title="Storefront API",
        # Swagger UI comes from a CDN with no integrity hash: never on the origin of a live admin.
        docs_url=None if production else DOCS_PATH,
        openapi_url="/api/openapi.json",
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None if production else f"{DOCS_PATH}/oauth2-redirect",
        # A body or parameter that does not fit the route: {"error": "Invalid request", "details"};
        # the database out of reach: 503, the request's work rolled back whole.
        responses=errors(
            400, 413, 422, 503,
            d400="A body that cannot be read (not UTF-8 JSON)",
            d413="The body is over the route's cap (1 MB, more for photos); refused before it is read",
            d503="The database could not be reached: nothing was saved, try again (Retry-After)",
        ),
    )
    if services is None:
        services = Services(
            settings, engine=engine, gateway=gateway, provider=provider, clock=clock, tryon_engine=tryon_engine
        )
    api.state.services = services
    if pages is not None:
        api.add_middleware(pages, settings=settings, services=services)
    # Inside the proxy-headers step, so an upload is counted by the address every limit counts.
    rules = upload_rules(services)
    api.add_middleware(
        UploadGate, path=upload_path(), rules={name: rules[kind] for name, kind in (upload_handlers or {}).items()},
        fallback=rules[PHOTO_UPLOAD],
    )
    # Behind a proxy or load balancer every request comes from it; the client's own address (what
    # the rate limits count by) is read from X-Forwarded-For, believed only from TRUSTED_PROXIES.
    # Reflex's production server (granian) does not read the header itself.
    api.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    # Outermost of ours: no middleware or route reads a byte of a body over its cap.
    api.add_middleware(BodyLimit, caps=BODY_CAPS, signed_in=signed_in_check(services))
    # Outside the cap, so its 413 carries them too (api/security_headers.py).
    api.add_middleware(SecurityHeaders, policy=page_policy(settings), production=production)
    api.add_exception_handler(ServiceError, _service_error)
    api.add_exception_handler(RequestValidationError, _request_error)
    api.add_exception_handler(StarletteHTTPException, _http_error)
    answer_database_outages(api)
    api.include_router(admin.router)
    api.include_router(admin.admin_router)
    api.include_router(staff.router)
    api.include_router(staff.public_router)
    api.include_router(admin_activity.router)
    api.include_router(admin_customers.router)
    api.include_router(admin_orders.router)
    api.include_router(admin_discounts.router)
    api.include_router(admin_products.router)
    api.include_router(admin_products.public_router)
    api.include_router(events.router)
    api.include_router(events.public_router)
    api.include_router(uploads.router)
    api.include_router(orders.router)
    api.include_router(payments.router)
    api.include_router(provider_routes.router)
    api.include_router(shopify_routes.router)
    api.include_router(tryon.router)
    api.include_router(webhooks.router)
    api.include_router(stripe_webhooks.router)
    api.include_router(search_engines.router)
    api.include_router(health.router)
    api.include_router(metrics.router)
    api.include_router(newsletter.router)
    private_dir(settings.data_dir)  # the database, sent mail and the signing key live there
    settings.media_dir.mkdir(parents=True, exist_ok=True)
    api.mount("/media", CachedStaticFiles(directory=settings.media_dir, cache_control=IMMUTABLE), name="media")
    api.mount("/uploads", CachedStaticFiles(directory=settings.upload_dir, cache_control=ONE_HOUR), name="uploads")
    return api
