"""/try-it-on in a real browser with the local engine: upload a photo, pick an item, Try It On,
see the result replace the photo and download it; a photo without a person and a file that is
no image each get a clear message; Upload Photo is in view without scrolling on a laptop and a
phone, and takes an iPhone's HEIC photo."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Page, expect
from skimage import data as samples

from storefront.services.tryon.engine import NO_PERSON_FOUND
from tests.e2e.browser import open_page
from tests.unit.media.test_uploads import heic

ROUTE = "/try-it-on"


def _photo(tmp_path: Path) -> Path:
    """The astronaut sample (a waist-up portrait that ships with scikit-image) as a JPEG file."""
    path = tmp_path / "me.jpg"
    Image.fromarray(samples.astronaut()).save(path, "JPEG", quality=92)
    return path


def _landscape(tmp_path: Path) -> Path:
    path = tmp_path / "coffee.jpg"
    Image.fromarray(samples.coffee()).save(path, "JPEG", quality=92)
    return path


def _choose_photo(page: Page, path: Path) -> None:
    page.get_by_test_id("upload-photo").locator("input[type=file]").set_input_files(path)


def test_a_shopper_tries_an_item_on_and_downloads_the_result(page: Page, tmp_path: Path) -> None:
    open_page(page, ROUTE)
    expect(page.get_by_role("heading", name="Virtual Try-On", level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="Available Items")).to_be_visible()
    items = page.get_by_test_id("tryon-item")
    expect(items).to_have_count(3)
    for index in range(3):
        expect(items.nth(index).locator("img")).to_have_attribute("src", re.compile(r"^/media/"))
    button = page.get_by_test_id("try-it-on")
    expect(button).to_have_text("Try It On")
    expect(button).to_be_disabled()

    items.nth(0).click()
    expect(items.nth(0)).to_have_attribute("aria-pressed", "true")
    expect(button).to_be_disabled()  # no photo yet

    _choose_photo(page, _photo(tmp_path))
    expect(page.get_by_test_id("tryon-photo")).to_be_visible()
    expect(button).to_be_enabled()

    button.click()
    expect(button).to_have_text("Processing...")
    result = page.get_by_test_id("tryon-result")
    expect(result).to_be_visible(timeout=30_000)
    expect(button).to_have_text("Try It On")
    expect(page.get_by_test_id("tryon-photo")).to_have_count(0)  # the result replaced the photo
    src = result.get_attribute("src") or ""
    assert src.startswith("data:image/")
    with Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))) as image:
        assert image.size == (512, 512)
    download = page.get_by_test_id("download-result")
    expect(download).to_have_attribute("download", "virtual-try-on.jpg")
    with page.expect_download() as saved:
        download.click()
    with Image.open(saved.value.path()) as image:
        assert image.size == (512, 512)

    # Leaving the page drops the photo and the result: back on it, the page starts empty.
    page.locator("header").get_by_role("link", name="Our Products").first.click()
    expect(page).to_have_url(re.compile(r"/products$"))
    page.go_back()
    expect(items).to_have_count(3)
    expect(page.get_by_test_id("tryon-result")).to_have_count(0)
    expect(page.get_by_test_id("tryon-photo")).to_have_count(0)
    expect(button).to_be_disabled()


def test_a_photo_without_a_person_or_a_file_that_is_no_image_gets_a_clear_message(
    page: Page, tmp_path: Path
) -> None:
    open_page(page, ROUTE)
    page.get_by_test_id("tryon-item").nth(1).click()
    _choose_photo(page, _landscape(tmp_path))
    expect(page.get_by_test_id("tryon-photo")).to_be_visible()
    page.get_by_test_id("try-it-on").click()
    expect(page.get_by_role("alert").filter(has_text=NO_PERSON_FOUND)).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("tryon-result")).to_have_count(0)

    fake = tmp_path / "holiday.jpg"
    fake.write_text("this is not a photo")
    _choose_photo(page, fake)
    expect(page.get_by_role("alert").filter(has_text="not an image we can read")).to_be_visible()


def test_a_product_page_leads_to_the_try_on_with_its_item_chosen(page: Page, tmp_path: Path) -> None:
    open_page(page, "/products")
    page.get_by_placeholder("Search products...").fill("Vintage Tee")
    card = page.get_by_test_id("product-card").first
    expect(card).to_contain_text("Vintage Tee")
    name = (card.get_by_test_id("product-name").text_content() or "")
    card.get_by_role("link", name="View Details").click()
    expect(page.get_by_role("heading", name=name, level=1)).to_be_visible()
    page.get_by_test_id("product-try-on").click()
    expect(page).to_have_url(re.compile(r"/try-it-on\?item="))
    chosen = page.locator("[data-testid=tryon-item][aria-pressed=true]")
    expect(chosen).to_have_count(1)
    expect(chosen).to_contain_text(name)
    expect(page.get_by_test_id("tryon-item")).to_have_count(3)

    _choose_photo(page, _photo(tmp_path))
    page.get_by_test_id("try-it-on").click()
    expect(page.get_by_test_id("tryon-result")).to_be_visible(timeout=30_000)


@pytest.mark.parametrize("screen", ["page", "phone_page"], ids=["1280x900", "390x844"])
def test_upload_photo_is_in_view_without_scrolling_and_takes_an_iphone_heic_photo(
    screen: str, request: pytest.FixtureRequest
) -> None:
    page: Page = request.getfixturevalue(screen)
    open_page(page, ROUTE)
    expect(page.get_by_test_id("tryon-item")).to_have_count(3)  # the page is laid out in full
    upload = page.get_by_role("button", name="Upload Photo")
    expect(upload).to_be_visible()
    assert page.evaluate("window.scrollY") == 0
    box = upload.bounding_box()
    viewport = page.viewport_size
    assert box is not None and viewport is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (box, viewport)
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (box, viewport)
    expect(page.get_by_test_id("try-it-on")).to_have_text("Try It On")

    # A sideways 600 x 400 sensor image the phone marked "rotate 90 degrees", as an iPhone saves it.
    photo = {"name": "IMG_0001.HEIC", "mimeType": "image/heic", "buffer": heic((600, 400), orientation=6)}
    page.get_by_test_id("upload-photo").locator("input[type=file]").set_input_files(files=[photo])
    preview = page.get_by_test_id("tryon-photo")
    expect(preview).to_be_visible()
    expect(preview).to_have_attribute("src", re.compile(r"^data:image/jpeg;base64,"))
    # Drawn by the browser (which cannot show HEIC itself), upright.
    page.wait_for_function("() => document.querySelector('[data-testid=tryon-photo]')?.naturalWidth > 0")
    assert preview.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [400, 600]
    expect(page.get_by_role("alert")).to_have_count(0)


def test_the_result_scrolls_into_view_on_a_phone(phone_page: Page, tmp_path: Path) -> None:
    """On a phone the button is below the picture: the result, drawn where the photo was above the
    screen, is brought into view instead of appearing out of sight."""
    open_page(phone_page, ROUTE)
    items = phone_page.get_by_test_id("tryon-item")
    items.nth(0).click()
    _choose_photo(phone_page, _photo(tmp_path))
    expect(phone_page.get_by_test_id("tryon-photo")).to_be_visible()
    button = phone_page.get_by_test_id("try-it-on")
    # The shopper scrolled down to the button: the photo is above the screen.
    phone_page.evaluate("el => window.scrollBy(0, el.getBoundingClientRect().top - 300)", button.element_handle())
    expect(phone_page.get_by_test_id("tryon-photo")).not_to_be_in_viewport(ratio=0.5)
    button.tap()
    result = phone_page.get_by_test_id("tryon-result")
    expect(result).to_be_visible(timeout=30_000)
    expect(result).to_be_in_viewport(ratio=0.5)
