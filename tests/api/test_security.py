"""Security review over HTTP, on SQLite and PostgreSQL (issue 13, part 6).

1. Every admin route, enumerated from the app itself, refuses a caller without a valid session
   (no token, a garbage token, an expired one, a revoked one).
2. A checkout paid through the API leaves no card number or CVV in any table or log line.
3. Hostile text (events, store descriptions, uploads, try-on images) stays inert: stored and
   answered as plain text, sanitised where it is shown as HTML, or refused.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import re
import secrets
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import inspect as sa_inspect, select as sa_select
from sqlalchemy.engine import Engine

import storefront
from storefront import wiring
from storefront.api.admin.session import ADMIN_TOKEN_HEADER, require_admin
from storefront.api.app import create_api
from storefront.config import Settings
from storefront.services.admin.auth import SESSION_LIFETIME
from storefront.services.payments.gateway import DECLINED, INSUFFICIENT_FUNDS, TestPaymentGateway
from tests.api.staff import PASSWORD, as_owner, owner_headers
from tests.fakes.shopify_server import FakeShopifyServer
from tests.ordering import FakeClock, order_payload, pick, seed_demo

API_DIR = Path(storefront.__file__).parent / "api"
SOURCE_DIR = Path(storefront.__file__).parent
ORDERS = "/api/printify/orders"


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("UPLOAD_DIR", raising=False)
    as_owner(monkeypatch)
    monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", "")
    for name in ("SHOPIFY_ACCESS_TOKEN", "SHOPIFY_STOREFRONT_TOKEN", "SHOPIFY_STOREFRONT_PRIVATE_TOKEN"):
        monkeypatch.setenv(name, "")
    return Settings()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(engine: Engine, settings: Settings, clock: FakeClock, tmp_path: Path) -> TestClient:
    provider = seed_demo(engine, tmp_path)
    api = create_api(settings, engine=engine, gateway=TestPaymentGateway(), provider=provider, clock=clock)
    return TestClient(api)


def _login(client: TestClient) -> dict[str, str]:
    return owner_headers(client)


@pytest.fixture
def admin(client: TestClient) -> dict[str, str]:
    return _login(client)


# --------------------------------------------------------------------------- 1. admin routes


def _depends_on_admin(dependant: Any) -> bool:
    """Whether require_admin is anywhere in the route's dependency tree."""
    return any(dep.call is require_admin or _depends_on_admin(dep) for dep in dependant.dependencies)


def api_routes(app: Any) -> list[tuple[str, APIRoute]]:
    """(path as served, route) of every API route of the app, walking into included routers (this
    FastAPI keeps them as included-router entries in app.routes) and mounts."""
    found: list[tuple[str, APIRoute]] = []

    def walk(routes: Any) -> None:
        for route in routes:
            if isinstance(route, APIRoute):
                found.append((route.path, route))
            elif hasattr(route, "effective_route_contexts"):
                for context in route.effective_route_contexts():
                    inner = (
                        context.starlette_route
                        if isinstance(context.starlette_route, APIRoute)
                        else context.original_route
                    )
                    if isinstance(inner, APIRoute):
                        found.append((context.path or inner.path, inner))
                    elif hasattr(inner, "routes"):
                        walk(inner.routes)
            elif hasattr(route, "routes"):
                walk(route.routes)

    walk(app.routes)
    return found


def admin_routes(client: TestClient) -> list[tuple[str, APIRoute]]:
    """The app's routes that depend on the admin guard, plus any whose path names /admin."""
    return [(path, r) for path, r in api_routes(client.app) if _depends_on_admin(r.dependant) or "/admin" in path]


def admin_routes_in_source() -> int:
    """How many route decorators the API modules put on routers built with ADMIN_ONLY."""
    count = 0
    for module in sorted(API_DIR.rglob("*.py")):
        text = module.read_text()
        guarded = re.findall(r"^(\w+)\s*=\s*APIRouter\([^)]*dependencies=ADMIN_ONLY", text, re.MULTILINE)
        for name in guarded:
            count += len(re.findall(rf"^@{name}\.(?:get|post|put|delete|patch)\(", text, re.MULTILINE))
    return count


def _filled(path: str) -> str:
    """The path with every parameter filled with a harmless value."""
    return re.sub(r"\{[^}]+\}", "1", path)


LOGIN = "/api/admin/login"


