"""Helpers shared by the browser tests."""

from playwright.sync_api import Page


def open_page(page: Page, path: str) -> None:
    """Go to `path` and wait until the page is hydrated and connected to its state."""
    page.goto(path)
    page.wait_for_selector("[data-hydrated='true']", state="attached")
