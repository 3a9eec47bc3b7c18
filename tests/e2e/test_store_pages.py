"""The policy and contact pages as served: each at its own address with its own title, canonical
link and the shop's text in the first HTML; linked from the footer and the checkout; the contact
form queues one message to the support address."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import create_engine, text

from tests.e2e.admin import open_tab, sign_in
from tests.e2e.browser import open_page
from tests.e2e.conftest import StoreServer
from tests.e2e.test_shopping import add_to_cart, open_checkout, product_links

PAGES = {
    "/policies/privacy": ("Privacy Policy", "We never sell your data."),
    "/policies/terms": ("Terms of Service", "we ship only to the United States."),
    "/policies/refunds": ("Returns &amp; Refunds", "misprinted, damaged or faulty"),
    "/policies/shipping": (
        "Shipping Policy",
        "We ship to the United States. An order to any other country cannot be placed.",
    ),
    "/contact": ("Contact Us", "we answer within two business days"),
}


@pytest.mark.parametrize("path", PAGES)
def test_each_policy_page_is_served_with_its_title_canonical_link_and_text(store: StoreServer, path: str) -> None:
    answer = httpx.get(store.url + path, follow_redirects=False)
    assert answer.status_code == 200
    title, words = PAGES[path]
    page = answer.text
    assert re.search(rf"<title>{re.escape(title)} \| SWDNN</title>", page)
    assert re.search(rf'<link rel="canonical" href="[^"]*{re.escape(path)}"', page)
    first_view = re.search(r'data-first-view="store-page"[^>]*>(.*?)</div>', page, re.S)
    assert first_view and words in " ".join(first_view.group(1).split())


def test_the_sitemap_names_the_policy_pages(store: StoreServer) -> None:
    sitemap = httpx.get(store.url + "/sitemap.xml").text
    for path in PAGES:
        assert f"{path}</loc>" in sitemap


def test_the_footer_links_every_policy_and_the_contact_page(page: Page) -> None:
    open_page(page, "/")
    footer = page.locator("footer")
    for name, href in [
        ("Privacy", "/policies/privacy"),
        ("Terms", "/policies/terms"),
        ("Returns & refunds", "/policies/refunds"),
        ("Shipping", "/policies/shipping"),
        ("Contact", "/contact"),
    ]:
        expect(footer.get_by_role("link", name=name, exact=True)).to_have_attribute("href", href)


def test_the_checkout_dialog_links_the_policies(page: Page) -> None:
    add_to_cart(page, product_links(page, "tee")[0], "S")
    open_checkout(page)
    agreement = page.get_by_test_id("checkout-agreement")
    expect(agreement).to_contain_text("By placing your order you agree to our")
    for name, href in [("Terms of Service", "/policies/terms"), ("Privacy Policy", "/policies/privacy"),
                       ("Returns & Refunds", "/policies/refunds"), ("Shipping Policy", "/policies/shipping")]:
        expect(agreement.get_by_role("link", name=name)).to_have_attribute("href", href)


def test_the_contact_form_queues_a_message_to_the_support_address(page: Page, store: StoreServer) -> None:
    open_page(page, "/contact")
    expect(page.get_by_test_id("store-page-text")).to_contain_text("we answer within two business days")
    page.get_by_label("Your name").fill("Ada Lovelace")
    page.get_by_label("Your email").fill("ada@example.com")
    page.get_by_label("Message").fill("Does the hoodie run large?")
    page.get_by_role("button", name="Send message").click()
    expect(page.get_by_test_id("contact-sent")).to_have_text(
        "Thanks! Your message was sent. We answer within two business days."
    )
    engine = create_engine(store.db_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT recipient, text_body FROM mail_message WHERE kind = 'contact-message'")
            ).all()
    finally:
        engine.dispose()
    assert len(rows) == 1
    assert rows[0].recipient == "shop@localhost"  # SUPPORT_EMAIL unset: the address of MAIL_FROM
    assert "Does the hoodie run large?" in rows[0].text_body


def test_staff_edit_a_policy_as_markdown_and_the_page_shows_it_sanitised(page: Page, store: StoreServer) -> None:
    sign_in(page)
    open_tab(page, "Sync & Pricing")
    page.get_by_label("Page", exact=True).select_option(label="Terms of Service")
    editor = page.get_by_label("Page text (Markdown)")
    expect(editor).to_have_value(re.compile("These terms apply to every order placed at SWDNN"))
    editor.fill("## Our own terms\n\nBe **kind**. <script>alert(1)</script>")
    preview = page.get_by_test_id("store-page-preview")
    expect(preview.locator("h2")).to_have_text(["Our own terms"])
    expect(preview.locator("strong")).to_have_text(["kind"])
    page.get_by_role("button", name="Save page").click()
    expect(page.get_by_text("Page saved", exact=True)).to_be_visible()
    served = httpx.get(store.url + "/policies/terms").text
    assert "<h2>Our own terms</h2>" in served and "<strong>kind</strong>" in served
    assert "<script>alert(1)" not in served
    page.get_by_role("button", name="Restore default").click()
    expect(editor).to_have_value(re.compile("These terms apply to every order placed at SWDNN"))
    assert "Our own terms" not in httpx.get(store.url + "/policies/terms").text
