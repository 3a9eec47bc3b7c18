"""What the photo pickers let a browser send: image types and the size limit (the server checks again)."""

from typing import Any

from reflex.vars import ArrayVar, ObjectVar, Var

from storefront.services.media.images import MAX_IMAGE_BYTES

#: The browser refuses larger files before sending them; the server checks again (services/media/images.py).
MAX_FILE_BYTES = MAX_IMAGE_BYTES
#: HEIC/HEIF are what iPhones take; the server decodes them like JPEG (services/media/images.py).
ACCEPTED_TYPES = {
    "image/jpeg": [".jpg", ".jpeg"],
    "image/png": [".png"],
    "image/gif": [".gif"],
    "image/webp": [".webp"],
    "image/heic": [".heic"],
    "image/heif": [".heif"],
}


def rejection_errors(record: Var) -> ArrayVar:
    return record.to(ObjectVar, dict[str, Any])["errors"].to(ArrayVar, list[dict[str, Any]])


def rejected_codes(rejected: Var) -> Var:
    """The reasons react-dropzone gives for each refused file, as codes ('too-many-files', ...)."""
    return rejected.to(ArrayVar).map(
        lambda record: rejection_errors(record).map(lambda e: e.to(ObjectVar, dict[str, str])["code"]).join(",")
    )
