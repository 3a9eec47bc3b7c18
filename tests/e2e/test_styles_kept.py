"""The purged stylesheet in a real browser: every menu, dialog, select and toast of the store keeps
its styles. A class on any element that has a rule in the whole Radix stylesheet (or the store's
own) must still have a rule in the stylesheets the page loaded, and a colour a control shows
(`data-accent-color`) must still be defined."""

from __future__ import annotations

import re
from functools import cache

from playwright.sync_api import Page, expect

from storefront.config import PROJECT_ROOT
from storefront.web import css_purge
from tests.e2e.admin import open_tab, sign_in
from tests.e2e.browser import open_page
from tests.e2e.test_events_page import FEATURED, ROUTE as EVENTS_ROUTE, card as event_card, store_events  # noqa: F401
from tests.e2e.test_quick_add import multi_size_card
from tests.e2e.test_shopping import add_to_cart, open_checkout, product_links

WEB = PROJECT_ROOT / ".web"

#: The classes the page's elements carry, and every class a loaded stylesheet's selector names.
CLASSES_JS = r"""() => {
    const served = new Set(), used = new Set();
    const walk = rules => {
        for (const rule of rules) {
            if (rule.selectorText) {
                for (const m of rule.selectorText.matchAll(/\.((?:[A-Za-z0-9_-]|\\.)+)/g)) {
                    served.add(m[1].replace(/\\(.)/g, "$1"));
                }
            }
            if (rule.cssRules) walk(rule.cssRules);
        }
    };
    for (const sheet of document.styleSheets) walk(sheet.cssRules);
    for (const el of document.querySelectorAll("*")) for (const c of el.classList) used.add(c);
    // A colour scale a control shows must still be defined (the purge keeps only the scales named).
    const root = getComputedStyle(document.documentElement), undefinedColours = new Set();
    for (const el of document.querySelectorAll("[data-accent-color]")) {
        const colour = el.getAttribute("data-accent-color");
        if (colour && !root.getPropertyValue(`--${colour}-9`).trim()) undefinedColours.add(colour);
    }
    return {served: [...served], used: [...used], undefinedColours: [...undefinedColours]};
}"""


@cache
def unpurged_classes() -> frozenset[str]:
    """Every class a rule of the whole Radix stylesheet or the store's own stylesheets names."""
    sheets = [WEB / "node_modules" / "@radix-ui" / "themes" / "styles.css",
              *(p for p in (WEB / "styles").glob("*.css") if p.name != "radix-themes.purged.css")]
    return frozenset().union(*(css_purge.selector_classes(p.read_text()) for p in sheets))


