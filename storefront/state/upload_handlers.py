"""Which upload handler of the pages takes which kind of upload: Reflex's /_upload names its
handler in a header, and the upload gate (storefront/api/body_limit.py) caps and counts each kind
(services/media/uploads.py names the kinds)."""

from __future__ import annotations

from reflex.utils.format import format_event_handler

from storefront.services.media.uploads import IMAGES_UPLOAD, PHOTO_UPLOAD
from storefront.state.admin.events import AdminEventsState
from storefront.state.admin.product_design import ProductDesignState
from storefront.state.tryon import TryOnState


def upload_handlers() -> dict[str, str]:
    """Each upload handler's name, as the browser sends it, and its kind of upload."""
    return {
        format_event_handler(TryOnState.upload_photo): PHOTO_UPLOAD,
        format_event_handler(AdminEventsState.upload_images): IMAGES_UPLOAD,
        format_event_handler(ProductDesignState.upload_design): IMAGES_UPLOAD,
    }
