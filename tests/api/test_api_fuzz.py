"""The HTTP API fuzzed from its own OpenAPI document (schemathesis): every operation, with
schema-conforming and schema-violating requests, must answer a documented status with the
documented content type and shape, never a 5xx, every refusal a JSON object with "error", and
nothing may be logged as an unhandled error.

Runs on SQLite only: the routes and their validation are the same on both backends, the database
tests of tests/api cover PostgreSQL, and a fuzz run there would double the suite's time.

Per operation: EXAMPLES (25; FUZZ_EXAMPLES overrides) schema-conforming requests, as many
schema-violating ones (where any exists), the same again against real records (an unpaid order
with its token, a product and its shop, an event, a collection) when the path names them, and the
documented request examples (a valid event, product, card...). About 40 s on SQLite.

Every operation is included:
- admin routes are called with a live admin session (x-admin-token), so the fuzzer reaches past
  the 401; each example of POST /api/admin/logout gets a session of its own (logging out revokes it);
- POST /api/try-on runs the local engine: refusals are cheap, a fuzzed data URL is never a photo
  with a person in it, and past 20 a minute the route answers its documented 429;
- payment routes and new orders are limited per address: PAYMENT_REQUESTS_PER_MINUTE and
  ORDERS_PER_HOUR are raised so the fuzzer reaches the rules (a 429 would still be a documented answer);
- POST /api/upload/images gets fuzzed multipart bodies (never an image), POST /api/printify/webhooks
  unsigned or wrongly signed bodies (401/400).

Every operation that takes a body also gets its fuzzed bodies with control characters in every
string (a clean 4xx or success, never a 5xx) and padded one byte past the route's body cap (always
413 in the {error, details} shape, the body refused before the route reads it).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from hypothesis.strategies import SearchStrategy
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.schemas import APIOperation, BaseSchema as BaseOpenAPISchema
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.api.app import BODY_CAPS, create_api
from storefront.api.body_limit import BodyLimit
from storefront.config import Settings
from storefront.db import make_engine, migrate
from storefront.models import AdminSession, StaffPolicy, utcnow
from storefront.services.admin import product_rows
from storefront.services.admin.auth import SESSION_LIFETIME, hash_token
from storefront.services.payments.gateway import TestPaymentGateway
from tests.ordering import order_payload, pick, seed_demo

#: Examples per operation (hypothesis); derandomized so CI sees the same requests every run.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
ADMIN_TOKEN_HEADER = "x-admin-token"
ORDER_TOKEN_HEADER = "X-Order-Token"
LOGOUT = ("POST", "/api/admin/logout")
#: Requiring two-factor sign-in would hold the owner's session (no second factor) at 403 for every
#: operation fuzzed after it: the policy is put back after each of its examples.
TWO_FACTOR_POLICY = ("POST", "/api/admin/two-factor/policy")
#: Loggers whose errors mean an answer went wrong (the app's own, and the server's).
LOGGERS = ("storefront", "uvicorn", "uvicorn.error", "starlette", "fastapi")


@pytest.fixture(scope="module")
def fuzz_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, Path]]:
    """A migrated SQLite database of its own (the shared `engine` fixture is per test and backend)."""
    root = tmp_path_factory.mktemp("fuzz")
    url = f"sqlite:///{root / 'fuzz.db'}"
    migrate(url)
    engine = make_engine(url)
    yield engine, root
    engine.dispose()


@pytest.fixture(scope="module")
def api_schema(fuzz_engine: tuple[Engine, Path]):  # type: ignore[no-untyped-def]
    engine, root = fuzz_engine
    with pytest.MonkeyPatch.context() as env:
        env.setenv("DATA_DIR", str(root))
        env.delenv("UPLOAD_DIR", raising=False)
        env.setenv("ADMIN_USERNAME", "owner")
        env.setenv("ADMIN_PASSWORD", "correct horse battery")
        env.setenv("PAYMENT_REQUESTS_PER_MINUTE", "100000")
        env.setenv("ORDERS_PER_HOUR", "100000")
        env.setenv("PRINTIFY_WEBHOOK_SECRET", "fuzz-webhook-secret")
        for name in ("SHOPIFY_STORE_DOMAIN", "SHOPIFY_ACCESS_TOKEN", "SHOPIFY_STOREFRONT_TOKEN",
                     "SHOPIFY_STOREFRONT_PRIVATE_TOKEN", "PRINTIFY_API_TOKEN", "TRYON_ENDPOINT"):
            env.delenv(name, raising=False)
        provider = seed_demo(engine, root)
        app = create_api(Settings(), engine=engine, gateway=TestPaymentGateway(), provider=provider)
    return schemathesis.openapi.from_asgi("/api/openapi.json", app)


def _admin_token(engine: Engine) -> str:
    """A live admin session, made the way a sign-in makes it (the fuzzer's failed sign-ins may
    have the login throttled for this address by now)."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    with Session(engine) as session:
        session.add(
            AdminSession(
                token_hash=hash_token(token), username="owner", client="fuzz", created_at=now,
                expires_at=now + SESSION_LIFETIME,
            )
        )
        session.commit()
    return token


