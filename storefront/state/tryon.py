"""/try-it-on: the shopper's photo, the Available Items, and the try-on result.

The photo is kept only in this tab's state, made small and stripped of its metadata
(services/tryon/fitting.py), and only while the shopper stays on the page: leaving it (or a new
visit) drops the photo and the result. Nothing is written to disk. The result comes back as a
data URL the Download button saves.
"""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import ServiceError
from storefront.services.tryon import fitting, items, throttle
from storefront.services.tryon.data_urls import decode_data_url, image_data_url
from storefront.services.tryon.engine import ENGINE_FAILED, PERSON_FIELD, PHOTO_TOO_LARGE
from storefront.services.tryon.items import ItemView
from storefront.state.scrolling import scroll_into_view
from storefront.web.page_texts import ITEM_PARAM
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

UPLOAD_ID = "tryon-photo"
ROUTE = "/try-it-on"
#: The element holding the photo, then the result: a phone's screen shows only part of the page,
#: so a result that arrives off the screen is scrolled into view.
PREVIEW_ID = "tryon-preview"
ITEMS_FAILED = "The items could not be loaded. Please refresh the page."
NOT_AN_IMAGE = "Choose an image file: a JPEG, PNG, GIF, WebP or HEIC photo."
#: react-dropzone's code for a file over `max_size`.
DROPZONE_TOO_LARGE = "file-too-large"


def item_views(first: str) -> list[ItemView]:
    with session_scope() as session:
        return items.item_views(session, first)


def _garment(product_id: str) -> bytes:
    settings = services().settings
    with session_scope() as session:
        item = items.find_item(session, product_id)
    return items.garment_picture(item, settings.upload_dir, settings.media_dir)


def _count(client: str) -> None:
    """Count a try-on against the client's address, with `POST /api/try-on`'s and the photo uploads'
    (counted by the upload gate); TooManyRequestsError (the API's own text) past the limit."""
    services().tryon_limiter.check(throttle.tryon_key(client))


def _spent(client: str) -> bool:
    """Whether the client's try-ons are used up for this minute, counting nothing (the upload
    gate counts the photo upload itself, before its body is read: storefront/api/body_limit.py)."""
    return throttle.spent(services().tryon_limiter, client)


def _try_on(photo_url: str, product_id: str) -> str:
    """The kept photo (held once, as the data URL the page shows) wearing the product."""
    garment = _garment(product_id)  # a missing item is refused before the engine starts
    engine = services().tryon_engine
    return fitting.dress(engine, decode_data_url(photo_url, PERSON_FIELD), garment)


def try_on_url(product_id: str) -> str:
    """The try-on page with this product chosen."""
    return f"{ROUTE}?{ITEM_PARAM}={product_id}"


class TryOnState(rx.State):
    """The try-on page: one photo, one chosen item, one result at a time."""

    items: list[ItemView] = []
    items_loading: bool = True
    items_failed: bool = False
    selected_id: str = ""
    #: The photo as shown (a data URL of the prepared JPEG); "" until one is uploaded.
    photo_url: str = ""
    #: The photo wearing the chosen item (a data URL); "" until the first try-on.
    result_url: str = ""
    uploading: bool = False
    processing: bool = False
    error: str = ""
    #: Bumped by each new photo or try-on, so a late answer for an older one is dropped.
    _generation: int = 0

    @rx.var
    def can_try_on(self) -> bool:
        return bool(self.photo_url) and bool(self.selected_id) and not self.processing and not self.uploading

    @rx.var
    def preview_url(self) -> str:
        """The result when there is one, else the photo (the result replaces the preview)."""
        return self.result_url or self.photo_url

    @rx.var
    def result_file_name(self) -> str:
        return "virtual-try-on.png" if self.result_url.startswith("data:image/png") else "virtual-try-on.jpg"

    @rx.event(background=True)
    async def load(self):
        """The items; `?item=<product id>` (a product page's Try It On link) chooses that one."""
        async with self:
            self._forget_photo()  # each visit starts without an earlier visit's photo
            self.items_loading, self.items_failed = True, False
            wanted = self.router.url.query_parameters.get(ITEM_PARAM, "")
        try:
            views = await asyncio.to_thread(item_views, wanted)
        except Exception:
            log.exception("Failed to load the try-on items")
            async with self:
                self.items_loading, self.items_failed = False, True
            return
        async with self:
            self.items = views
            self.items_loading = False
            offered = {view["id"] for view in views}
            if wanted in offered:
                self.selected_id = wanted
            elif self.selected_id not in offered:
                self.selected_id = ""

    def _forget_photo(self) -> None:
        self._generation += 1  # a try-on still running for this photo is dropped when it ends
        self.photo_url, self.result_url, self.error = "", "", ""

    @rx.event
    def forget_photo(self):
        """The shopper left the page: the photo and its result leave the tab's state with them."""
        self._forget_photo()

    @rx.event
    def select_item(self, product_id: str):
        if any(view["id"] == product_id for view in self.items) and not self.processing:
            self.selected_id = product_id
            self.error = ""

    @rx.event
    async def photo_chosen(self):
        """Sent just before the photo's upload: an address whose try-ons are used up is told so
        here, because the upload gate's refusal (429, before the body is read) reaches no handler."""
        if await asyncio.to_thread(_spent, self.router.session.client_ip):
            self.error = throttle.TOO_MANY_TRY_ONS

    @rx.event
    async def upload_photo(self, files: list[rx.UploadFile]):
        """The photo chosen or dropped (already counted by the upload gate): checked, made small
        and shown; the last result is cleared."""
        if not files or self.processing:
            return
        self.uploading, self.error = True, ""
        yield
        try:
            # Never more than one byte past the limit: a larger file is refused without being read whole.
            data = await files[0].read(MAX_IMAGE_BYTES + 1)
            photo = await asyncio.to_thread(fitting.prepare_photo, data)
        except ServiceError as refused:
            self.uploading, self.error = False, refused.message
            return
        except Exception:
            log.exception(fitting.FAILED_TO_PROCESS)
            self.uploading, self.error = False, NOT_AN_IMAGE
            return
        self._generation += 1
        self.photo_url = image_data_url(photo)
        self.result_url = ""
        self.uploading = False

    @rx.event
    def reject_photo(self, codes: list[str]):
        """A file the picker refused before sending it (too large, not an image)."""
        self.error = PHOTO_TOO_LARGE if any(DROPZONE_TOO_LARGE in code for code in codes) else NOT_AN_IMAGE

    @rx.event(background=True)
    async def try_on(self):
        async with self:
            if not self.can_try_on:
                return
            self._generation += 1
            generation, photo_url, product_id = self._generation, self.photo_url, self.selected_id
            client = self.router.session.client_ip
            self.processing, self.error = True, ""
        try:
            await asyncio.to_thread(_count, client)
            result, error = await asyncio.to_thread(_try_on, photo_url, product_id), ""
        except ServiceError as refused:
            result, error = "", refused.message
        except Exception:
            log.exception(fitting.FAILED_TO_PROCESS)
            result, error = "", ENGINE_FAILED
        async with self:
            self.processing = False
            if generation != self._generation:
                return
            if result:
                self.result_url = result
            self.error = error
        if result:
            return scroll_into_view(PREVIEW_ID, only_if_hidden=True)
        return None
