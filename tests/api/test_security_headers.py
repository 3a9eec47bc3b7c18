"""The security headers of every answer (storefront/api/security_headers.py): nosniff, no framing,
the referrer policy, HSTS in production, and a Content-Security-Policy that names each page's own
inline scripts by hash (never 'unsafe-inline' for scripts) and lets nothing load from a JSON answer."""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import re
from pathlib import Path

import brotli
import pytest
from fastapi.testclient import TestClient
from reflex.utils.precompressed_staticfiles import PrecompressedStaticFiles
from sqlalchemy.engine import Engine
from starlette.applications import Starlette
from starlette.routing import Mount

from storefront.api.app import create_api
from storefront.api.security_headers import (
    HSTS,
    REFERRER_POLICY,
    STRICT_POLICY,
    PagePolicy,
    SecurityHeaders,
    inline_script_hashes,
    page_policy,
)
from storefront.config import Settings
from storefront.services.payments.gateway import TestPaymentGateway

HYDRATION = 'window.__reactRouterContext = {"basename": "/", "state": {"loaderData": {}}};'
COLOR_MODE = "(function(){try{document.documentElement.classList.add('light')}catch(e){}})()"
PAGE = (
    "<!DOCTYPE html><html><head><script>" + COLOR_MODE + "</script>"
    '<script type="module" src="/assets/entry-abc.js"></script></head><body><div id="root"></div>'
    "<script>" + HYDRATION + '</script><script type="module">import("/assets/root-abc.js");</script></body></html>'
)
PRODUCTION = {
    "STORE_ENV": "production", "PRINTIFY_API_TOKEN": "token", "ADMIN_PASSWORD": "a long secret",
    "PRINTIFY_WEBHOOK_SECRET": "whsec", "STRIPE_SECRET_KEY": "sk_live_abc", "STRIPE_PUBLISHABLE_KEY": "pk_live_abc",
    "STRIPE_WEBHOOK_SECRET": "whsec_abc", "ALLOWED_ORIGINS": "https://shop.example",
    "SECRET_KEY": "a long random secret, long enough to sign links", "MAIL_FROM": "Shop <shop@shop.example>",
}
STRIPE_NAMES = (
    "STRIPE_SECRET_KEY",
    "STRIPE_PUBLISHABLE_KEY",
    "STRIPE_WEBHOOK_SECRET",
    "STRIPE_API_BASE",
    "STRIPE_JS_URL",
)