def _calls(client: TestClient) -> list[tuple[str, str]]:
    """Every (method, path) of the admin routes but the sign-in itself (tested on its own)."""
    return sorted({(m, _filled(path)) for path, r in admin_routes(client) for m in r.methods if path != LOGIN})


def _refusals(client: TestClient, headers: dict[str, str]) -> dict[tuple[str, str], int]:
    """Each admin call's status when it is not 401/403 (so an empty dict means all refused)."""
    wrong = {}
    for method, path in _calls(client):
        response = client.request(method, path, json={}, headers=headers)
        if response.status_code not in (401, 403):
            wrong[(method, path)] = response.status_code
    return wrong


def test_the_enumeration_finds_every_admin_route(client: TestClient) -> None:
    every = api_routes(client.app)
    # The walk sees every operation the app publishes (so no included router is missed).
    published = {(method.upper(), path) for path, item in client.app.openapi()["paths"].items() for method in item}  # type: ignore[attr-defined]
    walked = {(method, path) for path, r in every for method in r.methods if r.include_in_schema}
    assert walked == published
    in_source = admin_routes_in_source()
    guarded = [(path, r) for path, r in admin_routes(client) if _depends_on_admin(r.dependant)]
    assert in_source >= 20  # admin/session.py, admin/orders.py, admin/products.py, events.py, uploads.py
    assert len(guarded) >= in_source
    paths = {path for path, _ in guarded}
    for expected in ("/api/admin/session", "/api/events/admin/all", "/api/upload/images", "/api/orders/export.csv"):
        assert expected in paths
    # The walk tells guarded routes from public ones.
    public = {path for path, r in every if not _depends_on_admin(r.dependant)}
    assert {"/api/printify/orders", "/api/admin/login", "/api/shopify/products"} <= public


def test_every_admin_route_refuses_an_anonymous_call(client: TestClient) -> None:
    assert len(_calls(client)) > 20
    assert _refusals(client, {}) == {}


def test_the_sign_in_route_opens_nothing_without_the_password(client: TestClient) -> None:
    """/api/admin/login is the one /admin route a stranger may call: it answers no token without
    the right password, and never a server error."""
    for body in (
        {},
        {"username": "owner"},
        {"username": "owner", "password": "wrong"},
        {"username": "", "password": ""},
        {"username": {"$ne": None}, "password": {"$ne": None}},
        {"username": "owner", "password": [PASSWORD]},
    ):
        response = client.post(LOGIN, json=body)
        assert response.status_code in (401, 422), (body, response.status_code, response.text)
        assert "token" not in response.json()


@pytest.mark.parametrize(
    "token",
    ["garbage", "", " ", "0" * 64, secrets.token_hex(32), secrets.token_urlsafe(32), "null", "' OR '1'='1"],
    # Named, not shown: the random tokens would give each run (and each xdist worker) other test ids.
    ids=["garbage", "empty", "blank", "zeros", "random-hex", "random-urlsafe", "null", "sql"],
)
def test_every_admin_route_refuses_a_garbage_token(client: TestClient, token: str) -> None:
    assert _refusals(client, {ADMIN_TOKEN_HEADER: token}) == {}


def test_every_admin_route_refuses_an_expired_token(client: TestClient, clock: FakeClock) -> None:
    headers = _login(client)
    # The token opens the session while it is valid: the refusals below are the expiry's doing.
    assert client.get("/api/admin/session", headers=headers).status_code == 200
    clock.advance((SESSION_LIFETIME + timedelta(seconds=1)).total_seconds())
    assert client.get("/api/admin/session", headers=headers).status_code == 401
    assert _refusals(client, headers) == {}


def test_every_admin_route_refuses_a_revoked_token(client: TestClient) -> None:
    headers = _login(client)
    assert client.post("/api/admin/logout", headers=headers).status_code == 200
    assert _refusals(client, headers) == {}


def test_the_token_only_counts_in_its_header(client: TestClient, admin: dict[str, str]) -> None:
    token = admin[ADMIN_TOKEN_HEADER]
    assert client.get("/api/admin/session", headers=admin).status_code == 200
    assert _refusals(client, {"Authorization": f"Bearer {token}"}) == {}
    assert client.get("/api/admin/session", params={"x-admin-token": token}).status_code == 401
    assert client.get("/api/admin/session", cookies={"admin-token": token}).status_code == 401


# --------------------------------------------------------------------------- 2. card data

