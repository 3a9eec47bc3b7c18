"""The Events tab in a real browser: create an event with uploaded photos and a link, make it
inactive, delete it; a file that is not an image and an end before the start are refused."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from PIL import Image
from playwright.sync_api import Locator, Page, expect

from tests.e2e.admin import open_tab, sign_in

DELETE_CONFIRMATION = "Are you sure you want to delete this event? This action cannot be undone."


def _photos(folder: Path) -> list[Path]:
    """A small PNG and a small JPEG."""
    png, jpeg = folder / "stage.png", folder / "crowd.jpg"
    Image.new("RGB", (64, 48), (155, 17, 30)).save(png, "PNG")
    Image.new("RGB", (48, 64), (20, 60, 160)).save(jpeg, "JPEG", quality=85)
    return [png, jpeg]


def _open_events(page: Page) -> None:
    sign_in(page)
    open_tab(page, "Events")
    expect(page.get_by_role("button", name="Create Event")).to_be_visible()


def _open_create_dialog(page: Page) -> Locator:
    page.get_by_role("button", name="Create Event").click()
    dialog = page.get_by_role("dialog", name="Create New Event")
    expect(dialog).to_be_visible()
    return dialog


def _fill_required(dialog: Locator, title: str, start: str = "2031-05-01T19:00") -> None:
    dialog.get_by_label("Title", exact=True).fill(title)
    dialog.get_by_label("Location", exact=True).fill("Atlanta, GA")
    dialog.get_by_label("Description", exact=True).fill("An evening of step shows and new designs.")
    dialog.get_by_label("Start date and time", exact=True).fill(start)


def _upload_input(dialog: Locator) -> Locator:
    return dialog.get_by_test_id("image-uploader").locator("input[type=file]")


def test_an_event_is_created_with_photos_and_a_link_made_inactive_and_deleted(page: Page, tmp_path: Path) -> None:
    title = f"Spring Step Show {uuid.uuid4().hex[:8]}"
    _open_events(page)
    dialog = _open_create_dialog(page)
    _fill_required(dialog, title)
    dialog.get_by_label("End date and time", exact=True).fill("2031-05-01T22:00")
    dialog.get_by_label("Capacity", exact=True).fill("150")
    dialog.get_by_label("Price", exact=True).fill("25.50")

    _upload_input(dialog).set_input_files(_photos(tmp_path))
    expect(dialog.get_by_test_id("uploaded-image")).to_have_count(2)
    expect(page.get_by_text("2 images uploaded", exact=True)).to_be_visible()

    dialog.get_by_label("Link title 1", exact=True).fill("Tickets")
    dialog.get_by_label("Link URL 1", exact=True).fill("https://example.com/tickets")
    expect(dialog.get_by_role("button", name="Remove link 1")).to_be_disabled()
    expect(dialog.get_by_role("button", name="Remove video 1")).to_be_disabled()
    dialog.get_by_role("button", name="Save").click()

    expect(page.get_by_text("Event created successfully", exact=True)).to_be_visible()
    expect(dialog).to_be_hidden()
    card = page.get_by_test_id("event-card").filter(has_text=title)
    expect(card).to_have_count(1)
    expect(card.get_by_test_id("image-count")).to_have_text("Images: 2")
    expect(card.get_by_test_id("link-count")).to_have_text("Links: 1")
    expect(card.get_by_test_id("video-count")).to_have_text("Videos: 0")
    expect(card).to_contain_text("Atlanta, GA")
    expect(card).to_contain_text("$25.50")
    expect(card).to_contain_text("150")
    expect(card.get_by_text("Inactive", exact=True)).to_have_count(0)
    expect(card).to_have_css("opacity", "1")

    # The public page shows it among the upcoming (not featured) events, with its link.
    public = page.context.new_page()
    public.goto("/tours-and-events")
    shown = public.get_by_test_id("upcoming-events").get_by_test_id("event-card").filter(has_text=title)
    expect(shown).to_have_count(1)
    expect(shown.get_by_test_id("event-date")).to_have_text("May 1, 2031")
    expect(shown.get_by_test_id("event-price")).to_have_text("$25.50")
    expect(public.get_by_test_id("featured-events").filter(has_text=title)).to_have_count(0)
    shown.click()
    details = public.get_by_role("dialog", name=title)
    expect(details).to_contain_text("An evening of step shows and new designs.")
    link = details.get_by_role("link", name="Tickets")
    expect(link).to_have_attribute("href", "https://example.com/tickets")
    expect(link).to_have_attribute("target", "_blank")
    expect(details.locator("img").first).to_have_attribute("src", re.compile(r"^/media/.+\.webp\?v=\d+$"))

    card.get_by_role("button", name="Edit").click()
    dialog = page.get_by_role("dialog", name="Edit Event")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Title", exact=True)).to_have_value(title)
    expect(dialog.get_by_test_id("uploaded-image")).to_have_count(2)
    active = dialog.get_by_role("switch", name="Active", exact=True)
    expect(active).to_be_checked()
    active.click()
    expect(active).not_to_be_checked()
    dialog.get_by_role("button", name="Save").click()

    expect(page.get_by_text("Event updated successfully", exact=True)).to_be_visible()
    expect(dialog).to_be_hidden()
    expect(card.get_by_text("Inactive", exact=True)).to_be_visible()
    expect(card).to_have_css("opacity", "0.6")
    expect(card.get_by_test_id("image-count")).to_have_text("Images: 2")

    # Inactive: gone from the public page, still listed (dimmed) in the admin.
    public.goto("/tours-and-events")
    expect(public.get_by_role("heading", name="Tours & Events", level=1)).to_be_visible()
    expect(public.get_by_test_id("events-loading")).to_have_count(0)
    expect(public.get_by_test_id("event-card").filter(has_text=title)).to_have_count(0)
    public.close()

    card.get_by_role("button", name="Delete").click()
    confirm = page.get_by_role("alertdialog")
    expect(confirm).to_contain_text(DELETE_CONFIRMATION)
    confirm.get_by_role("button", name="Delete").click()

    expect(page.get_by_text("Event deleted successfully", exact=True)).to_be_visible()
    expect(page.get_by_test_id("event-card").filter(has_text=title)).to_have_count(0)


def test_a_text_file_named_like_a_photo_is_refused_and_nothing_is_added(page: Page, tmp_path: Path) -> None:
    fake = tmp_path / "holiday.jpg"
    fake.write_text("this is not a photo\n")
    _open_events(page)
    dialog = _open_create_dialog(page)

    _upload_input(dialog).set_input_files(fake)

    expect(page.get_by_text("Upload failed", exact=True)).to_be_visible()
    expect(dialog).to_be_visible()
    expect(dialog.get_by_test_id("uploaded-image")).to_have_count(0)


def test_an_end_before_the_start_is_refused_with_the_dialog_kept_open(page: Page) -> None:
    title = f"Backwards Gala {uuid.uuid4().hex[:8]}"
    _open_events(page)
    dialog = _open_create_dialog(page)
    _fill_required(dialog, title, start="2031-06-02T19:00")
    dialog.get_by_label("End date and time", exact=True).fill("2031-06-01T19:00")
    dialog.get_by_role("button", name="Save").click()

    expect(dialog.get_by_test_id("error-endDate")).to_have_text("The end cannot be before the start")
    expect(page.get_by_text("Failed to create event", exact=True)).to_be_visible()
    expect(dialog).to_be_visible()
    expect(dialog.get_by_label("Title", exact=True)).to_have_value(title)
    expect(dialog.get_by_label("Location", exact=True)).to_have_value("Atlanta, GA")
    expect(page.get_by_test_id("event-card").filter(has_text=title)).to_have_count(0)


def test_more_photos_than_the_limit_are_refused_with_too_many_files(page: Page, tmp_path: Path) -> None:
    photos = []
    for index in range(11):
        photo = tmp_path / f"photo-{index}.png"
        Image.new("RGB", (16, 16), (index * 20, 40, 80)).save(photo, "PNG")
        photos.append(photo)
    _open_events(page)
    dialog = _open_create_dialog(page)

    _upload_input(dialog).set_input_files(photos)

    expect(page.get_by_text("Too many files", exact=True)).to_be_visible()
    expect(page.get_by_text("You can only upload up to 10 images", exact=True)).to_be_visible()
    expect(dialog.get_by_test_id("uploaded-image")).to_have_count(0)
