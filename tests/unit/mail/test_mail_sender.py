"""Emails from a real sender: every message's Reply-To and footer name the support address, its
pictures are JPEG (never WebP, which Outlook on the desktop does not show), newsletter mail can be
left with one click (List-Unsubscribe, List-Unsubscribe-Post), and the file mailer logs each path."""

from __future__ import annotations

import logging
import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, update

from storefront.models import OrderItem
from storefront.services.mail.mailers import FileMailer
from storefront.services.mail.outbox import MailOutbox
from storefront.services.mail.pictures import email_picture
from storefront.services.mail.templates import store_contact
from storefront.services.newsletter.subscriptions import ONE_CLICK_UNSUBSCRIBE_ROUTE, Newsletter
from storefront.services.orders.checkout import place_order
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_payment import OrderPayments, card_from_form
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.signing import LinkSigner
from storefront.wiring import session_factory
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo

PUBLIC_URL = "https://shop.example"
SUPPORT = "help@shop.example"
SENDER = "Shop <orders@shop.example>"
SIGNER = LinkSigner(b"sender-test-key")
CONTACT = store_contact("SWDNN", SUPPORT, "12 Market St; Albany, NY 12207", PUBLIC_URL)
DIGEST = "0123456789abcdef"


def _rendition(media_dir: Path) -> str:
    """A WebP rendition as the media pipeline writes it; its address."""
    media_dir.mkdir(parents=True, exist_ok=True)
    Image.new("RGBA", (640, 640), (155, 17, 30, 255)).save(media_dir / f"{DIGEST}-640.webp", format="WEBP")
    return f"/media/{DIGEST}-640.webp"


def _eml_files(folder: Path) -> list[EmailMessage]:
    return [message_from_bytes(path.read_bytes(), policy=policy.default) for path in sorted(folder.glob("*.eml"))]  # type: ignore[misc]


def test_a_renditions_email_picture_is_a_jpeg_beside_it(tmp_path: Path) -> None:
    url = _rendition(tmp_path)
    assert email_picture(url, tmp_path) == f"/media/{DIGEST}-128.jpg"
    with Image.open(tmp_path / f"{DIGEST}-128.jpg") as written:
        assert (written.format, written.width) == ("JPEG", 128)
    assert email_picture("/images/product-placeholder.jpg", tmp_path) == "/images/product-placeholder.jpg"
    assert email_picture("/media/ffffffffffffffff-640.webp", tmp_path) == ""  # no such rendition: no picture


def test_the_confirmation_eml_replies_to_support_and_shows_jpeg_pictures(
    engine: Engine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    seed_demo(engine, tmp_path)
    media = tmp_path / "media"
    webp = _rendition(media)
    emails = OrderEmails(
        PUBLIC_URL, SIGNER, contact=CONTACT, picture=lambda url: email_picture(url, media),
    )
    with Session(engine, expire_on_commit=False) as session:
        placed = place_order(session, order_payload((pick(engine), 1)), "sender-1")
        session.execute(update(OrderItem).where(col(OrderItem.order_id) == placed.order.id).values(image_url=webp))
        session.commit()
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=emails)
    payments.pay(placed.order.number, placed.access_token, card_from_form(GOOD_CARD), "pay-sender-1")
    folder = tmp_path / "mail"
    with caplog.at_level(logging.INFO, logger="storefront.services.mail.mailers"):
        assert MailOutbox(session_factory(engine), FileMailer(folder), SENDER, reply_to=SUPPORT).run_due() == 1
    [path] = folder.glob("*.eml")
    assert str(path) in caplog.text  # the log says where the message is
    [message] = _eml_files(folder)
    assert message["From"] == SENDER
    assert message["Reply-To"] == SUPPORT
    text = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = message.get_body(("html",)).get_content()  # type: ignore[union-attr]
    for part in (text, html):
        assert SUPPORT in part
        assert "12 Market St, Albany, NY 12207" in part
        assert f"{PUBLIC_URL}/policies/refunds" in part and f"{PUBLIC_URL}/contact" in part
    pictures = re.findall(r'<img src="([^"]+)"', html)
    assert pictures == [f"{PUBLIC_URL}/media/{DIGEST}-128.jpg"]
    assert ".webp" not in html


def test_a_newsletter_eml_can_be_left_with_one_click(engine: Engine, tmp_path: Path) -> None:
    news = Newsletter(session_factory(engine), SIGNER, PUBLIC_URL, contact=CONTACT)
    news.sign_up("203.0.113.7", "ann@example.com")
    folder = tmp_path / "mail"
    assert MailOutbox(session_factory(engine), FileMailer(folder), SENDER, reply_to=SUPPORT).run_due() == 1
    [message] = _eml_files(folder)
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    header = message["List-Unsubscribe"]
    assert re.fullmatch(rf"<{PUBLIC_URL}{ONE_CLICK_UNSUBSCRIBE_ROUTE}\?email=ann%40example.com&sig=[^>]+>", header)
    assert message["Reply-To"] == SUPPORT
    assert SUPPORT in message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
