"""A fake Stripe on loopback (PaymentIntents, charges, refunds, events, signed webhooks, a Stripe.js
stand-in) per ../shared/contracts/stripe.md."""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import heapq
import hmac
import itertools
import json
import re
import secrets
import string
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, NoReturn, Self
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from tests.fakes.loopback import LoopbackHTTPServer, LoopbackServer

#: The version stripe 16.1.0 pins (contract §0); events are rendered in it unless `api_version` is changed.
API_VERSION = "2026-10-28.endive"
SECRET_KEY = "sk_test_fake"
PUBLISHABLE_KEY = "pk_test_fake"
WEBHOOK_SECRET = "whsec_fake"
DEFAULT_PORT = 12111
JS_PATH = "/v3/stripe.js"
#: Fake-only controls (not Stripe's API) the Stripe.js stand-in calls with the publishable key.
CONFIRM_PATH = "/_fake/confirm"
AUTHENTICATE_PATH = "/_fake/authenticate"
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
WEBHOOK_USER_AGENT = "Stripe/1.0 (+https://stripe.com/docs/webhooks)"
CANCELLATION_REASONS = ("duplicate", "fraudulent", "requested_by_customer", "abandoned")
REFUND_REASONS = ("duplicate", "fraudulent", "requested_by_customer")
CANCELABLE = ("requires_payment_method", "requires_confirmation", "requires_action", "requires_capture", "processing")
CONFIRMABLE = ("requires_payment_method", "requires_confirmation", "requires_action")
#: Fields a publishable-key (Stripe.js) read of a PaymentIntent does not show (contract §2).
PUBLISHABLE_HIDDEN = ("metadata", "customer", "latest_charge")

_ALPHANUM = string.ascii_letters + string.digits
_JS_ROUTE = re.compile(r"^/(?:v3/?|[a-z0-9]+/stripe\.js)$")
_KEY_PATTERN = re.compile(r"^([^\[\]]+)((?:\[[^\[\]]*\])*)$")
_CARD_FIELDS = frozenset({"number", "cvc", "exp_month", "exp_year", "expiry"})
_LIKE_A_CARD_NUMBER = re.compile(r"^[\d \-]{12,23}$")
_DECLINED = "Your card was declined."
_LIVE_CARD = ("Your card was declined. Your request was in test mode, but used a non test (live) card. "
              "For a list of valid test cards, visit: https://stripe.com/docs/testing.")


# ---------------------------------------------------------------------------------------- test cards


@dataclass(frozen=True)
class CardScenario:
    """A test card of contract §6: its number, its `pm_card_*` shortcut and what paying with it does."""

    number: str
    payment_method: str
    brand: str
    outcome: str = "succeeded"  # "succeeded", "declined" or "authenticate" (3-D Secure first)
    code: str | None = None
    decline_code: str | None = None
    message: str | None = None
    param: str | None = None
    #: After a completed 3-D Secure challenge the payment is still declined (code/decline_code/message).
    decline_after_authentication: bool = False
    #: Refunds start "succeeded" and fail right after (expired_or_canceled_card).
    refund_fails: bool = False

    @property
    def last4(self) -> str:
        return self.number[-4:]


CARDS: tuple[CardScenario, ...] = (
    CardScenario("4242424242424242", "pm_card_visa", "visa"),
    CardScenario("5555555555554444", "pm_card_mastercard", "mastercard"),
    CardScenario("4000000000000077", "pm_card_bypassPending", "visa"),
    CardScenario("4000000000005126", "pm_card_refundFail", "visa", refund_fails=True),
    CardScenario("4000000000000002", "pm_card_visa_chargeDeclined", "visa", "declined",
                 "card_declined", "generic_decline", _DECLINED),
    CardScenario("4000000000009995", "pm_card_visa_chargeDeclinedInsufficientFunds", "visa", "declined",
                 "card_declined", "insufficient_funds", "Your card has insufficient funds."),
    CardScenario("4000000000009987", "pm_card_visa_chargeDeclinedLostCard", "visa", "declined",
                 "card_declined", "lost_card", _DECLINED),
    CardScenario("4000000000009979", "pm_card_visa_chargeDeclinedStolenCard", "visa", "declined",
                 "card_declined", "stolen_card", _DECLINED),
    CardScenario("4000000000000069", "pm_card_chargeDeclinedExpiredCard", "visa", "declined",
                 "expired_card", "expired_card", "Your card has expired.", param="exp_month"),
    CardScenario("4000000000000127", "pm_card_chargeDeclinedIncorrectCvc", "visa", "declined",
                 "incorrect_cvc", "incorrect_cvc", "Your card's security code is incorrect.", param="cvc"),
    CardScenario("4000000000000119", "pm_card_chargeDeclinedProcessingError", "visa", "declined",
                 "processing_error", "processing_error",
                 "An error occurred while processing your card. Try again in a little bit."),
    CardScenario("4100000000000019", "pm_card_chargeDeclinedFraudulent", "visa", "declined",
                 "card_declined", "fraudulent", _DECLINED),
    CardScenario("4000002760003184", "pm_card_authenticationRequired", "visa", "authenticate"),
    CardScenario("4000000000003220", "pm_card_threeDSecure2Required", "visa", "authenticate"),
    CardScenario("4000002500003155", "pm_card_authenticationRequiredOnSetup", "visa", "authenticate"),
    CardScenario("4000008260003178", "pm_card_authenticationRequiredChargeDeclinedInsufficientFunds", "visa",
                 "authenticate", "card_declined", "insufficient_funds", "Your card has insufficient funds.",
                 decline_after_authentication=True),
)
CARDS_BY_NUMBER = {card.number: card for card in CARDS}
CARDS_BY_PAYMENT_METHOD = {card.payment_method: card for card in CARDS}


def card_for_number(number: str) -> CardScenario:
    """The scenario of a typed card number; any other number is a live card, declined in test mode."""
    digits = re.sub(r"[\s-]", "", number)
    known = CARDS_BY_NUMBER.get(digits)
    if known is not None:
        return known
    brand = {"4": "visa", "5": "mastercard", "3": "amex", "6": "discover"}.get(digits[:1], "unknown")
    return CardScenario(digits, "", brand, "declined", "card_declined", "live_mode_test_card", _LIVE_CARD)


# ---------------------------------------------------------------------------------------- wire helpers


def compute_signature(body: bytes, secret: str, timestamp: int) -> str:
    """Hex HMAC-SHA256 of "{timestamp}.{body}" keyed by the whole whsec_ string (contract §4)."""
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(body: bytes, secret: str, timestamp: int) -> str:
    """A `Stripe-Signature` value with only the v1 scheme: "t=<timestamp>,v1=<hex>"."""
    return f"t={timestamp},v1={compute_signature(body, secret, timestamp)}"


def decode_form(text: str) -> dict[str, Any]:
    """Stripe's form encoding: `a[b]=` nests a hash, `a[0]=`/`a[]=` build a list; values stay strings."""
    root: dict[str, Any] = {}
    for key, value in parse_qsl(text, keep_blank_values=True):
        match = _KEY_PATTERN.match(key)
        if match is None:
            raise _invalid(f"Invalid parameter name: {key}", code="parameter_unknown", param=key)
        parts = [match.group(1)] + re.findall(r"\[([^\[\]]*)\]", match.group(2))
        node = root
        for i, part in enumerate(parts):
            if part == "":
                part = str(sum(1 for k in node if k.isdigit()))
            if i == len(parts) - 1:
                node[part] = value
                continue
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise _invalid(f"Invalid hash: {'['.join(parts[: i + 1])}", code="parameter_invalid_string", param=key)
            node = child
    return _listify(root)


