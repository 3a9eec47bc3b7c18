"""The newsletter's one-click unsubscribe (RFC 8058) over HTTP: a mail program POSTs to the signed
address of a message's List-Unsubscribe header, and the address stops getting the newsletter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront import wiring
from storefront.api.app import create_api
from storefront.config import Settings
from storefront.models import MailMessage
from storefront.services.newsletter.subscriptions import UNSUBSCRIBED, Newsletter


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PUBLIC_URL", "https://shop.example")
    return Settings()


def test_a_post_to_the_list_unsubscribe_address_unsubscribes(engine: Engine, settings: Settings) -> None:
    news = Newsletter(wiring.session_factory(engine), wiring.link_signer(settings), settings.public_url)
    news.sign_up("203.0.113.7", "ann@example.com")
    with Session(engine) as session:
        mail = session.exec(select(MailMessage)).one()
    confirm = re.search(r"https://shop\.example/newsletter/confirm\?email=([^&]+)&sig=(\S+)", mail.text_body)
    assert confirm and mail.list_unsubscribe
    news.confirm("ann@example.com", confirm.group(2))
    assert news.count() == 1
    client = TestClient(create_api(settings, engine=engine))
    address = mail.list_unsubscribe.removeprefix(settings.public_url)
    answer = client.post(address, content=b"List-Unsubscribe=One-Click",
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert (answer.status_code, answer.json()) == (200, {"message": UNSUBSCRIBED})
    assert news.count() == 0


def test_a_forged_unsubscribe_address_is_refused(engine: Engine, settings: Settings) -> None:
    client = TestClient(create_api(settings, engine=engine))
    answer = client.post("/api/newsletter/unsubscribe?email=ann%40example.com&sig=forged")
    assert answer.status_code == 422