#: A distinctive Visa number the test gateway approves (Luhn-valid, not a decline test card).
APPROVED_NUMBER = "4716 2953 0871 6482"
DECLINED_NUMBER = "4000 0000 0000 0002"
FUNDS_NUMBER = "4000 0000 0000 9995"
#: Luhn-invalid: refused by the card checks before any charge.
INVALID_NUMBER = "4716 2953 0871 6489"
EXPIRY = "07/37"
CVV = "864"


def _card(number: str) -> dict[str, str]:
    return {"cardNumber": number, "expiryDate": EXPIRY, "cvv": CVV, "cardholderName": "Ada Lovelace"}


def _digits(number: str) -> str:
    return re.sub(r"\D", "", number)


def _forbidden(number: str) -> list[str]:
    """What must not appear for this number: the number as typed, without separators, with dashes,
    and every run of 8 digits of it that reaches beyond the last four."""
    digits = _digits(number)
    forms = {number, digits, "-".join(digits[i:i + 4] for i in range(0, len(digits), 4)), digits[:-4]}
    if "00000" not in digits:
        forms |= {digits[i:i + 8] for i in range(len(digits) - 8 + 1)}
    else:  # the decline cards: a window of zeros would match any zero-padded number
        forms.add(digits[-8:])
    return sorted(forms)


#: The CVV next to the expiry or named as one (a three-digit number alone is everywhere).
_CVV_NEAR = re.compile(
    rf"{re.escape(EXPIRY)}.{{0,40}}\b{CVV}\b|\b{CVV}\b.{{0,40}}{re.escape(EXPIRY)}|cvv\W{{0,6}}{CVV}\b|\b{CVV}\b\W{{0,6}}cvv",
    re.IGNORECASE | re.DOTALL,
)


def _leaks(text: str, numbers: list[str]) -> list[str]:
    found = [form for number in numbers for form in _forbidden(number) if form in text]
    stripped = re.sub(r"[\s-]", "", text)
    found += [f"stripped:{_digits(n)}" for n in numbers if _digits(n) in stripped]
    found += [m.group(0) for m in _CVV_NEAR.finditer(text)]
    return found


def _database_text(engine: Engine) -> str:
    """Every value of every row of every table, as text (bytes decoded)."""
    parts: list[str] = []
    inspector = sa_inspect(engine)
    from sqlalchemy import MetaData, Table

    metadata = MetaData()
    with engine.connect() as connection:
        for name in inspector.get_table_names():
            table = Table(name, metadata, autoload_with=connection)
            for row in connection.execute(sa_select(table)):
                for column, value in zip(table.columns, row, strict=True):
                    if isinstance(value, (bytes, bytearray, memoryview)):
                        value = bytes(value).decode("utf-8", "replace")
                    elif isinstance(value, (dict, list)):
                        value = json.dumps(value)
                    parts.append(f"{name}.{column.name}={value}")
    return "\n".join(parts)


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    names = ["", "uvicorn", "uvicorn.error", "uvicorn.access", "fastapi", "starlette", "httpx", "httpcore",
             "storefront", "sqlalchemy.engine", "sqlalchemy.pool"]
    for name in names:
        caplog.set_level(logging.DEBUG, logger=name or None)
    yield caplog


def _log_text(caplog: pytest.LogCaptureFixture) -> str:
    lines = [caplog.text]
    for record in caplog.records:
        lines.append(record.getMessage())
        lines.append(repr(record.args))
        lines.append(repr({k: v for k, v in vars(record).items() if k not in ("args", "msg")}))
    return "\n".join(lines)