class StyleCheck:
    """Collects, over a test's steps, the styled classes that lost their rules and the Radix classes seen."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.lost: dict[str, set[str]] = {}
        self.seen: set[str] = set()

    def __call__(self, where: str) -> None:
        found = self.page.evaluate(CLASSES_JS)
        used = set(found["used"]) & unpurged_classes()
        self.seen |= used
        lost = (used - set(found["served"])) | {f"colour {name}" for name in found["undefinedColours"]}
        if lost:
            self.lost[where] = lost

    def assert_kept(self, *expected: str) -> None:
        assert not self.lost, f"classes without their rules after the purge: {self.lost}"
        missing = set(expected) - self.seen
        assert not missing, f"the test never showed {missing}: it did not open what it should"


def background(page: Page, selector: str) -> str:
    return page.locator(selector).first.evaluate("el => getComputedStyle(el).backgroundColor")


def box_shadow(page: Page, selector: str) -> str:
    return page.locator(selector).first.evaluate("el => getComputedStyle(el).boxShadow")


TRANSPARENT = "rgba(0, 0, 0, 0)"


def test_the_stylesheet_is_purged_and_served_brotli_or_gzip(page: Page, store_url: str) -> None:
    open_page(page, "/")
    href = page.locator("link[rel=stylesheet][href*='/assets/']").first.get_attribute("href")
    assert href
    for accept, encoding in (("br, gzip", "br"), ("gzip, deflate", "gzip")):
        response = page.request.get(f"{store_url}{href}", headers={"Accept-Encoding": accept})
        assert response.ok
        assert response.headers.get("content-encoding") == encoding
        assert "accept-encoding" in response.headers.get("vary", "").lower()
    # The pages too: brotli when the browser takes it, the plain page when it takes nothing.
    assert page.request.get(f"{store_url}/products", headers={"Accept-Encoding": "br"}).headers.get(
        "content-encoding") == "br"
    assert (
        "content-encoding"
        not in page.request.get(f"{store_url}/products", headers={"Accept-Encoding": "identity"}).headers
    )
    served = page.request.get(f"{store_url}{href}").text()
    assert len(served) < 0.8 * len((WEB / "node_modules" / "@radix-ui" / "themes" / "styles.css").read_text())
    assert ".rt-BaseDialogContent" in served and ".rt-SelectContent" in served
    assert ".rt-ContextMenuContent" not in served and ".rt-TooltipContent" not in served


def test_store_menus_dialogs_and_toasts_keep_their_styles(page: Page, store_events: dict[str, int]) -> None:  # noqa: F811
    check = StyleCheck(page)
    for path in ("/", "/products", "/new-arrivals", "/collections/swdnn", "/cart", "/order-status", "/newsletter",
                 "/try-it-on", "/shopify"):
        open_page(page, path)
        check(path)

    # The header's New Arrivals menu and the search dialog.
    open_page(page, "/")
    page.get_by_role("navigation", name="Main").get_by_text("New Arrivals").click()
    expect(page.get_by_test_id("new-arrivals-panel")).to_be_visible()
    check("new arrivals menu")
    page.keyboard.press("Escape")
    page.locator("header").get_by_role("button", name="Search", exact=True).click()
    expect(page.get_by_role("dialog")).to_be_visible()
    check("search dialog")
    assert background(page, ".rt-DialogContent") != TRANSPARENT
    page.keyboard.press("Escape")

    # Quick Add: the size menu, the colour menu with its submenu, and the toast.
    card = multi_size_card(page)
    card.get_by_role("button", name="Quick Add").click()
    expect(page.get_by_role("menu")).to_be_visible()
    check("quick add menu")
    assert box_shadow(page, ".rt-DropdownMenuContent") != "none"
    page.keyboard.press("Escape")
    tee = page.get_by_test_id("product-card").filter(has_text=re.compile("classic tee", re.I)).first
    tee.get_by_role("button", name="Quick Add").click()
    page.get_by_role("menu").get_by_role("menuitem").first.click()
    expect(page.get_by_role("menu")).to_have_count(2)
    check("colour submenu")
    page.get_by_role("menuitem", name="L", exact=True).click()
    toast = page.locator("[data-sonner-toast]").first
    expect(toast).to_be_visible()
    check("toast")
    assert toast.evaluate("el => getComputedStyle(el).backgroundColor") != TRANSPARENT

    # The product page's sizes, the cart and its checkout dialog.
    add_to_cart(page, product_links(page, "crewneck sweatshirt")[0], "L")
    check("product page")
    open_checkout(page)
    check("checkout dialog")

    # The events page and an event's dialog.
    open_page(page, EVENTS_ROUTE)
    event_card(page, "featured", FEATURED["title"]).click()
    expect(page.get_by_role("dialog", name=FEATURED["title"])).to_be_visible()
    check("event dialog")
    check.assert_kept("rt-BaseDialogContent", "rt-DropdownMenuContent", "rt-BaseMenuContent", "rt-BaseRadioRoot")


def test_phone_menu_keeps_its_styles(page: Page) -> None:
    check = StyleCheck(page)
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, "/products")
    check("/products on a phone")
    page.get_by_test_id("mobile-menu-toggle").click()
    expect(page.get_by_test_id("mobile-menu")).to_be_visible()
    check("phone menu")
    check.assert_kept("rt-IconButton", "sm:rt-r-gtc-2")


def test_admin_dialogs_and_selects_keep_their_styles(page: Page) -> None:
    check = StyleCheck(page)
    sign_in(page)
    check("dashboard")
    for tab in ("Product Editor", "Categories", "Orders", "Sync & Pricing", "Events"):
        open_tab(page, tab)
        expect(page.get_by_role("tab", name=tab)).to_have_attribute("aria-selected", "true")
        check(f"{tab} tab")

    open_tab(page, "Categories")
    page.get_by_test_id("category-row").first.get_by_role("combobox").click()
    expect(page.get_by_role("listbox")).to_be_visible()
    check("category select")
    assert box_shadow(page, ".rt-SelectContent") != "none"
    page.keyboard.press("Escape")

    open_tab(page, "Events")
    page.get_by_role("button", name="Create Event").click()
    expect(page.get_by_role("dialog", name="Create New Event")).to_be_visible()
    check("create event dialog")
    page.keyboard.press("Escape")

    open_tab(page, "Product Editor")
    page.get_by_test_id("editor-row").first.get_by_role("button", name="Archive").click()
    expect(page.get_by_role("alertdialog")).to_be_visible()
    check("archive dialog")
    assert background(page, ".rt-AlertDialogContent") != TRANSPARENT
    page.get_by_role("alertdialog").get_by_role("button", name="Cancel").click()
    check.assert_kept("rt-SelectContent", "rt-BaseDialogContent", "rt-BaseDialogOverlay", "rt-BaseTabListTrigger")
