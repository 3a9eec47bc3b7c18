"""The HTTP API (spec section 7) and static files, mounted in front of the Reflex backend."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cached_property

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront import db, wiring
from storefront.api import events, orders, payments, search_engines, stripe_webhooks, tryon, uploads, webhooks
from storefront.api import provider as provider_routes
from storefront.api import shopify as shopify_routes
from storefront.api.admin import orders as admin_orders
from storefront.api.admin import products as admin_products
from storefront.api.admin import session as admin
from storefront.api.bodies import API_BODY_TOO_LARGE, MAX_API_BODY_BYTES
from storefront.api.database_errors import answer_database_outages
from storefront.api.errors import error_response
from storefront.api.schemas import errors
from storefront.api.security_headers import DOCS_PATH, SecurityHeaders, page_policy
from storefront.body_limit import (
    IMAGES_UPLOAD,
    MAX_PHOTO_UPLOAD_BYTES,
    MAX_UPLOAD_BYTES,
    PHOTO_UPLOAD,
    PHOTO_UPLOAD_TOO_LARGE,
    UPLOAD_TOO_LARGE,
    BodyCap,
    BodyLimit,
    UploadGate,
    UploadRule,
    upload_path,
)
from storefront.api.static import IMMUTABLE, ONE_HOUR, CachedStaticFiles
from storefront.config import PRODUCTION, Settings
from storefront.models import utcnow
from storefront.services.orders import order_lookup
from storefront.services.admin.auth import AdminAuth
from storefront.services.platform.errors import ServiceError
from storefront.services.platform.private_files import private_dir
from storefront.services.orders.order_payment import OrderPayments
from storefront.services.orders.intent_payments import IntentPayments
from storefront.services.orders.order_cancellation import OrderCancellations
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.payments.gateway import PaymentGateway, TestPaymentGateway
from storefront.services.payments.stripe_gateway import StripeGateway
from storefront.services.printify.provider import PrintProvider
from storefront.services.printify.provider_status import ProviderHealth
from storefront.services.platform.rate_limit import RateLimiter
from storefront.services.media import uploads as media_uploads
from storefront.services.shopify import throttle as shopify_throttle
from storefront.services.tryon import throttle
from storefront.services.tryon.engine import TryOnEngine

INVALID_REQUEST = "Invalid request"
TOO_MANY_REFRESHES = "Too many configuration refreshes from your address. Please wait a minute and try again."
REFRESHES_PER_MINUTE = 5
TOO_MANY_PAYMENT_REQUESTS = "Too many payment attempts from your address. Please wait a minute and try again."
#: Every API body is capped before anything reads it; the routes that take photos keep their own,
#: larger caps (and their own refusal texts), every other route has 1 MB.
BODY_CAPS = (
    BodyCap(tryon.TRY_ON, tryon.MAX_BODY_BYTES, tryon.BODY_TOO_LARGE),
    BodyCap(uploads.UPLOAD_IMAGES, uploads.MAX_BODY_BYTES, uploads.BODY_TOO_LARGE),
    BodyCap("/api/", MAX_API_BODY_BYTES, API_BODY_TOO_LARGE, prefix=True),
)


class ApiServices:
    """What the routes use; anything not injected is built from the settings on first use."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine | None = None,
        gateway: PaymentGateway | None = None,
        provider: PrintProvider | None = None,
        clock: Callable[[], datetime] = utcnow,
        tryon_engine: TryOnEngine | None = None,
    ) -> None:
        self.settings = settings
        self._engine = engine
        self._gateway = gateway
        self._provider = provider
        self._tryon_engine = tryon_engine
        #: What limits, sessions and payments read the time from (tests pin it).
        self.clock = clock

    @cached_property
    def engine(self) -> Engine:
        return self._engine or db.get_engine()

    @cached_property
    def session_factory(self) -> Callable[[], Session]:
        return wiring.session_factory(self.engine)

    @cached_property
    def gateway(self) -> PaymentGateway:
        """The gateway new orders are paid through: Stripe when STRIPE_SECRET_KEY is set."""
        return self._gateway or wiring.shared_payment_gateway(self.settings)

    @cached_property
    def test_gateway(self) -> TestPaymentGateway:
        """The built-in gateway: it takes the payments without Stripe, and refunds what it took."""
        return self.gateway if isinstance(self.gateway, TestPaymentGateway) else TestPaymentGateway()

    @cached_property
    def stripe(self) -> StripeGateway | None:
        return self.gateway if isinstance(self.gateway, StripeGateway) else None

    @cached_property
    def emails(self) -> OrderEmails:
        """The order emails, their links under this app's PUBLIC_URL."""
        return wiring.order_emails(self.settings)

    @cached_property
    def payments(self) -> OrderPayments:
        return OrderPayments(
            self.session_factory, self.test_gateway, max_declines=self.settings.payment_declines_per_order,
            clock=self.clock, emails=self.emails,
        )

    @cached_property
    def intents(self) -> IntentPayments | None:
        """Orders paid through Stripe (None with the test gateway)."""
        if self.stripe is None:
            return None
        return IntentPayments(self.session_factory, self.stripe, clock=self.clock, emails=self.emails)

    @cached_property
    def cancellations(self) -> OrderCancellations:
        """Refunds and cancellations, each through the gateway that took the payment."""
        gateways: dict[str, PaymentGateway] = {self.test_gateway.name: self.test_gateway}
        if self.stripe is not None:
            gateways[self.stripe.name] = self.stripe
        return OrderCancellations(
            self.session_factory, gateways, self.provider, lambda: self.shop_id, intents=self.intents, clock=self.clock,
            emails=self.emails,
        )

    @cached_property
    def auth(self) -> AdminAuth:
        return AdminAuth(self.session_factory, self.settings, self.clock)

    def _per_minute(self, limit: int, message: str) -> RateLimiter:
        """A limit of `limit` requests per client address and minute, refused with `message`."""
        return RateLimiter(self.session_factory, limit=limit, window_seconds=60, message=message, clock=self.clock)

    @cached_property
    def payment_limiter(self) -> RateLimiter:
        """Card checks and payments per client address and minute (card testing is done in bulk)."""
        return self._per_minute(self.settings.payment_requests_per_minute, TOO_MANY_PAYMENT_REQUESTS)

    @cached_property
    def lookup_limiter(self) -> RateLimiter:
        """Guest order lookups per client address and minute, counted apart from payments."""
        return order_lookup.lookup_limiter(self.session_factory, self.settings.payment_requests_per_minute, self.clock)

    @cached_property
    def refresh_limiter(self) -> RateLimiter:
        """Anonymous forced re-checks of the provider per client address and minute."""
        return self._per_minute(REFRESHES_PER_MINUTE, TOO_MANY_REFRESHES)

    @cached_property
    def tryon_limiter(self) -> RateLimiter:
        """Try-ons per client address and minute, counted with the try-on page's."""
        return throttle.tryon_limiter(self.session_factory, self.clock)

    @cached_property
    def upload_limiter(self) -> RateLimiter:
        """Photo-picker uploads to Reflex's /_upload per client address and minute."""
        return media_uploads.upload_limiter(self.session_factory, self.clock)

    def upload_rules(self) -> dict[str, UploadRule]:
        """The cap and count of each kind of upload to Reflex's /_upload (storefront/body_limit.py)."""
        return {
            PHOTO_UPLOAD: UploadRule(
                MAX_PHOTO_UPLOAD_BYTES, PHOTO_UPLOAD_TOO_LARGE,
                count=lambda client: self.tryon_limiter.check(throttle.tryon_key(client)),
            ),
            IMAGES_UPLOAD: UploadRule(
                MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE,
                count=lambda client: self.upload_limiter.check(media_uploads.upload_key(client)),
            ),
        }

    @cached_property
    def store_limiter(self) -> RateLimiter:
        """Store-catalogue (Shopify) requests per client address and minute."""
        return shopify_throttle.store_limiter(self.session_factory, self.clock)

    @cached_property
    def tryon_engine(self) -> TryOnEngine:
        return self._tryon_engine or wiring.shared_tryon_engine(self.settings)

    @cached_property
    def provider(self) -> PrintProvider:
        return self._provider or wiring.shared_print_provider(self.settings)

    @cached_property
    def shop_id(self) -> int:
        """The provider shop the store sells from (PRINTIFY_SHOP_ID, else asks the provider once)."""
        return wiring.print_shop_id(self.settings, self.provider)

    @cached_property
    def provider_health(self) -> ProviderHealth:
        if self._provider is None:
            return wiring.provider_health(self.settings)
        return ProviderHealth(self.settings, self._provider)


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
) -> FastAPI:
    """The FastAPI app; it never shadows Reflex's own /_event, /_upload or /ping. `pages` is the
    ASGI step that rewrites the built pages on their way out (storefront/first_view.py), innermost
    so every other step (the security headers' script hashes first) sees the page it sends.
    `upload_handlers` names the kind (PHOTO_UPLOAD, IMAGES_UPLOAD) of each Reflex upload handler;
    any other handler's upload is held to a photo's cap and count."""
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
    api.state.services = ApiServices(
        settings, engine=engine, gateway=gateway, provider=provider, clock=clock, tryon_engine=tryon_engine
    )
    if pages is not None:
        api.add_middleware(pages, settings=settings)
    # Inside the proxy-headers step, so an upload is counted by the address every limit counts.
    rules = api.state.services.upload_rules()
    api.add_middleware(
        UploadGate, path=upload_path(), rules={name: rules[kind] for name, kind in (upload_handlers or {}).items()},
        fallback=rules[PHOTO_UPLOAD],
    )
    # Behind a proxy or load balancer every request comes from it; the client's own address (what
    # the rate limits count by) is read from X-Forwarded-For, believed only from TRUSTED_PROXIES.
    # Reflex's production server (granian) does not read the header itself.
    api.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)
    # Outermost of ours: no middleware or route reads a byte of a body over its cap.
    api.add_middleware(BodyLimit, caps=BODY_CAPS)
    # Outside the cap, so its 413 carries them too (api/security_headers.py).
    api.add_middleware(SecurityHeaders, policy=page_policy(settings), production=production)
    api.add_exception_handler(ServiceError, _service_error)
    api.add_exception_handler(RequestValidationError, _request_error)
    api.add_exception_handler(StarletteHTTPException, _http_error)
    answer_database_outages(api)
    api.include_router(admin.router)
    api.include_router(admin.admin_router)
    api.include_router(admin_orders.router)
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
    private_dir(settings.data_dir)  # the database, sent mail and the signing key live there
    settings.media_dir.mkdir(parents=True, exist_ok=True)
    api.mount("/media", CachedStaticFiles(directory=settings.media_dir, cache_control=IMMUTABLE), name="media")
    api.mount("/uploads", CachedStaticFiles(directory=settings.upload_dir, cache_control=ONE_HOUR), name="uploads")
    return api