def test_no_card_number_or_cvv_is_stored_or_logged(
    client: TestClient, engine: Engine, all_logs: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    tee = pick(engine)
    answers: list[str] = []

    def place(key: str) -> tuple[str, dict[str, str]]:
        response = client.post(ORDERS, json=order_payload((tee, 1)), headers={"Idempotency-Key": key})
        assert response.status_code == 201, response.text
        answers.append(response.text)
        body = response.json()
        return body["order"]["id"], {"X-Order-Token": body["accessToken"]}

    def pay(number: str, headers: dict[str, str], card: dict[str, str], payment_id: str) -> int:
        payload = {"paymentId": payment_id, "shopId": "store", "paymentMethod": "card", "cardData": card}
        response = client.post(f"{ORDERS}/{number}/process-payment", json=payload, headers=headers)
        answers.append(response.text)
        return response.status_code

    first, first_token = place("security-1")
    # A card check, a Luhn-invalid number, a declined card, then the approved one on the same order.
    check = client.post("/api/payments/validate-card", json={"cardData": _card(APPROVED_NUMBER)})
    assert check.status_code == 200 and check.json()["valid"] is True, check.text
    answers.append(check.text)
    bad_check = client.post("/api/payments/validate-card", json={"cardData": _card(INVALID_NUMBER)})
    assert bad_check.json()["valid"] is False
    answers.append(bad_check.text)
    assert pay(first, first_token, _card(INVALID_NUMBER), "pay_1731594826001_sec001") == 422
    declined = client.post(
        f"{ORDERS}/{first}/process-payment",
        json={"paymentId": "pay_1731594826002_sec002", "shopId": "store", "paymentMethod": "card",
              "cardData": _card(DECLINED_NUMBER)},
        headers=first_token,
    )
    answers.append(declined.text)
    assert declined.status_code == 402 and DECLINED in declined.text
    assert pay(first, first_token, _card(APPROVED_NUMBER), "pay_1731594826003_sec003") == 200
    # Another order declined for funds, one paid with a wrong token, one that does not exist.
    second, second_token = place("security-2")
    assert pay(second, second_token, _card(FUNDS_NUMBER), "pay_1731594826004_sec004") == 402
    assert INSUFFICIENT_FUNDS in answers[-1]
    assert pay(second, {"X-Order-Token": "wrong"}, _card(APPROVED_NUMBER), "pay_1731594826005_sec005") == 404
    assert pay("SF-999999", second_token, _card(APPROVED_NUMBER), "pay_1731594826006_sec006") == 404
    # A body FastAPI cannot parse, holding the card number.
    broken = client.post(
        f"{ORDERS}/{second}/process-payment",
        content=(
            f'{{"cardData": {{"cardNumber": "{APPROVED_NUMBER}", "cvv": "{CVV}", "expiryDate": "{EXPIRY}"'
        ).encode(),
        headers={**second_token, "Content-Type": "application/json"},
    )
    answers.append(broken.text)
    assert broken.status_code == 422

    numbers = [APPROVED_NUMBER, DECLINED_NUMBER, FUNDS_NUMBER, INVALID_NUMBER]
    stored = _database_text(engine)
    # The scan reads the orders: the paid one keeps its brand and last four digits (the design).
    assert _digits(APPROVED_NUMBER)[-4:] in stored and "visa" in stored.lower()
    assert _leaks(stored, numbers) == []
    assert _leaks(_log_text(all_logs), numbers) == []
    out, err = capfd.readouterr()
    assert _leaks(out + err, numbers) == []
    assert _leaks("\n".join(answers), numbers) == []
    # The capture did see the run (the checks above would pass on an empty log otherwise).
    assert any("/process-payment" in record.getMessage() for record in all_logs.records)


def test_the_scan_would_find_a_stored_card(engine: Engine) -> None:
    """The scanner itself: a card number and CVV put in a text column are found."""
    from sqlalchemy import text

    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE leak_probe (note VARCHAR(200))"))
        connection.execute(
            text("INSERT INTO leak_probe (note) VALUES (:v)"), {"v": f"card 4716-2953-0871-6482 {EXPIRY} cvv {CVV}"}
        )
    try:
        found = _leaks(_database_text(engine), [APPROVED_NUMBER])
        assert "4716-2953-0871-6482" in found and f"stripped:{_digits(APPROVED_NUMBER)}" in found
        assert any(CVV in item for item in found)
    finally:
        with engine.begin() as connection:
            connection.execute(text("DROP TABLE leak_probe"))


def test_the_checkout_state_holds_no_card_field() -> None:
    """Reflex state is serialised (to Redis with REDIS_URL): no var of the checkout may hold card data."""
    from storefront.state.checkout import CheckoutState

    names = (
        set(CheckoutState.get_fields())
        | set(CheckoutState.base_vars)
        | set(getattr(CheckoutState, "_backend_vars", None) or {})
    )
    assert {"field_errors", "_payload"} <= names  # the state's fields, backend ones included, were read
    assert [n for n in names if re.search(r"card|cvv|cvc|expir|pan\b", n, re.IGNORECASE)] == []


# --------------------------------------------------------------------------- 3. hostile text

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


def _event(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "title": f"Tour {SCRIPT}",
        "description": f"Night {IMG} and {SCRIPT}\n<a href=\"javascript:alert(1)\">x</a>",
        "location": f"{IMG} Austin",
        "startDate": "2031-12-05T19:00",
        "endDate": "2031-12-05T23:00",
        "isActive": True,
        "links": [{"title": f"Tickets {SCRIPT}", "url": "https://tickets.example.com"}],
    }
    data.update(overrides)
    return data


def test_hostile_event_text_is_answered_as_plain_json_text(client: TestClient, admin: dict[str, str]) -> None:
    created = client.post("/api/events", json=_event(), headers=admin)
    assert created.status_code == 201, created.text
    response = client.get("/api/events")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    [event] = response.json()
    # Kept as the text typed (the page shows it as text, never as markup).
    assert (event["title"], event["location"]) == (f"Tour {SCRIPT}", f"{IMG} Austin")
    assert event["description"].startswith(f"Night {IMG}")
    assert event["links"][0]["title"] == f"Tickets {SCRIPT}"


@pytest.mark.parametrize(
    "field, value",
    [
        ("links", [{"title": "Tickets", "url": "javascript:alert(1)"}]),
        ("links", [{"title": "Tickets", "url": "JaVaScRiPt:alert(1)"}]),
        ("links", [{"title": "Tickets", "url": " javascript:alert(1)"}]),
        ("links", [{"title": "Tickets", "url": "data:text/html,<script>alert(1)</script>"}]),
        ("videos", ["javascript:alert(1)"]),
        ("videos", ["data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="]),
        ("images", ["javascript:alert(1)"]),
        ("images", ["data:image/svg+xml;base64,PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+"]),
        ("images", ["/uploads/../admin"]),
    ],
)
def test_event_addresses_that_could_run_script_are_refused(
    client: TestClient, admin: dict[str, str], field: str, value: Any
) -> None:
    response = client.post("/api/events", json=_event(**{field: value}), headers=admin)
    assert response.status_code == 422, response.text
    assert field in response.json()["details"]
    assert client.get("/api/events/admin/all", headers=admin).json() == []


def _raw_html_sites() -> list[str]:
    """Every place in the app's source that renders raw HTML."""
    sites = []
    for path in sorted(SOURCE_DIR.rglob("*.py")):
        for line in path.read_text().splitlines():
            if re.search(r"rx\.html\(|dangerously|innerHTML|\.html\(|Html\(", line):
                sites.append(f"{path.relative_to(SOURCE_DIR).as_posix()}:{line.strip()}")
    return sites


def test_raw_html_is_rendered_only_from_the_sanitised_store_description() -> None:
    sites = _raw_html_sites()
    # One line of one page, holding one raw-HTML call: of the sanitised description; and the first
    # view's element, whose raw HTML in React is the empty string (the server writes escaped markup
    # into it: storefront/web/first_view.py, tests/unit/web/test_first_view.py).
    calls = [
        (site.split(":", 1)[0], re.findall(r"rx\.html\([^)]*\)|dangerously|innerHTML|Html\(", site)) for site in sites
    ]
    assert calls == [
        ("components/admin/product_editor_tab.py", ['rx.html(row["description_preview"].to(str)']),
        ("components/admin/store_pages_card.py", ["rx.html(S.preview_html)"]),
        ("components/product_card.py", ['rx.html("", **props)']),
        ("pages/shopify.py", ["rx.html(S.description_html)"]),
        ("pages/store_pages.py", ['rx.html(StorePageState.html, data_testid="store-page-text")']),
    ]
    # The editor's description preview, a store page and its preview: each only from the sanitiser's output.
    editor = (SOURCE_DIR / "state" / "admin" / "editor.py").read_text()
    assert set(re.findall(r"description_preview\s*=\s*([\w.]+)", editor)) == {"descriptions.description_html"}
    assert set(re.findall(r'"description_preview":\s*([\w.]+)', editor)) == {"descriptions.description_html"}
    pages_admin = (SOURCE_DIR / "state" / "admin" / "store_pages.py").read_text()
    assert re.findall(r"self\.preview_html\s*=\s*await asyncio\.to_thread\((\w+)", pages_admin) == [
        "_preview",
        "_preview",
    ]
    assert "return store_pages.render_markdown(" in pages_admin
    pages_state = (SOURCE_DIR / "state" / "store_pages.py").read_text()
    assert re.findall(r"self\.html, self\.route = (\w+)", pages_state) == ["html"]
    assert "html = await asyncio.to_thread(store_page_html, route)" in pages_state
    assert "return sanitize_html(" in (SOURCE_DIR / "services" / "content" / "store_pages.py").read_text()
    assert "return sanitize_html(" in (SOURCE_DIR / "services" / "admin" / "descriptions.py").read_text()
    state = (SOURCE_DIR / "state" / "shopify.py").read_text()
    # The var shown as HTML is only ever set from the sanitiser's output.
    assignments = re.findall(r"self\.description_html\s*=\s*(\w+)", state)
    assert assignments == ["description"]
    assert re.search(r"description\s*=\s*await asyncio\.to_thread\(sanitize_html, product\.body_html\)", state)
    # The event card and dialog show every event text as text.
    cards = (SOURCE_DIR / "components" / "event_card.py").read_text()
    assert "rx.html" not in cards and "dangerously" not in cards


HOSTILE_DESCRIPTIONS = [
    SCRIPT,
    IMG,
    '<svg onload=alert(1)><p>x</p></svg>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="&#x6A;avascript:alert(1)">x</a>',
    '<iframe src="https://evil.example"></iframe>',
    '<p style="background:url(javascript:alert(1))" onclick="alert(1)">x</p>',
    '<scr<script>ipt>alert(1)</script>',
    '<<script>script>alert(1)<</script>/script>',
    '<img src="https://cdn.example/a.png" onerror="alert(1)">',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    '<div><object data="data:text/html,<script>alert(1)</script>"></object></div>',
    '<p title="x" onmouseover=alert(1)//>hover</p>',
    "<body onload=alert(1)>",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="https://evil.example/">',
    '<form action="https://evil.example"><button formaction="javascript:alert(1)">x</button></form>',
]


def _unsafe(html: str) -> list[str]:
    lowered = html.lower()
    tags = re.findall(r"<\s*([a-z0-9]+)", lowered)
    bad_tags = {t for t in tags if t in {"script", "svg", "iframe", "object", "embed", "style", "math", "body",
                                         "meta", "base", "form", "button", "link"}}
    attributes = re.findall(r"<[^>]*\s(on\w+|style|formaction)\s*=", lowered)
    urls = re.findall(r"(?:href|src)\s*=\s*\"\s*(?!https?:|mailto:)[^\"]*", lowered)
    return sorted(bad_tags) + attributes + urls


@pytest.fixture
def shopify(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Iterator[tuple[FakeShopifyServer, Settings]]:
    with FakeShopifyServer() as fake:
        monkeypatch.setenv("SHOPIFY_STORE_DOMAIN", fake.domain)
        monkeypatch.setenv("SHOPIFY_STOREFRONT_TOKEN", fake.token)
        monkeypatch.setenv("SHOPIFY_API_BASE", fake.base_url)
        yield fake, Settings()


def test_hostile_store_descriptions_come_out_sanitised(
    shopify: tuple[FakeShopifyServer, Settings], engine: Engine
) -> None:
    """The path the sanitiser's unit tests miss: a real store client, over HTTP, to the API."""
    fake, shop_settings = shopify
    # The check below flags every one of these as it was sent.
    assert all(_unsafe(html) for html in HOSTILE_DESCRIPTIONS)
    ids = [p["id"] for p in fake.active_products()][: len(HOSTILE_DESCRIPTIONS)]
    assert len(ids) == len(HOSTILE_DESCRIPTIONS)
    with fake.lock:
        for product_id, html in zip(ids, HOSTILE_DESCRIPTIONS, strict=True):
            fake.products[product_id]["body_html"] = f"<p>Safe text.</p>{html}"
    api = create_api(shop_settings, engine=engine)  # the routes' rate limit counts in the database
    api.state.store_catalogue = wiring.store_catalogue(shop_settings)
    with TestClient(api) as client:
        assert client.get("/api/shopify/test").json()["status"] == "connected"
        listed = client.get("/api/shopify/products", params={"limit": 250})
        assert listed.status_code == 200, listed.text
        by_id = {p["id"]: p["body_html"] for p in listed.json()["products"]}
        for product_id in ids:
            one = client.get(f"/api/shopify/products/{product_id}")
            assert one.status_code == 200, one.text
            for shown in (by_id[product_id], one.json()["body_html"]):
                assert "<p>Safe text.</p>" in shown  # the description did come through
                assert _unsafe(shown) == [], shown


# --------------------------------------------------------------------------- uploads and try-on


def _gif_with_html_comment() -> bytes:
    """A real, decodable GIF whose comment block holds an HTML page (a GIF/HTML polyglot)."""
    out = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(out, "GIF", comment=b"<html><script>alert(1)</script></html>")
    return out.getvalue()


SVG = (
    b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(1)</script></svg>"
)
HTML = b"<!doctype html><html><body><script>alert(document.cookie)</script></body></html>"
GIF_HEADER_THEN_HTML = b"GIF89a/*<html><script>alert(1)</script></html>*/=1;"


def _written(settings: Settings) -> list[Path]:
    return sorted(p for root in (settings.upload_dir, settings.media_dir) if root.exists()
                  for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize(
    "name, data, content_type",
    [
        ("logo.svg", SVG, "image/svg+xml"),
        ("logo.png", SVG, "image/png"),
        ("photo.png", HTML, "image/png"),
        ("photo.gif", GIF_HEADER_THEN_HTML, "image/gif"),
        ("photo.html", HTML, "text/html"),
    ],
)
def test_hostile_uploads_are_refused_and_nothing_is_written(
    client: TestClient, admin: dict[str, str], settings: Settings, name: str, data: bytes, content_type: str
) -> None:
    before = _written(settings)
    response = client.post("/api/upload/images", files=[("images", (name, data, content_type))], headers=admin)
    assert response.status_code == 422, response.text
    assert _written(settings) == before


def test_a_decodable_gif_html_polyglot_is_stored_only_as_a_clean_webp(
    client: TestClient, admin: dict[str, str], settings: Settings
) -> None:
    polyglot = _gif_with_html_comment()
    assert b"<script>" in polyglot
    response = client.post("/api/upload/images", files=[("images", ("x.gif", polyglot, "image/gif"))], headers=admin)
    if response.status_code == 422:
        assert _written(settings) == []
        return
    assert response.status_code == 200, response.text
    [stored] = response.json()["files"]
    assert stored["url"].endswith(".webp")
    written = _written(settings)
    assert written
    for path in written:
        content = path.read_bytes()
        assert b"<script" not in content.lower() and b"<html" not in content.lower(), path
        assert content[:4] == b"RIFF" and content[8:12] == b"WEBP", path
    served = client.get(stored["url"])
    assert served.status_code == 200
    assert served.headers["content-type"] == "image/webp"


def _data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _png() -> str:
    out = io.BytesIO()
    Image.new("RGB", (64, 64), "white").save(out, "PNG")
    return _data_url("image/png", out.getvalue())


@pytest.fixture
def tryon_client(engine: Engine, settings: Settings) -> TestClient:
    from storefront.services.tryon.local import LocalTryOnEngine

    return TestClient(create_api(settings, engine=engine, tryon_engine=LocalTryOnEngine()))


@pytest.mark.parametrize(
    "field, value",
    [
        ("userPhoto", _data_url("image/svg+xml", SVG)),
        ("selectedItem", _data_url("image/svg+xml", SVG)),
        ("userPhoto", _data_url("image/png", SVG)),
        ("userPhoto", _data_url("text/html", HTML)),
        ("selectedItem", _data_url("image/gif", GIF_HEADER_THEN_HTML)),
    ],
)
def test_try_on_refuses_script_bearing_images(tryon_client: TestClient, field: str, value: str) -> None:
    body = {"userPhoto": _png(), "selectedItem": _png(), field: value}
    response = tryon_client.post("/api/try-on", json=body)
    assert response.status_code == 422, response.text
    assert field in response.json()["details"]
    assert "<script" not in response.text


def test_every_kind_of_answer_says_nosniff(client: TestClient) -> None:
    answers = {
        "json": client.get("/api/events"),
        "refusal": client.get("/api/orders"),
        "invalid": client.get("/api/events", params={"offset": "x"}),
        "unknown path": client.get("/api/no-such-route"),
        "docs": client.get("/api/openapi.json"),
    }
    assert {name: answer.status_code for name, answer in answers.items()} == {
        "json": 200, "refusal": 401, "invalid": 422, "unknown path": 404, "docs": 200,
    }
    assert {name: answer.headers.get("x-content-type-options") for name, answer in answers.items()} == dict.fromkeys(
        answers, "nosniff"
    )
