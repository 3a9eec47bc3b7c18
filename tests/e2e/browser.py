"""Helpers shared by the browser tests."""

from playwright.sync_api import Locator, Page, expect

from storefront.services.catalog.catalog import PLACEHOLDER_IMAGE


def open_page(page: Page, path: str) -> None:
    """Go to `path` and wait until the page is hydrated and connected to its state."""
    page.goto(path)
    page.wait_for_selector("[data-hydrated='true']", state="attached")


def expect_the_placeholder(page: Page, image: Locator) -> None:
    """The <img> has given up its own picture (and its srcset) and shows the placeholder."""
    expect(image).to_have_attribute("src", PLACEHOLDER_IMAGE)
    page.wait_for_function(
        "([img, placeholder]) => img.complete && img.naturalWidth > 0 && img.currentSrc.endsWith(placeholder)",
        arg=[image.element_handle(), PLACEHOLDER_IMAGE],
    )