def _listify(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    items = {k: _listify(v) for k, v in node.items()}
    if items and all(k.isdigit() for k in items) and sorted(map(int, items)) == list(range(len(items))):
        return [items[k] for k in sorted(items, key=int)]
    return items


def _redact(value: Any, name: str = "") -> Any:
    """A copy of request params with anything that looks like card data replaced."""
    if isinstance(value, dict):
        return {k: _redact(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v, name) for v in value]
    if name in _CARD_FIELDS or (isinstance(value, str) and _LIKE_A_CARD_NUMBER.match(value)):
        return "[redacted]"
    return value


def _new_id(prefix: str, length: int = 24) -> str:
    return f"{prefix}_{''.join(secrets.choice(_ALPHANUM) for _ in range(length))}"


def _mask_key(key: str) -> str:
    return f"{key[:8]}{'*' * max(len(key) - 12, 4)}{key[-4:]}" if len(key) > 12 else "*" * len(key)


# ---------------------------------------------------------------------------------------- errors


class StripeApiError(Exception):
    """An API error answer; `stored` when the request had executed (idempotency replays it)."""

    def __init__(self, status: int, error: dict[str, Any], *, stored: bool = False) -> None:
        super().__init__(error.get("message"))
        self.status = status
        self.error = error
        self.stored = stored

    @property
    def body(self) -> dict[str, Any]:
        return {"error": self.error}


def _error(type_: str, message: str, *, code: str | None = None, param: str | None = None,
           **extra: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"type": type_, "message": message}
    if code:
        error["code"] = code
        error["doc_url"] = f"https://stripe.com/docs/error-codes/{code.replace('_', '-')}"
    if param:
        error["param"] = param
    error.update(extra)
    return error


def _invalid(message: str, *, code: str | None = None, param: str | None = None, status: int = 400) -> StripeApiError:
    return StripeApiError(status, _error("invalid_request_error", message, code=code, param=param))


def _unexpected_state(message: str) -> StripeApiError:
    return _invalid(message, code="payment_intent_unexpected_state")


def _no_such(kind: str, object_id: str, param: str, *, status: int = 404) -> StripeApiError:
    return _invalid(f"No such {kind}: '{object_id}'", code="resource_missing", param=param, status=status)


def _unrecognized(method: str, path: str) -> StripeApiError:
    return _invalid(f"Unrecognized request URL ({method}: {path}). Please see https://stripe.com/docs "
                    "or we can help at https://support.stripe.com/.", status=404)


# ---------------------------------------------------------------------------------------- params


def _allow(params: dict[str, Any], allowed: frozenset[str]) -> None:
    for name in params:
        if name not in allowed and name != "expand":
            raise _invalid(f"Received unknown parameter: {name}", code="parameter_unknown", param=name)


def _str(params: dict[str, Any], name: str, *, required: bool = False) -> str | None:
    value = params.get(name)
    if value is None or value == "":
        if required:
            raise _invalid(f"Missing required param: {name}.", code="parameter_missing", param=name)
        return None
    if not isinstance(value, str):
        raise _invalid(f"Invalid string: {value!r}", code="parameter_invalid_string", param=name)
    return value


def _int(params: dict[str, Any], name: str, *, required: bool = False) -> int | None:
    value = _str(params, name, required=required)
    if value is None:
        return None
    if not re.fullmatch(r"-?\d+", value):
        raise _invalid(f"Invalid integer: {value}", code="parameter_invalid_integer", param=name)
    return int(value)


def _bool(params: dict[str, Any], name: str) -> bool | None:
    value = _str(params, name)
    if value is None:
        return None
    if value not in ("true", "false"):
        raise _invalid(f"Invalid boolean: {value}", code="parameter_invalid_boolean", param=name)
    return value == "true"


def _enum(params: dict[str, Any], name: str, choices: tuple[str, ...]) -> str | None:
    value = _str(params, name)
    if value is not None and value not in choices:
        raise _invalid(f"Invalid {name}: must be one of {', '.join(choices[:-1])}, or {choices[-1]}",
                       code="parameter_invalid_string", param=name)
    return value


def _metadata(params: dict[str, Any], current: dict[str, str] | None = None) -> dict[str, str]:
    """Merge `metadata[...]` into `current`: an empty value unsets a key, `metadata=` clears all."""
    result = dict(current or {})
    raw = params.get("metadata")
    if raw is None:
        return result
    if raw == "":
        return {}
    if isinstance(raw, list):  # decode_form reads metadata[0]=... as a list
        raw = {str(i): v for i, v in enumerate(raw)}
    if not isinstance(raw, dict):
        raise _invalid("Invalid hash", code="parameter_invalid_string", param="metadata")
    for key, value in raw.items():
        if not isinstance(value, str):
            raise _invalid(f"Invalid value for metadata[{key}]: nested hashes are not supported",
                           code="parameter_invalid_string", param=f"metadata[{key}]")
        if len(key) > 40:
            raise _invalid("Metadata keys can have up to 40 characters.", param=f"metadata[{key}]")
        if len(value) > 500:
            raise _invalid("Metadata values can have up to 500 characters.", param=f"metadata[{key}]")
        if value == "":
            result.pop(key, None)
        else:
            result[key] = value
    if len(result) > 50:
        raise _invalid("Metadata can have up to 50 keys.", param="metadata")
    return result


def _expand_paths(params: dict[str, Any]) -> list[str]:
    raw = params.get("expand")
    if raw is None or raw == "":
        return []
    paths = raw if isinstance(raw, list) else [raw]
    if not all(isinstance(p, str) for p in paths):
        raise _invalid("Invalid array", code="parameter_invalid_string", param="expand")
    return paths


def _page(items: list[dict[str, Any]], params: dict[str, Any], url: str) -> dict[str, Any]:
    """One page of a newest-first list (contract §1c)."""
    limit = _int(params, "limit")
    limit = 10 if limit is None else limit
    if limit < 1:
        raise _invalid(
            "This value must be greater than or equal to 1.", code="parameter_invalid_integer", param="limit"
        )
    if limit > 100:
        raise _invalid("This value must be less than or equal to 100.", code="parameter_invalid_integer", param="limit")
    ids = [item["id"] for item in items]
    after, before = _str(params, "starting_after"), _str(params, "ending_before")
    for name, cursor in (("starting_after", after), ("ending_before", before)):
        if cursor is not None and cursor not in ids:
            raise _no_such("object", cursor, name, status=400)
    if after is not None:
        rest = items[ids.index(after) + 1:]
        data, has_more = rest[:limit], len(rest) > limit
    elif before is not None:
        rest = items[: ids.index(before)]
        data, has_more = rest[-limit:], len(rest) > limit
    else:
        data, has_more = items[:limit], len(items) > limit
    return {"object": "list", "data": data, "has_more": has_more, "url": url}


def _created_filter(params: dict[str, Any], items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    raw = params.get("created")
    if raw is None:
        return items
    if isinstance(raw, str):
        value = _int(params, "created")
        return [i for i in items if i["created"] == value]
    if not isinstance(raw, dict):
        raise _invalid("Invalid hash", param="created")
    bounds = {op: _int(raw, op) for op in ("gt", "gte", "lt", "lte") if op in raw}
    tests: dict[str, Callable[[int, int], bool]] = {
        "gt": lambda a, b: a > b, "gte": lambda a, b: a >= b, "lt": lambda a, b: a < b, "lte": lambda a, b: a <= b,
    }
    return [
        i for i in items if all(tests[op](i["created"], bound) for op, bound in bounds.items() if bound is not None)
    ]


# ---------------------------------------------------------------------------------------- records


@dataclass
class RecordedRequest:
    """One request the fake received; `params` has card-like values redacted."""

    method: str
    path: str
    idempotency_key: str | None
    params: dict[str, Any]
    request_id: str
    #: "secret", "publishable" or None (no or a wrong key).
    key_kind: str | None = None
    status: int = 0
    replayed: bool = False
    dropped: bool = False


@dataclass(frozen=True)
class Delivery:
    """One webhook POST and what the endpoint answered (`status` 0: no HTTP answer at all)."""

    event_id: str
    type: str
    status: int
    attempt: int
    automatic: bool
    url: str
    error: str | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@dataclass
class Fault:
    """An injected misbehaviour for the next `times` matching requests.

    kind "status": answer `status` without executing; "drop": execute (and store for idempotency),
    then close the connection without an answer; "hold": mark the idempotency key in flight and
    wait for `gate` before executing (a concurrent request with that key then gets 409)."""

    kind: str
    status: int = 500
    path_part: str | None = None
    method: str | None = None
    times: int = 1
    should_retry: bool | None = None
    #: For "hold": set by release(); `reached` is set once the held request waits on it.
    gate: threading.Event = field(default_factory=threading.Event)
    reached: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.gate.set()

    def matches(self, method: str, path: str) -> bool:
        if self.method is not None and self.method != method:
            return False
        # Without a path the fault is for the API only, not the Stripe.js stand-in's controls.
        return path.startswith("/v1/") if self.path_part is None else self.path_part in path


@dataclass
class _Stored:
    signature: tuple[str, str, Any]
    status: int
    body: dict[str, Any]
    at: float


@dataclass
class _Call:
    """One executing request: what the handlers see, and the events and follow-ups it produced."""

    route: str
    ids: dict[str, str]
    params: dict[str, Any]
    publishable: bool
    request_id: str | None
    idempotency_key: str | None
    events: list[str] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)


@dataclass
class _Exchange:
    status: int
    body: Any
    headers: dict[str, str]
    drop: bool = False
    call: _Call | None = None
    raw: bytes | None = None


_Route = tuple[str, re.Pattern[str], str, bool]
_ID = r"(?P<id>[A-Za-z0-9_]+)"
_ROUTES: list[_Route] = [
    (method, re.compile(rf"^{pattern}$"), name, publishable)
    for method, pattern, name, publishable in (
        ("POST", "/v1/payment_intents", "create_intent", False),
        ("GET", "/v1/payment_intents", "list_intents", False),
        ("GET", f"/v1/payment_intents/{_ID}", "retrieve_intent", True),
        ("POST", f"/v1/payment_intents/{_ID}", "update_intent", False),
        ("POST", f"/v1/payment_intents/{_ID}/confirm", "confirm_intent", True),
        ("POST", f"/v1/payment_intents/{_ID}/capture", "capture_intent", False),
        ("POST", f"/v1/payment_intents/{_ID}/cancel", "cancel_intent", False),
        ("GET", "/v1/charges", "list_charges", False),
        ("GET", f"/v1/charges/{_ID}", "retrieve_charge", False),
        ("GET", f"/v1/payment_methods/{_ID}", "retrieve_payment_method", False),
        ("POST", "/v1/refunds", "create_refund", False),
        ("GET", "/v1/refunds", "list_refunds", False),
        ("GET", f"/v1/refunds/{_ID}", "retrieve_refund", False),
        ("POST", f"/v1/refunds/{_ID}", "update_refund", False),
        ("GET", "/v1/events", "list_events", False),
        ("GET", f"/v1/events/{_ID}", "retrieve_event", False),
        ("POST", CONFIRM_PATH, "fake_confirm", True),
        ("POST", AUTHENTICATE_PATH, "fake_authenticate", True),
    )
]

_INTENT_CREATE = frozenset({
    "amount", "currency", "automatic_payment_methods", "payment_method_types", "metadata", "description",
    "receipt_email", "statement_descriptor", "statement_descriptor_suffix", "customer", "capture_method",
    "confirm", "payment_method", "return_url", "off_session", "setup_future_usage", "shipping",
    "confirmation_method", "payment_method_options",
})
_INTENT_UPDATE = frozenset({
    "amount", "currency", "metadata", "description", "receipt_email", "payment_method", "payment_method_types",
    "statement_descriptor", "statement_descriptor_suffix", "shipping", "setup_future_usage", "capture_method",
    "customer", "payment_method_options",
})
#: Fields that still move money: changing them on a finished intent is refused.
_INTENT_MONEY_FIELDS = frozenset({"amount", "currency", "payment_method", "payment_method_types", "capture_method",
                                  "customer", "setup_future_usage", "payment_method_options"})
_INTENT_CONFIRM = frozenset({
    "payment_method", "return_url", "off_session", "receipt_email", "setup_future_usage", "shipping",
    "payment_method_options", "error_on_requires_action", "mandate_data", "use_stripe_sdk", "capture_method",
    "client_secret",
})
_LIST = frozenset({"limit", "starting_after", "ending_before", "created"})


# ---------------------------------------------------------------------------------------- the fake


class FakeStripe(LoopbackServer):
    """Stripe's PaymentIntents, Charges, Refunds and Events over real HTTP, with webhooks and faults.

        with FakeStripe() as fake:
            client = stripe.StripeClient(fake.secret_key, base_addresses={"api": fake.api_base},
                                         max_network_retries=2)
    """

    def __init__(self, *, secret_key: str = SECRET_KEY, publishable_key: str = PUBLISHABLE_KEY,
                 webhook_secret: str = WEBHOOK_SECRET, webhook_url: str | None = None,
                 api_version: str = API_VERSION, clock: Callable[[], float] = time.time) -> None:
        self.secret_key = secret_key
        self.publishable_key = publishable_key
        self.webhook_secret = webhook_secret
        #: Where new events are POSTed (None: stored only).
        self.webhook_url = webhook_url
        self.api_version = api_version
        #: Unix seconds; `created`, webhook timestamps and idempotency expiry follow it.
        self.clock = clock
        self.lock = threading.RLock()
        #: POST each new event to `webhook_url` in the background; off: only `deliver()` sends.
        self.auto_deliver = True
        #: Automatic deliveries answered non-2xx (or not at all) are retried this often, after
        #: `webhook_retry_delay` seconds, doubling each time.
        self.webhook_retries = 3
        self.webhook_retry_delay = 0.5
        self.webhook_timeout = 10.0
        #: Called with every Delivery (the CLI prints them).
        self.on_delivery: Callable[[Delivery], None] | None = None
        #: The smallest amount a PaymentIntent accepts (Stripe's is about 50 cents).
        self.min_amount = 50
        self.intents: dict[str, dict[str, Any]] = {}
        self.charges: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.payment_methods: dict[str, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.requests: list[RecordedRequest] = []
        self.deliveries: list[Delivery] = []
        self.faults: list[Fault] = []
        #: Routes that actually ran (not replays, not faults), by name, e.g. executions["create_intent"].
        self.executions: Counter[str] = Counter()
        self.created_intents: list[str] = []
        self.created_refunds: list[str] = []
        self._cards: dict[str, CardScenario] = {}
        self._events_by_id: dict[str, dict[str, Any]] = {}
        self._delivered_ok: dict[str, bool] = {}
        self._idempotency: dict[str, _Stored] = {}
        self._in_flight: set[str] = set()
        self._changed = threading.Condition(self.lock)
        self._queue: list[tuple[float, int, str, int]] = []
        self._queue_cv = threading.Condition()
        self._sequence = itertools.count()
        self._busy = 0
        self._stopping = False
        self._worker: threading.Thread | None = None

    # ------------------------------------------------------------------ serving

    def start(self, port: int = 0) -> Self:
        """Serve on `port` (0: a free one) and start the webhook sender."""
        self.serve(_Handler, port, "fake-stripe")
        self._stopping = False
        self._worker = threading.Thread(target=self._deliver_loop, name="fake-stripe-webhooks", daemon=True)
        self._worker.start()
        return self

    def stop(self) -> None:
        with self._queue_cv:
            self._stopping = True
            self._queue_cv.notify_all()
        if self._worker is not None:
            self._worker.join(timeout=self.webhook_timeout + 1)
            self._worker = None
        super().stop()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def js_url(self) -> str:
        return f"{self.api_base}{JS_PATH}"

    def env(self) -> dict[str, str]:
        """The store's settings to run against this fake."""
        return {
            "STRIPE_SECRET_KEY": self.secret_key,
            "STRIPE_PUBLISHABLE_KEY": self.publishable_key,
            "STRIPE_WEBHOOK_SECRET": self.webhook_secret,
            "STRIPE_API_BASE": self.api_base,
            "STRIPE_JS_URL": self.js_url,
        }

    def sdk_client(self, **kwargs: Any) -> Any:
        """A `stripe.StripeClient` on this fake (max_network_retries=2 unless given)."""
        import stripe  # only tests that use the SDK need it

        kwargs.setdefault("max_network_retries", 2)
        return stripe.StripeClient(self.secret_key, base_addresses={"api": self.api_base}, **kwargs)

    # ------------------------------------------------------------------ faults

    def fail_next(self, status: int = 500, times: int = 1, path_part: str | None = None,
                  should_retry: bool | None = None, *, method: str | None = None) -> Fault:
        """Answer the next `times` matching API requests with `status` without executing them
        (429: code rate_limit; 409: lock_timeout; 5xx: api_error). `should_retry` sets the
        `Stripe-Should-Retry` header the SDK obeys first."""
        return self._inject(Fault("status", status, path_part, method, times, should_retry))

    def drop_next_response(self, path_part: str | None = None, times: int = 1, *,
                           method: str | None = None) -> Fault:
        """Execute the next matching requests (storing them for idempotency), then close the
        connection without answering: the client cannot know it worked."""
        return self._inject(Fault("drop", 0, path_part, method, times))

    def hold_next(self, path_part: str | None = None, *, method: str | None = None) -> Fault:
        """Hold the next matching request before it executes until `fault.release()`; `fault.reached`
        is set once it waits (its idempotency key is in flight meanwhile: the same key gets 409)."""
        return self._inject(Fault("hold", 0, path_part, method, 1))

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    def _inject(self, fault: Fault) -> Fault:
        with self.lock:
            self.faults.append(fault)
        return fault

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.matches(method, path):
                    fault.times -= 1
                    if fault.times <= 0:
                        self.faults.remove(fault)
                    return fault
        return None

    # ------------------------------------------------------------------ inspection

    def requests_to(self, method: str, path_part: str) -> list[RecordedRequest]:
        with self.lock:
            return [r for r in self.requests if r.method == method and path_part in r.path]

    def intent(self, intent_id: str) -> dict[str, Any]:
        """A copy of a stored PaymentIntent."""
        with self.lock:
            return copy.deepcopy(self.intents[intent_id])

    def event(self, event_id: str) -> dict[str, Any]:
        with self.lock:
            return copy.deepcopy(self._events_by_id[event_id])

    def wait_for_event(self, type_: str, count: int = 1, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Wait until at least `count` events of `type_` exist (e.g. made by a follow-up); copies of them."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.events_of(type_)) >= count, timeout):
                raise TimeoutError(f"fewer than {count} {type_} events after {timeout}s")
            return self.events_of(type_)

    def events_of(self, type_: str | None = None) -> list[dict[str, Any]]:
        """Copies of the stored events, oldest first, optionally of one type."""
        with self.lock:
            return [copy.deepcopy(e) for e in self.events if type_ is None or e["type"] == type_]

    # ------------------------------------------------------------------ webhooks

    def sign(self, body: bytes, timestamp: int | None = None, *, secret: str | None = None) -> str:
        """A `Stripe-Signature` header like a test-mode delivery's: t, v1 and a junk v0."""
        t = int(self.clock()) if timestamp is None else int(timestamp)
        v1 = compute_signature(body, secret or self.webhook_secret, t)
        return f"t={t},v1={v1},v0={secrets.token_hex(32)}"

    def deliver(self, event_id: str, *, url: str | None = None, timestamp: int | None = None,
                signature: str | None = None) -> int:
        """POST a stored event now (again, or out of order) and return the endpoint's status (0: no answer)."""
        target = url or self.webhook_url
        if target is None:
            raise ValueError("No webhook_url to deliver to")
        return self._post_event(event_id, target, attempt=1, automatic=False,
                                timestamp=timestamp, signature=signature).status

    def wait_for_deliveries(self, count: int, timeout: float = 5.0) -> list[Delivery]:
        """Wait until at least `count` deliveries were made; a copy of them all."""
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.deliveries) >= count, timeout):
                raise TimeoutError(f"{len(self.deliveries)} of {count} webhook deliveries after {timeout}s: "
                                   f"{self.deliveries}")
            return list(self.deliveries)

    def forget(self, timeout: float = 15.0) -> None:
        """Once pending deliveries are done, forget the requests, deliveries, faults and counts recorded
        so far (a fake shared by tests); payments made stay, as on Stripe."""
        self.wait_for_idle(timeout)
        with self.lock:
            self.requests.clear()
            self.deliveries.clear()
            self.faults.clear()
            self.executions.clear()
            self.created_intents.clear()
            self.created_refunds.clear()

    def wait_for_idle(self, timeout: float = 5.0) -> None:
        """Wait until no automatic delivery (or retry) is queued or running."""
        with self._queue_cv:
            if not self._queue_cv.wait_for(lambda: not self._queue and self._busy == 0, timeout):
                raise TimeoutError(f"webhook deliveries still pending after {timeout}s")

    def _enqueue(self, event_ids: list[str]) -> None:
        if not event_ids or not self.auto_deliver or not self.webhook_url:
            return
        with self._queue_cv:
            for event_id in event_ids:
                heapq.heappush(self._queue, (time.monotonic(), next(self._sequence), event_id, 1))
            self._queue_cv.notify_all()

    def _deliver_loop(self) -> None:
        while True:
            with self._queue_cv:
                while not self._stopping and not (self._queue and self._queue[0][0] <= time.monotonic()):
                    self._queue_cv.wait(self._queue[0][0] - time.monotonic() if self._queue else None)
                if self._stopping:
                    return
                _, _, event_id, attempt = heapq.heappop(self._queue)
                self._busy += 1
            try:
                url = self.webhook_url
                if url is not None:
                    delivery = self._post_event(event_id, url, attempt=attempt, automatic=True)
                    if not delivery.ok and attempt <= self.webhook_retries:
                        due = time.monotonic() + self.webhook_retry_delay * 2 ** (attempt - 1)
                        with self._queue_cv:
                            heapq.heappush(self._queue, (due, next(self._sequence), event_id, attempt + 1))
            finally:
                with self._queue_cv:
                    self._busy -= 1
                    self._queue_cv.notify_all()

    def _post_event(self, event_id: str, url: str, *, attempt: int, automatic: bool,
                    timestamp: int | None = None, signature: str | None = None) -> Delivery:
        with self.lock:
            event = copy.deepcopy(self._events_by_id[event_id])
        body = json.dumps(event, indent=2).encode()  # Stripe pretty-prints: re-serialising breaks the signature
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "User-Agent": WEBHOOK_USER_AGENT,
            "Stripe-Signature": signature if signature is not None else self.sign(body, timestamp),
        }
        status, error = 0, None
        try:
            with httpx.Client(trust_env=False, timeout=self.webhook_timeout) as client:
                status = client.post(url, content=body, headers=headers).status_code
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"
        delivery = Delivery(event_id, event["type"], status, attempt, automatic, url, error)
        with self._changed:
            self.deliveries.append(delivery)
            self._delivered_ok[event_id] = delivery.ok
            self._changed.notify_all()
        if self.on_delivery is not None:
            self.on_delivery(delivery)
        return delivery

    # ------------------------------------------------------------------ test controls

    def fail_refund(self, refund_id: str, failure_reason: str = "expired_or_canceled_card") -> dict[str, Any]:
        """Turn a succeeded refund into a failed one (the money goes back to the charge), with its events."""
        call = _Call("fail_refund", {}, {}, False, None, None)
        with self.lock:
            refund = self.refunds[refund_id]
            if refund["status"] == "failed":
                return copy.deepcopy(refund)
            charge = self.charges[refund["charge"]]
            previous = {"status": refund["status"]}
            refund.update(status="failed", failure_reason=failure_reason,
                          failure_balance_transaction=_new_id("txn"))
            charge["amount_refunded"] -= refund["amount"]
            charge["refunded"] = False
            self._emit(call, "charge.refund.updated", refund, previous)
            self._emit(call, "refund.updated", refund, previous)
            self._emit(call, "refund.failed", refund)
            result = copy.deepcopy(refund)
        self._enqueue(call.events)
        return result

    # ------------------------------------------------------------------ HTTP

    def _handle_http(self, method: str, path: str, query: str, raw: bytes, headers: Any,
                     request_id: str) -> _Exchange:
        """Authenticate, route, apply faults and idempotency, execute; what to answer."""
        base_headers = {"Request-Id": request_id, "Stripe-Version": headers.get("Stripe-Version") or self.api_version}
        route = next(((name, m.groupdict(), publishable) for route_method, pattern, name, publishable in _ROUTES
                      if route_method == method and (m := pattern.match(path))), None)
        if route is None and not path.startswith("/v1/"):
            return self._error_exchange(_unrecognized(method, path), base_headers)
        content_type = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        params: dict[str, Any] = {}
        bad_params: StripeApiError | None = None
        if method == "POST" and content_type == "application/json":
            bad_params = _invalid("Invalid request: unsupported Content-Type application/json. "
                                  "Send parameters form-encoded (application/x-www-form-urlencoded).")
        else:
            try:
                params = decode_form(raw.decode("utf-8", "replace") if method == "POST" else query)
            except StripeApiError as exc:
                bad_params = exc
        idempotency_key = headers.get("Idempotency-Key") if method == "POST" else None
        record = RecordedRequest(method, path, idempotency_key, _redact(params), request_id)
        with self.lock:
            self.requests.append(record)
        publishable_ok = route is not None and route[2]
        try:
            record.key_kind = self._authenticate(headers.get("Authorization"), params, publishable_ok)
        except StripeApiError as exc:
            exchange = self._error_exchange(exc, base_headers)
            exchange.headers["WWW-Authenticate"] = 'Bearer realm="Stripe"'
            record.status = exc.status
            return exchange
        params.pop("key", None)
        if route is None or bad_params is not None:
            exc = bad_params if route is not None and bad_params is not None else _unrecognized(method, path)
            record.status = exc.status
            return self._error_exchange(exc, base_headers)
        if idempotency_key is not None:
            base_headers["Idempotency-Key"] = idempotency_key
        fault = self._take_fault(method, path)
        if fault is not None and fault.kind == "status":
            exchange = self._error_exchange(self._fault_error(fault.status), base_headers)
            if fault.should_retry is not None:
                exchange.headers["Stripe-Should-Retry"] = "true" if fault.should_retry else "false"
            record.status = fault.status
            return exchange
        name, ids, _ = route
        call = _Call(name, ids, params, record.key_kind == "publishable", request_id, idempotency_key)
        signature = (method, path, params)
        if idempotency_key is not None:
            if len(idempotency_key) > 255:
                exc = _invalid("Idempotency-Key must be at most 255 characters long.", param="Idempotency-Key")
                record.status = exc.status
                return self._error_exchange(exc, base_headers)
            with self.lock:
                self._prune_idempotency()
                stored = self._idempotency.get(idempotency_key)
                if stored is not None:
                    if stored.signature != signature:
                        exc = StripeApiError(400, _error(
                            "idempotency_error",
                            "Keys for idempotent requests can only be used with the same parameters they were first "
                            f"used with. Try using a key other than '{idempotency_key}' if you meant to execute a "
                            "different request."))
                        record.status = exc.status
                        return self._error_exchange(exc, base_headers)
                    record.status, record.replayed = stored.status, True
                    return _Exchange(stored.status, copy.deepcopy(stored.body),
                                     {**base_headers, "Idempotent-Replayed": "true"})
                if idempotency_key in self._in_flight:
                    exc = StripeApiError(409, _error(
                        "invalid_request_error",
                        "There is currently another in-progress request using this Stripe-Idempotency-Key. "
                        "Please try again later.", code="idempotency_key_in_use"))
                    record.status = exc.status
                    return self._error_exchange(exc, base_headers)
                self._in_flight.add(idempotency_key)
        try:
            if fault is not None and fault.kind == "hold":
                fault.reached.set()
                fault.gate.wait(30)
            status, body, store = self._execute(call)
            if idempotency_key is not None and store:
                with self.lock:
                    self._idempotency[idempotency_key] = _Stored(signature, status, copy.deepcopy(body), self.clock())
        finally:
            if idempotency_key is not None:
                with self.lock:
                    self._in_flight.discard(idempotency_key)
        record.status = status
        record.dropped = fault is not None and fault.kind == "drop"
        return _Exchange(status, body, base_headers, drop=record.dropped, call=call)

    def _after_reply(self, call: _Call | None) -> None:
        """Events go out (and follow-ups run) only once the API call has answered."""
        if call is None:
            return
        self._enqueue(call.events)
        for follow_up in call.after:
            follow_up()

    def _authenticate(self, authorization: str | None, params: dict[str, Any], publishable_ok: bool) -> str:
        key: str | None = None
        if authorization:
            scheme, _, value = authorization.partition(" ")
            if scheme.lower() == "bearer":
                key = value.strip()
            elif scheme.lower() == "basic":
                try:
                    key = base64.b64decode(value.strip()).decode().split(":", 1)[0]
                except (ValueError, UnicodeDecodeError):
                    key = ""
            else:
                key = ""
        elif publishable_ok and isinstance(params.get("key"), str):
            key = params["key"]  # Stripe.js sends its publishable key as a parameter
        if key is None:
            raise StripeApiError(401, _error(
                "invalid_request_error",
                "You did not provide an API key. You need to provide your API key in the Authorization header, "
                "using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See "
                "https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/."))
        if key == self.secret_key:
            return "secret"
        if key == self.publishable_key:
            if publishable_ok:
                return "publishable"
            raise StripeApiError(401, _error(
                "invalid_request_error",
                "This API call cannot be made with a publishable API key. Please use a secret API key. You can find "
                "a list of your API keys at https://dashboard.stripe.com/account/apikeys."))
        raise StripeApiError(401, _error("invalid_request_error", f"Invalid API Key provided: {_mask_key(key)}"))

    @staticmethod
    def _fault_error(status: int) -> StripeApiError:
        if status == 429:
            return StripeApiError(429, _error(
                "invalid_request_error", "Request rate limit exceeded. You can learn more about rate limits here "
                "https://stripe.com/docs/rate-limits.", code="rate_limit"))
        if status == 409:
            return StripeApiError(409, _error(
                "invalid_request_error", "This object cannot be accessed right now because another API request or "
                "Stripe process is currently accessing it. Please retry.", code="lock_timeout"))
        return StripeApiError(status, _error("api_error", "An unknown error occurred. Please try again."))

    @staticmethod
    def _error_exchange(exc: StripeApiError, headers: dict[str, str]) -> _Exchange:
        return _Exchange(exc.status, exc.body, dict(headers))

    def _prune_idempotency(self) -> None:
        horizon = self.clock() - IDEMPOTENCY_TTL_SECONDS
        for key in [k for k, stored in self._idempotency.items() if stored.at < horizon]:
            del self._idempotency[key]

    def _execute(self, call: _Call) -> tuple[int, dict[str, Any], bool]:
        with self.lock:
            self.executions[call.route] += 1
            try:
                status, body = getattr(self, f"_{call.route}")(call)
                return status, body, True
            except StripeApiError as exc:
                return exc.status, exc.body, exc.stored

    # ------------------------------------------------------------------ objects

    def _now(self) -> int:
        return int(self.clock())

    def _emit(self, call: _Call, type_: str, obj: dict[str, Any], previous: dict[str, Any] | None = None) -> None:
        event: dict[str, Any] = {
            "id": _new_id("evt"),
            "object": "event",
            "api_version": self.api_version,
            "created": self._now(),
            "data": {"object": copy.deepcopy(obj)},
            "livemode": False,
            "pending_webhooks": 1 if self.webhook_url else 0,
            "request": {"id": call.request_id, "idempotency_key": call.idempotency_key},
            "type": type_,
        }
        if previous is not None:
            event["data"]["previous_attributes"] = copy.deepcopy(previous)
        with self._changed:
            self.events.append(event)
            self._events_by_id[event["id"]] = event
            self._changed.notify_all()
        call.events.append(event["id"])

    def _lookup(self, object_id: str) -> dict[str, Any] | None:
        for store in (self.intents, self.charges, self.refunds, self.payment_methods):
            if object_id in store:
                return store[object_id]
        return None

    def _expanded(self, obj: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        result = copy.deepcopy(obj)
        for path in _expand_paths(params):
            self._expand_path(result, path.split("."), path)
        return result

    def _expand_path(self, node: Any, parts: list[str], full: str) -> None:
        if node is None:
            return
        head, rest = parts[0], parts[1:]
        if isinstance(node, dict) and node.get("object") == "list" and head == "data":
            for item in node["data"]:
                self._expand_path(item, rest, full)
            return
        if not isinstance(node, dict) or head not in node:
            raise _invalid(f"This property cannot be expanded ({full}).", param="expand")
        value = node[head]
        if isinstance(value, str):
            target = self._lookup(value) if head in ("latest_charge", "payment_intent", "charge",
                                                     "payment_method") else None
            if target is None:
                raise _invalid(f"This property cannot be expanded ({full}).", param="expand")
            node[head] = value = copy.deepcopy(target)
        if rest:
            self._expand_path(value, rest, full)

    def _intent_view(
        self, pi: dict[str, Any], publishable: bool, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        view = self._expanded(pi, params or {})
        if publishable:
            for name in PUBLISHABLE_HIDDEN:
                view.pop(name, None)
        return view

    def _get_intent(self, intent_id: str, *, param: str = "intent", status: int = 404) -> dict[str, Any]:
        pi = self.intents.get(intent_id)
        if pi is None:
            raise _no_such("payment_intent", intent_id, param, status=status)
        return pi

    def _check_client_secret(self, call: _Call, pi: dict[str, Any]) -> None:
        if not call.publishable:
            return
        secret = _str(call.params, "client_secret", required=True)
        if not hmac.compare_digest(secret or "", pi["client_secret"]):
            raise _invalid("The client_secret provided does not match the client_secret associated with the "
                           "PaymentIntent.", param="client_secret")

    def _new_payment_method(self, card: CardScenario, exp_month: int | None = None,
                            exp_year: int | None = None) -> dict[str, Any]:
        pm_id = _new_id("pm")
        pm = {
            "id": pm_id,
            "object": "payment_method",
            "allow_redisplay": "unspecified",
            "billing_details": {"address": {"city": None, "country": None, "line1": None, "line2": None,
                                            "postal_code": None, "state": None},
                                "email": None, "name": None, "phone": None},
            "card": {
                "brand": card.brand,
                "checks": {"address_line1_check": None, "address_postal_code_check": None, "cvc_check": "pass"},
                "country": "US",
                "display_brand": card.brand,
                "exp_month": exp_month or 12,
                "exp_year": exp_year or time.gmtime(self.clock()).tm_year + 3,
                "fingerprint": secrets.token_hex(8),
                "funding": "credit",
                "last4": card.last4,
                "networks": {"available": [card.brand], "preferred": None},
                "wallet": None,
            },
            "created": self._now(),
            "customer": None,
            "livemode": False,
            "metadata": {},
            "type": "card",
        }
        self.payment_methods[pm_id] = pm
        self._cards[pm_id] = card
        return pm

    def _resolve_payment_method(self, value: str) -> dict[str, Any]:
        card = CARDS_BY_PAYMENT_METHOD.get(value)
        if card is not None:
            return self._new_payment_method(card)
        if value in self.payment_methods:
            return self.payment_methods[value]
        raise _no_such("PaymentMethod", value, "payment_method", status=400)

    def _new_charge(self, pi: dict[str, Any], pm: dict[str, Any], card: CardScenario, *, succeeded: bool,
                    decline: CardScenario | None = None) -> dict[str, Any]:
        captured = succeeded and pi["capture_method"] != "manual"
        if succeeded:
            outcome = {"network_status": "approved_by_network", "reason": None, "risk_level": "normal",
                       "seller_message": "Payment complete.", "type": "authorized"}
        elif decline is not None and decline.decline_code == "fraudulent":
            outcome = {"network_status": "not_sent_to_network", "reason": "highest_risk_level", "risk_level": "highest",
                       "seller_message": "Stripe blocked this payment as too risky.", "type": "blocked"}
        else:
            outcome = {"network_status": "declined_by_network", "reason": decline.decline_code if decline else None,
                       "risk_level": "normal", "type": "issuer_declined",
                       "seller_message": "The bank did not return any further details with this decline."}
        charge = {
            "id": _new_id("ch"),
            "object": "charge",
            "amount": pi["amount"],
            "amount_captured": pi["amount"] if captured else 0,
            "amount_refunded": 0,
            "balance_transaction": _new_id("txn") if captured else None,
            "billing_details": copy.deepcopy(pm["billing_details"]),
            "captured": captured,
            "created": self._now(),
            "currency": pi["currency"],
            "customer": pi["customer"],
            "description": pi["description"],
            "disputed": False,
            "failure_code": None if succeeded or decline is None else decline.code,
            "failure_message": None if succeeded or decline is None else decline.message,
            "livemode": False,
            "metadata": dict(pi["metadata"]),
            "outcome": outcome,
            "paid": succeeded,
            "payment_intent": pi["id"],
            "payment_method": pm["id"],
            "payment_method_details": {
                "type": "card",
                "card": {
                    "brand": card.brand,
                    "checks": copy.deepcopy(pm["card"]["checks"]),
                    "country": "US",
                    "exp_month": pm["card"]["exp_month"],
                    "exp_year": pm["card"]["exp_year"],
                    "fingerprint": pm["card"]["fingerprint"],
                    "funding": "credit",
                    "last4": card.last4,
                    "network": card.brand,
                },
            },
            "receipt_email": pi["receipt_email"],
            "refunded": False,
            "status": "succeeded" if succeeded else "failed",
        }
        self.charges[charge["id"]] = charge
        return charge

    # ------------------------------------------------------------------ PaymentIntents

    def _create_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        params = call.params
        _allow(params, _INTENT_CREATE)
        amount = _int(params, "amount", required=True)
        assert amount is not None
        currency = _str(params, "currency", required=True)
        assert currency is not None
        if not re.fullmatch(r"[A-Za-z]{3}", currency):
            raise _invalid(f"Invalid currency: {currency.lower()}.", code="parameter_invalid_string", param="currency")
        self._check_amount(amount)
        apm_raw = params.get("automatic_payment_methods")
        types = params.get("payment_method_types")
        if types is not None and (not isinstance(types, list) or not all(isinstance(t, str) for t in types)):
            raise _invalid("Invalid array", code="parameter_invalid_string", param="payment_method_types")
        apm: dict[str, Any] | None = None
        if isinstance(apm_raw, dict):
            enabled = _bool(apm_raw, "enabled")
            if enabled is None:
                raise _invalid("Missing required param: automatic_payment_methods[enabled].",
                               code="parameter_missing", param="automatic_payment_methods[enabled]")
            allow = _enum(apm_raw, "allow_redirects", ("always", "never")) or "always"
            apm = {"allow_redirects": allow, "enabled": enabled} if enabled else None
        elif apm_raw is not None:
            raise _invalid("Invalid hash", code="parameter_invalid_string", param="automatic_payment_methods")
        if apm is not None and types:
            raise _invalid("You may only specify one of these parameters: automatic_payment_methods, "
                           "payment_method_types.", param="automatic_payment_methods")
        if apm is None and not types:
            apm = {"allow_redirects": "always", "enabled": True}  # the default since API version 2023-08-16
        if _str(params, "statement_descriptor") is not None:
            raise _invalid("The `statement_descriptor` parameter is not supported for the `card` payment method type. "
                           "Use `statement_descriptor_suffix` instead.", param="statement_descriptor")
        suffix = _str(params, "statement_descriptor_suffix")
        if suffix is not None and len(suffix) > 22:
            raise _invalid("The statement descriptor suffix must be at most 22 characters.",
                           param="statement_descriptor_suffix")
        capture_method = (
            _enum(params, "capture_method", ("automatic", "automatic_async", "manual")) or "automatic_async"
        )
        confirm = _bool(params, "confirm") or False
        metadata = _metadata(params)
        pi_id = _new_id("pi")
        pi: dict[str, Any] = {
            "id": pi_id,
            "object": "payment_intent",
            "amount": amount,
            "amount_capturable": 0,
            "amount_received": 0,
            "automatic_payment_methods": apm,
            "canceled_at": None,
            "cancellation_reason": None,
            "capture_method": capture_method,
            "client_secret": f"{pi_id}_secret_{''.join(secrets.choice(_ALPHANUM) for _ in range(25))}",
            "confirmation_method": _enum(params, "confirmation_method", ("automatic", "manual")) or "automatic",
            "created": self._now(),
            "currency": currency.lower(),
            "customer": _str(params, "customer"),
            "description": _str(params, "description"),
            "last_payment_error": None,
            "latest_charge": None,
            "livemode": False,
            "metadata": metadata,
            "next_action": None,
            "payment_method": None,
            "payment_method_types": list(types) if types else ["card"],
            "processing": None,
            "receipt_email": _str(params, "receipt_email"),
            "setup_future_usage": _enum(params, "setup_future_usage", ("off_session", "on_session")),
            "shipping": params.get("shipping") if isinstance(params.get("shipping"), dict) else None,
            "statement_descriptor": None,
            "statement_descriptor_suffix": suffix,
            "status": "requires_payment_method",
        }
        payment_method = _str(params, "payment_method")
        if payment_method is not None:
            pm = self._resolve_payment_method(payment_method)
            pi["payment_method"] = pm["id"]
            pi["status"] = "requires_confirmation"
        if confirm:
            if payment_method is None:
                raise _invalid("Missing required param: payment_method.", code="parameter_missing",
                               param="payment_method")
            self._require_return_url(pi, call)
        self.intents[pi_id] = pi
        self.created_intents.append(pi_id)
        self._emit(call, "payment_intent.created", pi)
        if confirm:
            self._confirm(call, pi, self.payment_methods[pi["payment_method"]])
        return 200, self._intent_view(pi, False, params)

    def _check_amount(self, amount: int) -> None:
        if amount < max(self.min_amount, 1):
            raise _invalid(f"Amount must be at least {max(self.min_amount, 1)} (in the currency's smallest unit).",
                           code="amount_too_small", param="amount")
        if amount > 99_999_999:
            raise _invalid("Amount must be no more than 99999999.", code="amount_too_large", param="amount")

    def _list_intents(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, _LIST | {"customer"})
        items = list(reversed(self.intents.values()))
        customer = _str(call.params, "customer")
        if customer is not None:
            items = [pi for pi in items if pi["customer"] == customer]
        page = _page(_created_filter(call.params, items), call.params, "/v1/payment_intents")
        return 200, self._expanded(page, call.params)

    def _retrieve_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, frozenset({"client_secret"}))
        pi = self._get_intent(call.ids["id"])
        self._check_client_secret(call, pi)
        return 200, self._intent_view(pi, call.publishable, call.params)

    def _update_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        params = call.params
        _allow(params, _INTENT_UPDATE)
        pi = self._get_intent(call.ids["id"])
        status = pi["status"]
        changed = sorted(_INTENT_MONEY_FIELDS & set(params))
        if changed and status not in CONFIRMABLE:
            raise _unexpected_state(
                f"This PaymentIntent's {changed[0]} could not be updated because it has a status of {status}. You may "
                "only update the " + changed[0] + " of a PaymentIntent with one of the following statuses: "
                "requires_payment_method, requires_confirmation, requires_action.")
        if status == "canceled":
            raise _unexpected_state("You cannot update this PaymentIntent because it has a status of canceled.")
        amount = _int(params, "amount")
        if amount is not None:
            self._check_amount(amount)
        if _str(params, "statement_descriptor") is not None:
            raise _invalid("The `statement_descriptor` parameter is not supported for the `card` payment method type. "
                           "Use `statement_descriptor_suffix` instead.", param="statement_descriptor")
        metadata = _metadata(params, pi["metadata"])
        currency = _str(params, "currency")
        payment_method = _str(params, "payment_method")
        pm = self._resolve_payment_method(payment_method) if payment_method is not None else None
        if amount is not None:
            pi["amount"] = amount
        if currency is not None:
            pi["currency"] = currency.lower()
        pi["metadata"] = metadata
        for name in ("description", "receipt_email", "statement_descriptor_suffix", "customer"):
            if name in params:
                pi[name] = _str(params, name)
        if pm is not None:
            pi["payment_method"] = pm["id"]
            pi["status"] = "requires_confirmation"
        if status in CONFIRMABLE:
            pi["last_payment_error"] = None
        return 200, self._intent_view(pi, False, params)

    def _require_return_url(self, pi: dict[str, Any], call: _Call) -> None:
        """Server-side confirms of an intent that may redirect need a return_url (API 2023-08-16)."""
        apm = pi["automatic_payment_methods"]
        if call.publishable or not apm or apm["allow_redirects"] == "never":
            return
        if _str(call.params, "return_url") is None and not _bool(call.params, "off_session"):
            raise _invalid(
                "This PaymentIntent is configured to accept payment methods enabled in your Dashboard. Because some "
                "of these payment methods might redirect your customer off of your page, you must provide a "
                "`return_url`. If you don't want to accept redirect-based payment methods, set "
                "`automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to "
                "`never` when creating Setup Intents and Payment Intents.", param="return_url")

    def _confirm_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        params = call.params
        _allow(params, _INTENT_CONFIRM)
        pi = self._get_intent(call.ids["id"])
        self._check_client_secret(call, pi)
        if pi["status"] not in CONFIRMABLE:
            raise _unexpected_state(f"You cannot confirm this PaymentIntent because it has a status of {pi['status']}.")
        value = _str(params, "payment_method")
        if value is None and pi["payment_method"] is None:
            raise _invalid("You cannot confirm this PaymentIntent because it's missing a payment method. To confirm "
                           "the PaymentIntent with a payment method, provide `payment_method`.",
                           code="payment_intent_unexpected_state", param="payment_method")
        pm = self._resolve_payment_method(value) if value is not None else self.payment_methods[pi["payment_method"]]
        self._require_return_url(pi, call)
        receipt_email = _str(params, "receipt_email")
        if receipt_email is not None:
            pi["receipt_email"] = receipt_email
        self._confirm(call, pi, pm)
        return 200, self._intent_view(pi, call.publishable, params)

    def _confirm(self, call: _Call, pi: dict[str, Any], pm: dict[str, Any]) -> None:
        """Pay `pi` with `pm`: success, 3-D Secure, or a 402 decline left on the intent."""
        card = self._cards[pm["id"]]
        pi["payment_method"] = pm["id"]
        pi["last_payment_error"] = None
        if card.outcome == "authenticate":
            pi["status"] = "requires_action"
            pi["next_action"] = {
                "type": "use_stripe_sdk",
                "use_stripe_sdk": {
                    "type": "three_d_secure_redirect",
                    "stripe_js": f"{self.api_base}{AUTHENTICATE_PATH}",
                    "source": _new_id("src"),
                },
            }
            self._emit(call, "payment_intent.requires_action", pi)
            return
        if card.outcome == "declined":
            self._decline(call, pi, pm, card)
        else:
            self._succeed(call, pi, pm, card)

    def _succeed(self, call: _Call, pi: dict[str, Any], pm: dict[str, Any], card: CardScenario) -> None:
        charge = self._new_charge(pi, pm, card, succeeded=True)
        pi["latest_charge"] = charge["id"]
        pi["next_action"] = None
        self._emit(call, "charge.succeeded", charge)
        if pi["capture_method"] == "manual":
            pi.update(status="requires_capture", amount_capturable=pi["amount"])
            self._emit(call, "payment_intent.amount_capturable_updated", pi)
        else:
            pi.update(status="succeeded", amount_received=pi["amount"])
            self._emit(call, "payment_intent.succeeded", pi)

    def _decline(self, call: _Call, pi: dict[str, Any], pm: dict[str, Any], card: CardScenario) -> NoReturn:
        """Leave `pi` waiting for another card, with the error, and answer 402 (stored for idempotency)."""
        charge = self._new_charge(pi, pm, card, succeeded=False, decline=card)
        error = _error("card_error", card.message or _DECLINED, code=card.code, param=card.param,
                       decline_code=card.decline_code, charge=charge["id"], payment_method=copy.deepcopy(pm))
        pi.update(status="requires_payment_method", payment_method=None, next_action=None,
                  latest_charge=charge["id"], last_payment_error=copy.deepcopy(error))
        self._emit(call, "charge.failed", charge)
        self._emit(call, "payment_intent.payment_failed", pi)
        error["payment_intent"] = self._intent_view(pi, call.publishable)
        raise StripeApiError(402, error, stored=True)

    def _capture_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        params = call.params
        _allow(params, frozenset({"amount_to_capture", "metadata", "statement_descriptor_suffix"}))
        pi = self._get_intent(call.ids["id"])
        if pi["status"] != "requires_capture":
            raise _unexpected_state(f"This PaymentIntent could not be captured because it has a status of "
                                    f"{pi['status']}. Only a PaymentIntent with one of the following statuses may be "
                                    "captured: requires_capture.")
        amount = _int(params, "amount_to_capture")
        amount = pi["amount_capturable"] if amount is None else amount
        if not 1 <= amount <= pi["amount_capturable"]:
            raise _invalid("The amount_to_capture must be positive and at most the amount capturable.",
                           code="amount_too_large", param="amount_to_capture")
        pi["metadata"] = _metadata(params, pi["metadata"])
        charge = self.charges[pi["latest_charge"]]
        charge.update(captured=True, amount_captured=amount, balance_transaction=_new_id("txn"))
        pi.update(status="succeeded", amount_received=amount, amount_capturable=0)
        self._emit(call, "charge.captured", charge)
        self._emit(call, "payment_intent.succeeded", pi)
        return 200, self._intent_view(pi, False, params)

    def _cancel_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        params = call.params
        _allow(params, frozenset({"cancellation_reason"}))
        pi = self._get_intent(call.ids["id"])
        reason = _enum(params, "cancellation_reason", CANCELLATION_REASONS)
        if pi["status"] not in CANCELABLE:
            raise _unexpected_state(
                f"You cannot cancel this PaymentIntent because it has a status of {pi['status']}. Only a "
                "PaymentIntent with one of the following statuses may be canceled: " + ", ".join(CANCELABLE) + ".")
        if pi["status"] == "requires_capture":
            charge = self.charges[pi["latest_charge"]]
            previous = {"amount_refunded": charge["amount_refunded"], "refunded": charge["refunded"]}
            charge.update(amount_refunded=charge["amount"], refunded=True)
            self._emit(call, "charge.refunded", charge, previous)
        pi.update(status="canceled", canceled_at=self._now(), cancellation_reason=reason, amount_capturable=0,
                  next_action=None)
        self._emit(call, "payment_intent.canceled", pi)
        return 200, self._intent_view(pi, False, params)

    # ------------------------------------------------------------------ charges, payment methods

    def _list_charges(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, _LIST | {"payment_intent", "customer"})
        items = list(reversed(self.charges.values()))
        for name in ("payment_intent", "customer"):
            value = _str(call.params, name)
            if value is not None:
                items = [c for c in items if c[name] == value]
        return 200, self._expanded(_page(_created_filter(call.params, items), call.params, "/v1/charges"), call.params)

    def _retrieve_charge(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, frozenset())
        charge = self.charges.get(call.ids["id"])
        if charge is None:
            raise _no_such("charge", call.ids["id"], "id")
        return 200, self._expanded(charge, call.params)

    def _retrieve_payment_method(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, frozenset())
        pm = self.payment_methods.get(call.ids["id"])
        if pm is None:
            raise _no_such("PaymentMethod", call.ids["id"], "payment_method")
        return 200, copy.deepcopy(pm)

    # ------------------------------------------------------------------ refunds

    def _create_refund(self, call: _Call) -> tuple[int, dict[str, Any]]:
        params = call.params
        _allow(params, frozenset({"payment_intent", "charge", "amount", "reason", "metadata", "instructions_email"}))
        intent_id, charge_id = _str(params, "payment_intent"), _str(params, "charge")
        if intent_id is None and charge_id is None:
            raise _invalid("One of the following params should be provided for this request: payment_intent or "
                           "charge.", code="parameter_missing", param="payment_intent")
        if intent_id is not None:
            pi = self._get_intent(intent_id, param="payment_intent", status=400)
            if pi["status"] != "succeeded" or pi["latest_charge"] is None:
                raise _invalid(f"This PaymentIntent ({intent_id}) does not have a successful charge to refund.",
                               code="payment_intent_unexpected_state", param="payment_intent")
            charge = self.charges[pi["latest_charge"]]
            if charge_id is not None and charge_id != charge["id"]:
                raise _invalid(f"Charge {charge_id} does not belong to PaymentIntent {intent_id}.", param="charge")
        else:
            assert charge_id is not None
            found = self.charges.get(charge_id)
            if found is None:
                raise _no_such("charge", charge_id, "charge", status=400)
            charge = found
            if charge["status"] != "succeeded" or not charge["captured"]:
                raise _invalid(f"Charge {charge_id} has not been captured successfully and cannot be refunded.",
                               param="charge")
        reason = _enum(params, "reason", REFUND_REASONS)
        metadata = _metadata(params)
        remaining = charge["amount_captured"] - charge["amount_refunded"]
        if charge["refunded"] or remaining <= 0:
            raise _invalid(f"Charge {charge['id']} has already been refunded.", code="charge_already_refunded",
                           param="charge" if intent_id is None else "payment_intent")
        amount = _int(params, "amount")
        amount = remaining if amount is None else amount
        if amount < 1:
            raise _invalid("Invalid positive integer", code="parameter_invalid_integer", param="amount")
        if amount > remaining:
            raise _invalid(f"Refund amount ({amount} {charge['currency']}) is greater than unrefunded amount on "
                           f"charge ({remaining} {charge['currency']})", code="amount_too_large", param="amount")
        refund: dict[str, Any] = {
            "id": _new_id("re"),
            "object": "refund",
            "amount": amount,
            "balance_transaction": _new_id("txn"),
            "charge": charge["id"],
            "created": self._now(),
            "currency": charge["currency"],
            "destination_details": {"type": "card", "card": {"reference_status": "pending", "reference_type":
                                                             "acquirer_reference_number", "type": "refund"}},
            "metadata": metadata,
            "payment_intent": charge["payment_intent"],
            "reason": reason,
            "receipt_number": None,
            "source_transfer_reversal": None,
            "status": "succeeded",
            "transfer_reversal": None,
        }
        previous = {"amount_refunded": charge["amount_refunded"], "refunded": charge["refunded"]}
        charge["amount_refunded"] += amount
        charge["refunded"] = charge["amount_refunded"] >= charge["amount_captured"]
        self.refunds[refund["id"]] = refund
        self.created_refunds.append(refund["id"])
        self._emit(call, "refund.created", refund)
        self._emit(call, "charge.refunded", charge, previous)
        card = self._cards.get(charge["payment_method"])
        if card is not None and card.refund_fails:
            refund_id = refund["id"]
            call.after.append(lambda: self.fail_refund(refund_id))
        return 200, copy.deepcopy(refund)

    def _list_refunds(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, _LIST | {"payment_intent", "charge"})
        items = list(reversed(self.refunds.values()))
        for name in ("payment_intent", "charge"):
            value = _str(call.params, name)
            if value is not None:
                items = [r for r in items if r[name] == value]
        return 200, self._expanded(_page(_created_filter(call.params, items), call.params, "/v1/refunds"), call.params)

    def _retrieve_refund(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, frozenset())
        refund = self.refunds.get(call.ids["id"])
        if refund is None:
            raise _no_such("refund", call.ids["id"], "refund")
        return 200, self._expanded(refund, call.params)

    def _update_refund(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, frozenset({"metadata"}))
        refund = self.refunds.get(call.ids["id"])
        if refund is None:
            raise _no_such("refund", call.ids["id"], "refund")
        refund["metadata"] = _metadata(call.params, refund["metadata"])
        return 200, self._expanded(refund, call.params)

    # ------------------------------------------------------------------ events

    def _list_events(self, call: _Call) -> tuple[int, dict[str, Any]]:
        params = call.params
        _allow(params, _LIST | {"type", "types", "delivery_success"})
        items = list(reversed(self.events))
        type_ = _str(params, "type")
        if type_ is not None:
            pattern = re.compile("^" + re.escape(type_).replace(r"\*", "[^.]+") + "$")
            items = [e for e in items if pattern.match(e["type"])]
        types = params.get("types")
        if types is not None:
            wanted = set(types if isinstance(types, list) else [types])
            items = [e for e in items if e["type"] in wanted]
        delivered = _bool(params, "delivery_success")
        if delivered is not None:
            items = [e for e in items if e["id"] in self._delivered_ok and self._delivered_ok[e["id"]] == delivered]
        return 200, copy.deepcopy(_page(_created_filter(params, items), params, "/v1/events"))

    def _retrieve_event(self, call: _Call) -> tuple[int, dict[str, Any]]:
        _allow(call.params, frozenset())
        event = self._events_by_id.get(call.ids["id"])
        if event is None:
            raise _no_such("event", call.ids["id"], "id")
        return 200, copy.deepcopy(event)

    # ------------------------------------------------------------------ Stripe.js stand-in controls

    def _fake_confirm(self, call: _Call) -> tuple[int, dict[str, Any]]:
        """What Stripe.js does with a typed card: confirm the client secret's intent with it."""
        params = call.params
        _allow(params, frozenset({"client_secret", "number", "exp_month", "exp_year", "cvc", "return_url",
                                  "receipt_email"}))
        pi = self._intent_for_secret(call)
        number = _str(params, "number", required=True)
        assert number is not None
        if pi["status"] not in CONFIRMABLE:
            raise _unexpected_state(f"You cannot confirm this PaymentIntent because it has a status of {pi['status']}.")
        pm = self._new_payment_method(card_for_number(number), _int(params, "exp_month"), _int(params, "exp_year"))
        receipt_email = _str(params, "receipt_email")
        if receipt_email is not None:
            pi["receipt_email"] = receipt_email
        self._confirm(call, pi, pm)
        return 200, self._intent_view(pi, True)

    def _fake_authenticate(self, call: _Call) -> tuple[int, dict[str, Any]]:
        """Stripe's 3-D Secure test page: `outcome=complete` (the card's result follows) or `fail`."""
        params = call.params
        _allow(params, frozenset({"client_secret", "payment_intent", "outcome"}))
        outcome = _enum(params, "outcome", ("complete", "fail")) or "complete"
        if call.publishable or _str(params, "client_secret") is not None:
            pi = self._intent_for_secret(call)
        else:
            pi = self._get_intent(_str(params, "payment_intent", required=True) or "", param="payment_intent",
                                  status=400)
        if pi["status"] != "requires_action":
            raise _unexpected_state(f"This PaymentIntent has a status of {pi['status']}, not requires_action.")
        pm = self.payment_methods[pi["payment_method"]]
        card = self._cards[pm["id"]]
        if outcome == "fail":
            pi.update(
                status="requires_payment_method",
                payment_method=None,
                next_action=None,
                last_payment_error=_error(
                    "invalid_request_error",
                    "We are unable to authenticate your payment method. Please choose a "
                    "different payment method and try again.",
                    code="payment_intent_authentication_failure",
                    payment_method=copy.deepcopy(pm),
                ),
            )
            self._emit(call, "payment_intent.payment_failed", pi)
        elif card.decline_after_authentication:
            self._decline(call, pi, pm, card)
        else:
            self._succeed(call, pi, pm, card)
        return 200, self._intent_view(pi, call.publishable)

    def _intent_for_secret(self, call: _Call) -> dict[str, Any]:
        secret = _str(call.params, "client_secret", required=True) or ""
        intent_id = secret.split("_secret_")[0]
        pi = self.intents.get(intent_id)
        if pi is None or not hmac.compare_digest(secret, pi["client_secret"]):
            raise _invalid("The client_secret provided does not match any associated PaymentIntent on this account.",
                           code="resource_missing", param="client_secret")
        return pi


# ---------------------------------------------------------------------------------------- HTTP handler


_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers": "Request-Id, Stripe-Version, Idempotent-Replayed",
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body in one segment: split writes on a kept-alive connection stall on delayed ACKs.
    wbufsize = -1
    disable_nagle_algorithm = True
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        fake: FakeStripe = self.server.fake
        url = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.command == "GET" and _JS_ROUTE.match(url.path):
            base = f"http://{self.headers.get('Host') or f'127.0.0.1:{fake.port}'}"
            script = STRIPE_JS.replace("__API_BASE__", json.dumps(base)).encode()
            return self._reply(200, script, {"Content-Type": "application/javascript; charset=utf-8",
                                             "Cache-Control": "no-store"})
        request_id = _new_id("req", 14)
        try:
            exchange = fake._handle_http(self.command, url.path, url.query, raw, self.headers, request_id)
        except Exception as exc:  # noqa: BLE001  # a bug in the fake: say so instead of hanging up
            error = _error("api_error", f"The fake Stripe failed: {type(exc).__name__}: {exc}")
            exchange = _Exchange(500, {"error": error}, {"Request-Id": request_id})
        if exchange.drop:
            self.close_connection = True  # executed and stored, but the answer is lost
        else:
            payload = json.dumps(exchange.body, indent=2).encode()
            self._reply(exchange.status, payload, {"Content-Type": "application/json",
                                                   "Cache-Control": "no-cache, no-store", **exchange.headers})
        fake._after_reply(exchange.call)

    def do_OPTIONS(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._reply(204, b"", {
            "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
            "Access-Control-Allow-Headers": self.headers.get("Access-Control-Request-Headers")
            or "Authorization, Content-Type, Idempotency-Key, Stripe-Version",
            "Access-Control-Allow-Private-Network": "true",
            "Access-Control-Max-Age": "600",
        })

    def _reply(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
        try:
            self.send_response(status)
            for name, value in {**_CORS, **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    do_GET = do_POST = do_DELETE = _serve  # noqa: N815 - http.server dispatches to do_<METHOD>


# ---------------------------------------------------------------------------------------- Stripe.js stand-in


STRIPE_JS = r"""/* A stand-in for Stripe.js served by the fake Stripe (tests/fakes/stripe_server.py): the documented
   subset of window.Stripe used with the Payment Element. For tests only; never ship it. */
(function () {
  "use strict";
  var API_BASE = __API_BASE__;
  var CONFIRM_PATH = "/_fake/confirm";
  var AUTHENTICATE_PATH = "/_fake/authenticate";
  // The card inputs belong to no form of the page, so a page's own form never submits them.
  var DETACHED_FORM = "fake-stripe-detached-form";
  if (typeof window === "undefined" || (window.Stripe && window.Stripe.fake)) return;

  function integrationError(message) {
    var error = new Error(message);
    error.name = "IntegrationError";
    return error;
  }

  function assign(target, source) {
    for (var name in source) {
      if (Object.prototype.hasOwnProperty.call(source, name) && source[name] !== undefined && source[name] !== null) {
        target[name] = source[name];
      }
    }
    return target;
  }

  function cardDigits(value) { return String(value || "").replace(/[\s-]/g, ""); }

  function luhnValid(number) {
    var sum = 0, double = false;
    for (var i = number.length - 1; i >= 0; i--) {
      var digit = number.charCodeAt(i) - 48;
      if (double) { digit *= 2; if (digit > 9) digit -= 9; }
      sum += digit;
      double = !double;
    }
    return sum % 10 === 0;
  }

  function parseExpiry(value) {
    var match = String(value || "").replace(/\s/g, "").match(/^(\d{1,2})\/?(\d{2}|\d{4})$/);
    if (!match) return null;
    var year = Number(match[2]);
    return {month: Number(match[1]), year: year < 100 ? 2000 + year : year};
  }

  function validationError(code, message) { return {type: "validation_error", code: code, message: message}; }

  function validateCard(values) {
    var number = cardDigits(values.number);
    if (!number) return validationError("incomplete_number", "Your card number is incomplete.");
    if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
      return validationError("invalid_number", "Your card number is invalid.");
    }
    var expiry = parseExpiry(values.expiry);
    if (!expiry) return validationError("incomplete_expiry", "Your card's expiration date is incomplete.");
    if (expiry.month < 1 || expiry.month > 12) {
      return validationError("invalid_expiry_month", "Your card's expiration date is invalid.");
    }
    var now = new Date();
    if (expiry.year < now.getFullYear() || (expiry.year === now.getFullYear() && expiry.month < now.getMonth() + 1)) {
      return validationError("invalid_expiry_year_past", "Your card's expiration year is in the past.");
    }
    if (!/^\d{3,4}$/.test(String(values.cvc || "").trim())) {
      return validationError("incomplete_cvc", "Your card's security code is incomplete.");
    }
    return null;
  }

  function request(method, path, params) {
    var query = new URLSearchParams(assign({}, params)).toString();
    var init = {method: method, credentials: "omit"};
    var url = API_BASE + path;
    if (method === "GET") {
      url += "?" + query;
    } else {
      init.body = query;
      init.headers = {"Content-Type": "application/x-www-form-urlencoded"};
    }
    return fetch(url, init).then(function (response) {
      return response.json().then(function (body) { return {status: response.status, body: body}; });
    });
  }

  function errorOf(response) {
    return (response.body && response.body.error) || {type: "api_error", message: "Unexpected answer from Stripe."};
  }

  function connectionError() {
    return {error: {type: "api_connection_error",
                    message: "An error occurred with our connection to Stripe. Request was retried 0 times."}};
  }

  function intentIdOf(clientSecret) {
    var at = String(clientSecret || "").indexOf("_secret_");
    return at > 0 ? clientSecret.slice(0, at) : null;
  }

  function withIntent(error, paymentIntent) {
    var result = assign({}, error);
    result.payment_intent = paymentIntent;
    return result;
  }

  function node(tag, attributes, children) {
    var element = document.createElement(tag);
    for (var name in attributes) element.setAttribute(name, attributes[name]);
    (children || []).forEach(function (child) {
      element.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return element;
  }

  var LABEL_STYLE = "display:block;font-size:13px;color:#30313d;margin:6px 0 2px;";
  var INPUT_STYLE = "display:block;width:100%;box-sizing:border-box;padding:8px 10px;margin-top:2px;" +
    "border:1px solid #e6e6e6;border-radius:5px;font-size:15px;";

  function PaymentElement(group, options) {
    this._group = group;
    this._options = options || {};
    this._handlers = {};
    this._root = null;
    this._fields = null;
    this._destroyed = false;
  }

  PaymentElement.prototype.mount = function (target) {
    if (this._destroyed) throw integrationError("This Element has already been destroyed. Please create a new one.");
    var parent = typeof target === "string" ? document.querySelector(target) : target;
    if (!parent || typeof parent.appendChild !== "function") {
      throw integrationError("The selector you specified (" + target + ") applies to no DOM elements that are " +
                             "currently on the page.");
    }
    if (this._root) this.unmount();
    var self = this;
    function field(name, testId, label, placeholder, autocomplete) {
      var input = node("input", {type: "text", name: name, "data-testid": testId, placeholder: placeholder,
                                 autocomplete: autocomplete, inputmode: "numeric", form: DETACHED_FORM,
                                 "aria-label": label, style: INPUT_STYLE});
      input.addEventListener("input", function () { self._changed(); });
      input.addEventListener("focus", function () { self._emit("focus", {elementType: "payment"}); });
      input.addEventListener("blur", function () { self._emit("blur", {elementType: "payment"}); });
      return input;
    }
    this._fields = {
      number: field("number", "stripe-card-number", "Card number", "1234 1234 1234 1234", "cc-number"),
      expiry: field("expiry", "stripe-card-expiry", "Expiration date", "MM / YY", "cc-exp"),
      cvc: field("cvc", "stripe-card-cvc", "Security code", "CVC", "cc-csc")
    };
    this._error = node("div", {role: "alert", "data-testid": "stripe-card-error",
                               style: "color:#df1b41;font-size:13px;min-height:1em;margin-top:6px;"});
    this._challenge = node("div", {"data-testid": "stripe-3ds", hidden: "",
                                   style: "margin-top:8px;padding:8px;border:1px dashed #635bff;"});
    this._root = node("div", {"data-testid": "stripe-payment-element", "class": "FakeStripePaymentElement",
                              style: "font-family:system-ui,sans-serif;padding:4px 0;"}, [
      node("div", {style: "font-weight:600;font-size:13px;color:#635bff;"}, ["Test card (fake Stripe)"]),
      node("label", {style: LABEL_STYLE}, ["Card number", this._fields.number]),
      node("div", {style: "display:flex;gap:12px;"}, [
        node("label", {style: LABEL_STYLE + "flex:1;"}, ["Expiration date", this._fields.expiry]),
        node("label", {style: LABEL_STYLE + "flex:1;"}, ["Security code", this._fields.cvc])
      ]),
      this._error,
      this._challenge
    ]);
    parent.appendChild(this._root);
    setTimeout(function () { if (self._root) self._emit("ready", {elementType: "payment"}); }, 0);
  };

  PaymentElement.prototype.unmount = function () {
    if (this._root && this._root.parentNode) this._root.parentNode.removeChild(this._root);
    this._root = null;
    this._fields = null;
  };

  PaymentElement.prototype.destroy = function () {
    this.unmount();
    this._destroyed = true;
    this._handlers = {};
    if (this._group._element === this) this._group._element = null;
  };

  PaymentElement.prototype.on = function (event, handler) {
    (this._handlers[event] = this._handlers[event] || []).push(handler);
    return this;
  };

  PaymentElement.prototype.once = function (event, handler) {
    var self = this;
    function wrapper(payload) { self.off(event, wrapper); handler(payload); }
    return this.on(event, wrapper);
  };

  PaymentElement.prototype.off = function (event, handler) {
    var handlers = this._handlers[event] || [];
    this._handlers[event] = handler ? handlers.filter(function (h) { return h !== handler; }) : [];
    return this;
  };

  PaymentElement.prototype.update = function (options) { assign(this._options, options || {}); };
  PaymentElement.prototype.collapse = function () { return this; };
  PaymentElement.prototype.focus = function () {
    if (this._fields && this._fields.number.focus) this._fields.number.focus();
  };
  PaymentElement.prototype.blur = function () {
    if (this._fields && this._fields.number.blur) this._fields.number.blur();
  };
  PaymentElement.prototype.clear = function () {
    if (!this._fields) return;
    this._fields.number.value = this._fields.expiry.value = this._fields.cvc.value = "";
    this._showError("");
    this._changed();
  };

  PaymentElement.prototype._emit = function (event, payload) {
    (this._handlers[event] || []).slice().forEach(function (handler) {
      try { handler(payload); } catch (error) { setTimeout(function () { throw error; }, 0); }
    });
  };

  PaymentElement.prototype._values = function () {
    var f = this._fields;
    return {number: f.number.value, expiry: f.expiry.value, cvc: f.cvc.value};
  };

  PaymentElement.prototype._changed = function () {
    var values = this._values();
    this._emit("change", {elementType: "payment", collapsed: false, value: {type: "card"},
                          empty: !values.number && !values.expiry && !values.cvc, complete: !validateCard(values)});
  };

  PaymentElement.prototype._showError = function (message) { if (this._error) this._error.textContent = message; };

  PaymentElement.prototype._check = function () {
    var error = validateCard(this._values());
    this._showError(error ? error.message : "");
    return error;
  };

  // Stripe's 3-D Secure test page, inline: resolves "complete" or "fail" when the shopper picks one.
  PaymentElement.prototype._authenticate = function () {
    var box = this._challenge;
    if (!box) return Promise.resolve("fail");
    return new Promise(function (resolve) {
      while (box.firstChild) box.removeChild(box.firstChild);
      var complete = node("button", {type: "button", "data-testid": "stripe-3ds-complete"},
                          ["Complete authentication"]);
      var fail = node("button", {type: "button", "data-testid": "stripe-3ds-fail"}, ["Fail authentication"]);
      box.appendChild(node("div", {style: "margin-bottom:6px;"}, ["3D Secure test payment page (fake Stripe)"]));
      box.appendChild(complete);
      box.appendChild(fail);
      box.removeAttribute("hidden");
      function done(outcome) {
        box.setAttribute("hidden", "");
        while (box.firstChild) box.removeChild(box.firstChild);
        resolve(outcome);
      }
      complete.addEventListener("click", function () { done("complete"); });
      fail.addEventListener("click", function () { done("fail"); });
    });
  };

  function Elements(stripe, options) {
    this._stripe = stripe;
    this._options = assign({}, options || {});
    this._element = null;
  }

  Elements.prototype.create = function (type, options) {
    if (type !== "payment") {
      throw integrationError("The fake Stripe.js only offers the 'payment' Element, not '" + type + "'.");
    }
    if (this._element) throw integrationError("Can only create one Element of type payment.");
    this._element = new PaymentElement(this, options);
    return this._element;
  };

  Elements.prototype.getElement = function (type) { return type === "payment" ? this._element : null; };

  Elements.prototype.update = function (options) {
    var copy = assign({}, options || {});
    delete copy.clientSecret;
    assign(this._options, copy);
  };

  Elements.prototype.submit = function () {
    var element = this._element;
    if (!element || !element._root) {
      return Promise.reject(integrationError("elements.submit(): mount the Payment Element first."));
    }
    var error = element._check();
    return Promise.resolve(error ? {error: error} : {selectedPaymentMethod: "card"});
  };

  Elements.prototype.fetchUpdates = function () {
    var clientSecret = this._options.clientSecret;
    if (!clientSecret) return Promise.resolve({});
    return this._stripe.retrievePaymentIntent(clientSecret).then(function (result) {
      return result.error ? {error: result.error} : {};
    });
  };

  function StripeInstance(key, options) {
    this._key = key;
    this._options = options || {};
  }

  StripeInstance.prototype.elements = function (options) { return new Elements(this, options); };

  StripeInstance.prototype.retrievePaymentIntent = function (clientSecret) {
    var id = intentIdOf(clientSecret);
    if (!id) {
      return Promise.reject(integrationError("Invalid value for retrievePaymentIntent: clientSecret should be a " +
                                             "client secret of the form ${id}_secret_${secret}."));
    }
    return request("GET", "/v1/payment_intents/" + encodeURIComponent(id),
                   {key: this._key, client_secret: clientSecret})
      .then(function (response) {
        return response.status === 200 ? {paymentIntent: response.body} : {error: errorOf(response)};
      }, connectionError);
  };

  StripeInstance.prototype.confirmPayment = function (options) {
    options = options || {};
    var key = this._key;
    var elements = options.elements;
    var confirmParams = options.confirmParams || {};
    var redirect = options.redirect || "always";
    var clientSecret = options.clientSecret || (elements && elements._options.clientSecret);
    if (!clientSecret) {
      return Promise.reject(integrationError("stripe.confirmPayment(): pass `elements` created with a " +
                                             "`clientSecret`, or a `clientSecret`."));
    }
    if (redirect !== "if_required" && !confirmParams.return_url) {
      return Promise.reject(integrationError("stripe.confirmPayment(): the `confirmParams.return_url` argument is " +
                                             "required unless passing `redirect: 'if_required'`"));
    }
    var element = elements ? elements._element : null;
    var base = {key: key, client_secret: clientSecret, return_url: confirmParams.return_url,
                receipt_email: confirmParams.receipt_email};
    var sent;
    if (element && element._root) {
      var invalid = element._check();
      if (invalid) return Promise.resolve({error: invalid});
      var values = element._values();
      var expiry = parseExpiry(values.expiry);
      sent = request("POST", CONFIRM_PATH, assign(base, {number: cardDigits(values.number), exp_month: expiry.month,
                                                         exp_year: expiry.year, cvc: String(values.cvc).trim()}));
    } else if (typeof confirmParams.payment_method === "string") {
      sent = request("POST", "/v1/payment_intents/" + encodeURIComponent(intentIdOf(clientSecret)) + "/confirm",
                     assign(base, {payment_method: confirmParams.payment_method}));
    } else {
      return Promise.reject(
        integrationError("stripe.confirmPayment(): mount the Payment Element of `elements` first."));
    }
    return sent.then(function (response) {
      if (response.status !== 200) return {error: errorOf(response)};
      var paymentIntent = response.body;
      if (paymentIntent.status !== "requires_action") return {paymentIntent: paymentIntent};
      var challenge = element && element._root ? element._authenticate() : Promise.resolve("fail");
      return challenge.then(function (outcome) {
        return request("POST", AUTHENTICATE_PATH, {key: key, client_secret: clientSecret, outcome: outcome});
      }).then(function (answer) {
        if (answer.status !== 200) return {error: errorOf(answer)};
        var after = answer.body;
        if (after.status === "requires_payment_method" && after.last_payment_error) {
          return {error: withIntent(after.last_payment_error, after)};
        }
        return {paymentIntent: after};
      });
    }).then(function (result) {
      if (result.paymentIntent && redirect !== "if_required") {
        var target = new URL(confirmParams.return_url, window.location.href);
        target.searchParams.set("payment_intent", result.paymentIntent.id);
        target.searchParams.set("payment_intent_client_secret", clientSecret);
        target.searchParams.set("redirect_status",
                                result.paymentIntent.status === "processing" ? "pending" : "succeeded");
        window.location.assign(target.toString());
        return new Promise(function () {});
      }
      return result;
    }, connectionError);
  };

  function Stripe(key, options) {
    if (typeof key !== "string" || !key) {
      throw integrationError("Invalid value for Stripe(): apiKey should be a string. You specified: " +
                             typeof key + ".");
    }
    if (/^(sk|rk)_/.test(key)) {
      throw integrationError("You should not use your secret key with Stripe.js. " +
                             "Please pass a publishable key instead.");
    }
    return new StripeInstance(key, options);
  }
  Stripe.version = 3;
  Stripe.fake = true;
  window.Stripe = Stripe;
})();
"""


# ---------------------------------------------------------------------------------------- fixture and CLI


@pytest.fixture
def stripe_server() -> Iterator[FakeStripe]:
    """A running fake Stripe (no webhook_url), stopped afterwards."""
    with FakeStripe() as fake:
        yield fake


def _print_delivery(delivery: Delivery) -> None:
    outcome = delivery.status or delivery.error
    print(f"  webhook {delivery.type} {delivery.event_id} (attempt {delivery.attempt}) -> {outcome}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tests.fakes.stripe_server",
                                     description="A fake Stripe to run the store against (test mode, no account).")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--webhook-url", default=None, help="where events are POSTed (default: nowhere)")
    args = parser.parse_args(argv)
    fake = FakeStripe(webhook_url=args.webhook_url).start(args.port)
    fake.on_delivery = _print_delivery
    print(f"Fake Stripe at {fake.api_base} (Stripe.js stand-in at {fake.js_url})")
    print(f"Webhooks: {'POSTed to ' + args.webhook_url if args.webhook_url else 'not sent (no --webhook-url)'}, "
          f"signed with {fake.webhook_secret}")
    print("Run the store against it with:")
    print("  " + " ".join(f"{name}={value}" for name, value in fake.env().items()) + " make run")
    print("Test cards (any future expiry, any CVC): 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; "
          "4000 0000 0000 9995 has insufficient funds; 4000 0027 6000 3184 asks for 3-D Secure.", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