def sha256(text: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


def directives(policy: str) -> dict[str, list[str]]:
    return {name: sources for name, *sources in (part.split() for part in policy.split(";"))}


@pytest.fixture
def environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    for name in ("UPLOAD_DIR", "STORE_ENV", "PRINTIFY_API_TOKEN", *STRIPE_NAMES):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def api_client(engine: Engine) -> TestClient:
    return TestClient(create_api(Settings(), engine=engine, gateway=TestPaymentGateway()))


def every_kind_of_answer(client: TestClient, docs: int = 200) -> dict[str, object]:
    answers = {
        "json": client.get("/api/events"),
        "refusal": client.get("/api/orders"),
        "invalid": client.get("/api/events", params={"offset": "x"}),
        "unknown path": client.get("/api/no-such-route"),
        "too large": client.post("/api/orders/lookup", content=b" " * (2 * 1024 * 1024)),
        "openapi": client.get("/api/openapi.json"),
        "docs page": client.get("/api/docs"),
    }
    assert {name: answer.status_code for name, answer in answers.items()} == {
        "json": 200, "refusal": 401, "invalid": 422, "unknown path": 404, "too large": 413, "openapi": 200,
        "docs page": docs,
    }
    return answers


def test_every_answer_refuses_framing_sniffing_and_full_referrers(
    engine: Engine, environment: pytest.MonkeyPatch
) -> None:
    answers = every_kind_of_answer(api_client(engine))
    for name, answer in answers.items():
        headers = answer.headers  # type: ignore[attr-defined]
        assert headers["x-content-type-options"] == "nosniff", name
        assert headers["x-frame-options"] == "DENY", name
        assert headers["referrer-policy"] == REFERRER_POLICY, name
        assert "strict-transport-security" not in headers, name
        assert "frame-ancestors 'none'" in headers["content-security-policy"], name
        if name != "docs page":
            assert headers["content-security-policy"] == STRICT_POLICY, name


def test_hsts_only_in_production(engine: Engine, environment: pytest.MonkeyPatch) -> None:
    for name, value in PRODUCTION.items():
        environment.setenv(name, value)
    answers = every_kind_of_answer(api_client(engine), docs=404)
    assert {answer.headers.get("strict-transport-security") for answer in answers.values()} == {HSTS}  # type: ignore[attr-defined]


def test_production_serves_no_docs_page_and_no_policy_names_its_cdn(
    engine: Engine, environment: pytest.MonkeyPatch
) -> None:
    for name, value in PRODUCTION.items():
        environment.setenv(name, value)
    client = api_client(engine)
    for path in ("/api/docs", "/api/docs/oauth2-redirect"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert answer.headers["content-security-policy"] == STRICT_POLICY, path
    assert client.get("/api/openapi.json").status_code == 200  # the schema itself holds no secret
    policy = page_policy(Settings())
    assert "cdn.jsdelivr.net" not in policy.header((), path="/api/docs")


def test_the_docs_page_may_load_swagger_from_its_cdn_and_its_own_inline_script(
    engine: Engine, environment: pytest.MonkeyPatch
) -> None:
    answer = api_client(engine).get("/api/docs")
    policy = directives(answer.headers["content-security-policy"])
    assert "https://cdn.jsdelivr.net" in policy["script-src"]
    inline = re.findall(r"<script>(.*?)</script>", answer.text, re.S)
    assert inline and all(sha256(script) in policy["script-src"] for script in inline)


def test_inline_scripts_are_found_by_hash_and_scripts_with_a_src_are_not() -> None:
    assert inline_script_hashes(PAGE.encode()) == (
        sha256(COLOR_MODE), sha256(HYDRATION), sha256('import("/assets/root-abc.js");'),
    )


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A built front end as Reflex serves it: each page as index.html with its brotli and gzip twins."""
    static = tmp_path / "static"
    for page, text in (("", PAGE), ("admin/login/", PAGE.replace("loaderData", "adminLoaderData"))):
        (static / page).mkdir(parents=True, exist_ok=True)
        (static / page / "index.html").write_text(text)
        (static / page / "index.html.gz").write_bytes(gzip.compress(text.encode()))
        (static / page / "index.html.br").write_bytes(brotli.compress(text.encode()))
    (static / "app.js").write_text("console.log(1)")
    return static


def served(static: Path, policy: PagePolicy | None = None) -> TestClient:
    app = Starlette(
        routes=[Mount("/", PrecompressedStaticFiles(directory=static, html=True, encodings=["brotli", "gzip"]))]
    )
    return TestClient(SecurityHeaders(app, policy))


@pytest.mark.parametrize("encoding", ["br", "gzip", "identity"])
def test_a_page_allows_exactly_its_own_inline_scripts(built: Path, encoding: str) -> None:
    client = served(built)
    for path, hydration in (("/", HYDRATION), ("/admin/login/", HYDRATION.replace("loaderData", "adminLoaderData"))):
        answer = client.get(path, headers={"accept-encoding": encoding})
        assert answer.status_code == 200 and answer.text.startswith("<!DOCTYPE html>")
        assert answer.headers.get("content-encoding", "identity") == encoding
        policy = directives(answer.headers["content-security-policy"])
        assert policy["script-src"] == [
            "'self'", "'unsafe-eval'", sha256(COLOR_MODE), sha256(hydration), sha256('import("/assets/root-abc.js");'),
        ]
        assert "'unsafe-inline'" not in policy["script-src"] and policy["frame-ancestors"] == ["'none'"]
        assert policy["object-src"] == ["'none'"] and policy["connect-src"] == ["'self'"]
        assert answer.headers["x-frame-options"] == "DENY"


def test_a_revalidated_page_keeps_the_policy_stored_with_it(built: Path) -> None:
    client = served(built)
    first = client.get("/")
    again = client.get("/", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304
    assert "content-security-policy" not in again.headers
    assert again.headers["x-frame-options"] == "DENY"


def test_a_script_or_json_answer_may_load_nothing(built: Path) -> None:
    answer = served(built).get("/app.js")
    assert answer.headers["content-security-policy"] == STRICT_POLICY


def test_stripe_hosts_only_when_stripe_takes_the_payments(environment: pytest.MonkeyPatch) -> None:
    without = directives(page_policy(Settings()).header(()))
    assert not any("stripe" in source for sources in without.values() for source in sources)
    for name, value in {"STRIPE_SECRET_KEY": "sk_test_abc", "STRIPE_PUBLISHABLE_KEY": "pk_test_abc",
                        "STRIPE_WEBHOOK_SECRET": "whsec_abc"}.items():
        environment.setenv(name, value)
    real = directives(page_policy(Settings()).header(()))
    assert real["script-src"][-2:] == ["https://js.stripe.com", "https://*.js.stripe.com"]
    assert "https://api.stripe.com" in real["connect-src"]
    assert {"https://js.stripe.com", "https://hooks.stripe.com"} <= set(real["frame-src"])
    environment.setenv("STRIPE_JS_URL", "http://127.0.0.1:4555/v3/stripe.js")
    environment.setenv("STRIPE_API_BASE", "http://127.0.0.1:4555")
    fake = directives(page_policy(Settings()).header(()))
    assert fake["script-src"][-1] == "http://127.0.0.1:4555" and "https://js.stripe.com" not in fake["script-src"]
    assert "http://127.0.0.1:4555" in fake["connect-src"] and "http://127.0.0.1:4555" in fake["frame-src"]


@pytest.mark.parametrize("encoding", ["br", "gzip", "identity"])
def test_a_page_the_server_sends_as_a_file_is_hashed_from_that_file(built: Path, encoding: str) -> None:
    """Granian (Reflex's production server) sends files itself: the app answers with
    `http.response.pathsend` and no body, so the hashes come from the file named."""
    app = SecurityHeaders(Starlette(routes=[
        Mount("/", PrecompressedStaticFiles(directory=built, html=True, encodings=["brotli", "gzip"]))
    ]))
    sent: list[dict] = []
    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1", "method": "GET",
        "path": "/admin/login/", "raw_path": b"/admin/login/", "root_path": "", "scheme": "http", "query_string": b"",
        "headers": [(b"host", b"store"), (b"accept-encoding", encoding.encode())], "server": ("store", 80),
        "extensions": {"http.response.pathsend": {}},
    }

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.pathsend"]
    assert sent[1]["path"].endswith({"br": "index.html.br", "gzip": "index.html.gz"}.get(encoding, "index.html"))
    headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    assert sha256(HYDRATION.replace("loaderData", "adminLoaderData")) in headers["content-security-policy"]
    assert sha256(COLOR_MODE) in headers["content-security-policy"]
