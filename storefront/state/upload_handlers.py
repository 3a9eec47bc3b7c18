"""Which upload handler of the pages takes which kind of upload: Reflex's /_upload names its
handler in a header, and the upload gate (storefront/body_limit.py) caps and counts each kind."""

from __future__ import annotations

from reflex.utils.format import format_event_handler

from storefront.body_limit import IMAGES_UPLOAD, PHOTO_UPLOAD
from storefront.state.admin.events import AdminEventsState
from storefront.state.tryon import TryOnState


def upload_handlers() -> dict[str, str]:
    """Each upload handler's name, as the browser sends it, and its kind of upload."""
    return {
        format_event_handler(TryOnState.upload_photo): PHOTO_UPLOAD,
        format_event_handler(AdminEventsState.upload_images): IMAGES_UPLOAD,
    }
