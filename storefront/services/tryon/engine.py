"""The try-on engine interface: a person photo and a garment image in, the person wearing it out.

An engine is synchronous (CPU or network work): callers run `generate` in a worker thread
(`asyncio.to_thread`, a background event), never on the event loop. Inputs are the raw bytes of
any image the upload checks accept (JPEG, PNG, GIF, WebP, HEIC; checked by content); the output
is PNG or JPEG bytes of the same width and height as the person photo as decoded here (upright,
after its EXIF rotation, and at most TRYON_MAX_SIDE pixels long: a larger photo is made smaller
while it is decoded, and one whose decode would hold more than TRYON_DECODE_BYTES is refused).

Engines raise only the typed errors below, so the page and the API can show their messages as
they are: the photo's problems (`NoPersonFound`, `ShouldersNotVisible`, `PoseNotSuitable`, `UnsupportedImage`) are
validation errors (422) the shopper can fix with another photo; `EngineFailed` (502) means try
again later.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from PIL import Image

from storefront.services.media.uploads import UploadedFile, decode_upload
from storefront.services.platform.errors import ServiceError, ValidationError

#: The fields of `POST /api/try-on` (spec §7), used as the keys of `field_errors`.
PERSON_FIELD = "userPhoto"
GARMENT_FIELD = "selectedItem"

NO_PERSON_FOUND = "No person found in the photo. Use a photo of one person, waist up, facing the camera."
SHOULDERS_NOT_VISIBLE = (
    "Your shoulders are not visible in the photo. Use a waist-up photo with both shoulders in view."
)
UPSIDE_DOWN = "The photo is upside down or on its side. Use an upright photo, waist up, facing the camera."
FACING_AWAY = "You are not facing the camera in the photo. Use a waist-up photo taken from the front."
ARMS_RAISED = "Your arms are raised in the photo. Use a waist-up photo with your arms down."
TORSO_CUT_OFF = "Too little of your body is in the photo. Use a waist-up photo."
ENGINE_FAILED = "The try-on could not be made right now. Please try again."
PHOTO_TOO_LARGE = "The photo is larger than 10 MB. Use a smaller one."
#: Prefixed to the upload check's reason when the garment (an item image) is the one refused.
GARMENT_LABEL = "Item image"
#: The long side a try-on input is decoded to at most (the local engine works at 1024 px).
TRYON_MAX_SIDE = 2048
#: What decoding one try-on input may hold at its peak: a 12-megapixel phone photo as PNG; a JPEG
#: of any size fits, since it is decoded at a fraction of its size.
TRYON_DECODE_BYTES = 48 * 1024 * 1024


class NoPersonFound(ValidationError):
    """The photo shows no person an engine can dress."""

    def __init__(self, message: str = NO_PERSON_FOUND) -> None:
        super().__init__(message, {PERSON_FIELD: message})


class ShouldersNotVisible(ValidationError):
    """A person is there, but not both shoulders: the garment cannot be placed."""

    def __init__(self, message: str = SHOULDERS_NOT_VISIBLE) -> None:
        super().__init__(message, {PERSON_FIELD: message})


class PoseNotSuitable(ValidationError):
    """A person with both shoulders, but posed so no garment can be fitted well; the message says how."""

    def __init__(self, message: str) -> None:
        super().__init__(message, {PERSON_FIELD: message})


class UnsupportedImage(ValidationError):
    """An input is not an image the store accepts; the message is the upload check's reason."""

    def __init__(self, message: str, field: str = PERSON_FIELD) -> None:
        super().__init__(message, {field: message})


class InputTooLarge(ServiceError):
    """An input is over the upload size limit: refused before it is decoded (413)."""

    status_code = 413

    def __init__(self, message: str = PHOTO_TOO_LARGE, field: str = PERSON_FIELD) -> None:
        super().__init__(message, {field: message})
        self.field_errors = {field: message}


class EngineFailed(ServiceError):
    """No engine could make the image (service down, timed out, answered nonsense)."""

    status_code = 502

    def __init__(self, message: str = ENGINE_FAILED, details: object | None = None) -> None:
        super().__init__(message, details)


@runtime_checkable
class TryOnEngine(Protocol):
    """Anything that dresses a person photo in a garment; see the module docstring for the rules."""

    def generate(self, person: bytes, garment: bytes) -> bytes:
        """PNG or JPEG bytes, the size of `person`; raises only the errors of this module."""
        ...


def decode_inputs(person: bytes, garment: bytes) -> tuple[Image.Image, Image.Image]:
    """Both images decoded (upright, RGB or RGBA) by the upload checks, or UnsupportedImage saying why.

    Every engine calls this first, so a bad photo gets the same message whichever engine runs."""
    return _decode(person, "", PERSON_FIELD), _decode(garment, GARMENT_LABEL, GARMENT_FIELD)


def decode_photo(data: bytes) -> Image.Image:
    """The person photo alone, decoded as `decode_inputs` does (the page checks it on upload)."""
    return _decode(data, "", PERSON_FIELD)


def _decode(data: bytes, label: str, field: str) -> Image.Image:
    try:
        return decode_upload(
            UploadedFile(filename=label, data=data), fit=TRYON_MAX_SIDE, max_decode_bytes=TRYON_DECODE_BYTES
        )
    except ValidationError as refused:
        raise UnsupportedImage(refused.message, field) from None