def _stop_requiring_two_factor(engine: Engine) -> None:
    with Session(engine) as session:
        policy = session.get(StaffPolicy, 1)
        if policy is not None and policy.require_two_factor:
            policy.require_two_factor = False
            session.add(policy)
            session.commit()


@pytest.fixture(scope="module")
def admin_token(fuzz_engine: tuple[Engine, Path]) -> str:
    return _admin_token(fuzz_engine[0])


@pytest.fixture
def server_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    for name in LOGGERS:
        caplog.set_level(logging.WARNING, logger=name)
    yield caplog
    unhandled = [
        record
        for record in caplog.records
        if record.exc_info
        or getattr(record, "traceback_logged", False)
        or (record.levelno >= logging.ERROR and record.name.split(".")[0] in {n.split(".")[0] for n in LOGGERS})
    ]
    assert not unhandled, "\n".join(f"{r.name} {r.levelname}: {r.getMessage()}" for r in unhandled)


def _is_admin(operation: APIOperation) -> bool:
    """An admin-only route: its x-admin-token header is required by the admin guard (the order
    status and refresh-config routes take it optionally and are fuzzed without a live one)."""
    if operation.path.startswith(("/api/orders/{order_id}/status", "/api/printify/refresh")):
        return False
    parameters = operation.definition.raw.get("parameters", [])
    return any(p.get("in") == "header" and p.get("name", "").lower() == ADMIN_TOKEN_HEADER for p in parameters)


def _fuzz(
    operation: APIOperation,
    mode: GenerationMode | None,
    engine: Engine,
    admin_token: str,
    statuses: Counter[int],
    strategy: SearchStrategy[schemathesis.Case] | None = None,
    *,
    examples: int = EXAMPLES,
    status: int | None = None,
) -> None:
    """Requests of the mode (or from `strategy`) against the operation, each answer checked (and
    its status `status` when given)."""
    label = f"{operation.method.upper()} {operation.path}"

    @given(case=strategy if strategy is not None else operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case: schemathesis.Case) -> None:
        if (case.method.upper(), case.path) == LOGOUT:
            case.headers = {**(case.headers or {}), ADMIN_TOKEN_HEADER: _admin_token(engine)}
        elif _is_admin(operation):
            case.headers = {**(case.headers or {}), ADMIN_TOKEN_HEADER: admin_token}
        response = case.call()
        if (case.method.upper(), case.path) == TWO_FACTOR_POLICY:
            _stop_requiring_two_factor(engine)
        statuses[response.status_code] += 1
        case.validate_response(response, checks=CHECKS)
        if 400 <= response.status_code < 500:
            body = response.json()
            assert isinstance(body, dict) and "error" in body, (label, response.status_code, response.text)
        if status is not None:
            assert response.status_code == status, (label, response.status_code, response.text[:300])

    run()


#: Every control character, DEL, and the separators and marks that trip up text handling.
CONTROL_CHARACTERS = "".join(chr(code) for code in range(32)) + "\x7f\u2028\u2029\ufeff\ud7ff"
#: Oversized requests per operation: each is megabytes, and every one must be refused the same way.
OVERSIZED_EXAMPLES = 3


def _with_control_characters(body: object) -> object:
    """The body with control characters around every string in it (keys too)."""
    if isinstance(body, str):
        return CONTROL_CHARACTERS + body + CONTROL_CHARACTERS
    if isinstance(body, dict):
        return {_with_control_characters(k): _with_control_characters(v) for k, v in body.items()}
    if isinstance(body, list):
        return [_with_control_characters(item) for item in body]
    return body


def _oversized(case: schemathesis.Case, limit: int) -> schemathesis.Case:
    """The case with its body grown one byte past `limit` (a padding field, item or text)."""
    padding = "x" * (limit + 1)
    if isinstance(case.body, dict):
        case.body = {**case.body, "padding": padding}
    elif isinstance(case.body, list):
        case.body = [*case.body, padding]
    else:
        case.body = padding
    return case


def _takes_a_body(operation: APIOperation) -> bool:
    return bool(operation.definition.raw.get("requestBody"))


def _on_records(case: schemathesis.Case, names: set[str], records: dict[str, str]) -> schemathesis.Case:
    case.path_parameters = {**(case.path_parameters or {}), **{name: records[name] for name in names}}
    if "order_id" in names:
        case.headers = {**(case.headers or {}), ORDER_TOKEN_HEADER: records[ORDER_TOKEN_HEADER]}
    return case


