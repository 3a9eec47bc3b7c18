"""Image uploads (spec section 7): POST /api/upload/images, admin only.

The multipart body is parsed here rather than by FastAPI's File() so the limits hold while it
arrives: the eleventh file is refused as soon as its headers are seen, the whole body is capped,
and each file is read at most MAX_IMAGE_BYTES + 1 bytes (Content-Length is never trusted). The
service then checks every file by content and stores all of them or none.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from storefront.api.admin.session import ADMIN_ERRORS, ADMIN_ONLY
from storefront.api.bodies import BodyTooLarge, capped
from storefront.api.schemas import errors
from storefront.api.uploads_schemas import UPLOAD_BODY, UploadAnswer
from storefront.services.media import uploads
from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import ValidationError

router = APIRouter(dependencies=ADMIN_ONLY, responses=ADMIN_ERRORS, tags=["uploads (admin)"])

UPLOAD_IMAGES = "/api/upload/images"
FIELD = "images"
#: The folder of UPLOAD_DIR event photos go to.
FOLDER = "events"
#: Room for the multipart framing and a few small fields around the files.
_FRAMING_BYTES = 1024 * 1024
#: The most a request body may hold: every allowed file at the largest size, plus framing.
MAX_BODY_BYTES = uploads.MAX_FILES_PER_REQUEST * (MAX_IMAGE_BYTES + 64 * 1024) + _FRAMING_BYTES
BODY_TOO_LARGE = "The upload is too large: send at most 10 images of up to 10 MB each."
INVALID_UPLOAD = "Send the images as multipart/form-data in the field 'images'."


async def _form(request: Request) -> FormData:
    """The multipart form, parsed with the file count and body size limits; ValidationError
    (422) for too many files or a body that is not multipart."""
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise ValidationError(INVALID_UPLOAD, {FIELD: uploads.NO_FILES})
    parser = MultiPartParser(
        request.headers,
        capped(request.stream(), MAX_BODY_BYTES),
        max_files=uploads.MAX_FILES_PER_REQUEST,
        max_fields=100,
    )
    try:
        return await parser.parse()
    except MultiPartException as exc:
        if exc.message.startswith("Too many files"):
            raise ValidationError(uploads.TOO_MANY_FILES, {FIELD: uploads.TOO_MANY_FILES}) from None
        raise ValidationError(INVALID_UPLOAD, {FIELD: exc.message}) from None


async def _read(file: UploadFile) -> uploads.UploadedFile:
    """The file's bytes, never more than one byte past the size limit (so a larger file is
    refused without being read whole)."""
    data = await file.read(MAX_IMAGE_BYTES + 1)
    return uploads.UploadedFile(filename=file.filename or "", data=data)


@router.post(
    UPLOAD_IMAGES, response_model=UploadAnswer, openapi_extra={"requestBody": UPLOAD_BODY}, responses=errors(413)
)
async def upload_images(request: Request) -> Any:
    """Multipart field `images` (1 to 10 files, each an image of at most 10 MB): every file is
    re-encoded as WebP and stored, or none is. {files: [{url}]}."""
    try:
        form = await _form(request)
    except BodyTooLarge:
        return JSONResponse({"error": BODY_TOO_LARGE, "details": {FIELD: BODY_TOO_LARGE}}, status_code=413)
    try:
        sent = [item for item in form.getlist(FIELD) if isinstance(item, UploadFile)]
        if len(sent) > uploads.MAX_FILES_PER_REQUEST:  # the parser already stops at the 11th
            raise ValidationError(uploads.TOO_MANY_FILES, {FIELD: uploads.TOO_MANY_FILES})
        files = [await _read(file) for file in sent]
    finally:
        await form.close()
    services = request.app.state.services

    def store() -> list[uploads.StoredImage]:
        settings = services.settings
        with services.session_factory() as session:
            stored = uploads.store_uploads(session, files, settings.upload_dir, settings.media_dir, FOLDER)
            try:
                session.commit()
            except BaseException:
                # No row remembers them: the stored files go too (renditions are shared by content).
                for image in stored:
                    (settings.upload_dir / image.url.removeprefix(uploads.UPLOADS_URL + "/")).unlink(missing_ok=True)
                raise
            return stored

    stored = await run_in_threadpool(store)
    return {"files": [{"url": image.url} for image in stored]}