@pytest.fixture(scope="module")
def records(api_schema: BaseOpenAPISchema, fuzz_engine: tuple[Engine, Path], admin_token: str) -> dict[str, str]:
    """Real ids for the path parameters of the second pass: a placed (unpaid) order with its
    access token, a product with its shop, an event."""
    engine = fuzz_engine[0]
    chosen = pick(engine)
    with Session(engine) as session:
        shop_id = product_rows.shop_of(session, chosen.product_id)
    with TestClient(api_schema.app) as client:
        placed = client.post("/api/printify/orders", json=order_payload((chosen, 1)))
        assert placed.status_code == 201, placed.text
        event = client.post(
            "/api/events",
            headers={ADMIN_TOKEN_HEADER: admin_token},
            json={
                "title": "Step Show",
                "description": "Stepping.",
                "location": "Albany",
                "startDate": "2030-04-05T19:00",
            },
        )
        assert event.status_code == 201, event.text
    return {
        "order_id": placed.json()["order"]["id"],
        ORDER_TOKEN_HEADER: placed.json()["accessToken"],
        "product_id": chosen.product_id,
        "shop_id": str(shop_id),
        "event_id": str(event.json()["id"]),
        "category": "hwdkn",
    }


def test_the_api_answers_every_request_as_documented(
    api_schema: BaseOpenAPISchema,
    admin_token: str,
    fuzz_engine: tuple[Engine, Path],
    records: dict[str, str],
    server_logs: pytest.LogCaptureFixture,
) -> None:
    failures: list[str] = []
    #: Operations with nothing to negate (no parameters, no body, or only free-form strings).
    nothing_to_negate: list[str] = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 40, [f"{o.method} {o.path}" for o in operations]
    for operation in operations:
        statuses: Counter[int] = Counter()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _fuzz(operation, mode, fuzz_engine[0], admin_token, statuses)
            except Unsatisfiable:
                if mode is GenerationMode.POSITIVE:
                    failures.append(f"{operation.method.upper()} {operation.path}: no request could be generated")
                nothing_to_negate.append(f"{operation.method.upper()} {operation.path}")
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - every operation runs; all failures reported
                failures.append(f"{operation.method.upper()} {operation.path} [{mode.value}]: {exc}")
        # Against real records: the path names an existing order (with its token), product,
        # shop or event, so the fuzzed bodies and queries reach the rules behind the lookup.
        names = set(re.findall(r"{(\w+)}", operation.path))
        if names and names <= set(records):
            path = {name: records[name] for name in names}
            try:
                strategy = operation.as_strategy(
                    generation_mode=GenerationMode.POSITIVE,
                    path_parameters=path,
                    headers={ORDER_TOKEN_HEADER: records[ORDER_TOKEN_HEADER]} if "order_id" in names else None,
                )
                _fuzz(operation, None, fuzz_engine[0], admin_token, statuses, strategy)
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001
                failures.append(f"{operation.method.upper()} {operation.path} [records]: {exc}")
        # The documented examples (valid forms: an event that is created, a product, a card).
        for strategy in api_schema.get_strategies_from_examples(operation):
            if names and names <= set(records):
                # The examples against the real records too: a good card pays the order, a
                # valid editor form saves the product.
                strategy = strategy.map(lambda case, names=names: _on_records(case, names, records))
            try:
                _fuzz(operation, None, fuzz_engine[0], admin_token, statuses, strategy)
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001
                failures.append(f"{operation.method.upper()} {operation.path} [examples]: {exc}")
        print(f"{operation.method.upper()} {operation.path}: {dict(sorted(statuses.items()))}")
    print(f"fuzzed {len(operations)} operations; no schema-violating request exists for: {nothing_to_negate}")
    assert not failures, "\n\n".join(failures)


def test_bodies_with_control_characters_or_over_the_cap_are_refused_cleanly(
    api_schema: BaseOpenAPISchema,
    admin_token: str,
    fuzz_engine: tuple[Engine, Path],
    server_logs: pytest.LogCaptureFixture,
) -> None:
    failures: list[str] = []
    caps = BodyLimit(None, BODY_CAPS)  # type: ignore[arg-type]  (asked for its caps only)
    operations = [op for op in (result.ok() for result in api_schema.get_all_operations()) if _takes_a_body(op)]
    assert len(operations) >= 20, [f"{o.method} {o.path}" for o in operations]
    for operation in operations:
        label = f"{operation.method.upper()} {operation.path}"
        cap = caps.cap_for(operation.path)
        assert cap is not None, label
        statuses: Counter[int] = Counter()
        positive = operation.as_strategy(generation_mode=GenerationMode.POSITIVE)

        def poisoned(case: schemathesis.Case) -> schemathesis.Case:
            case.body = _with_control_characters(case.body)
            return case

        for kind, strategy, examples, status in (
            ("control characters", positive.map(poisoned), EXAMPLES, None),
            ("oversized", positive.map(lambda case, limit=cap.limit: _oversized(case, limit)), OVERSIZED_EXAMPLES, 413),
        ):
            try:
                _fuzz(
                    operation, None, fuzz_engine[0], admin_token, statuses, strategy, examples=examples, status=status
                )
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - every operation runs; all failures reported
                failures.append(f"{label} [{kind}]: {exc}")
        print(f"{label}: {dict(sorted(statuses.items()))}")
    assert not failures, "\n\n".join(failures)
