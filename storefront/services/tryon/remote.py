"""A hosted try-on engine over HTTP, falling back to another engine (the local one) when it fails.

The contract of the hosted service (tests/fakes/tryon_server.py follows it):

- `POST {endpoint}/tryon` with `Authorization: Bearer <api key>` and a multipart/form-data body of
  two files: `person` (the photo) and `garment` (the item image). We send the images decoded and
  encoded again (JPEG, or PNG when there is transparency), upright, with no EXIF or GPS data.
- It answers, as JSON:
  - `200 {"status": "done", "image": "<base64 PNG or JPEG>"}`: the finished image, or
  - `202 {"status": "pending", "job_id": "<id>"}`: a job to poll (ids are `[A-Za-z0-9_-]{1,128}`), or
  - `422 {"error": {"code": "no_person" | "shoulders_not_visible" | ..., "message": "..."}}`: the
    photo cannot be used.
- `GET {endpoint}/jobs/{id}` (same header) answers `200 {"status": "pending" | "running"}` while the
  job runs, `200 {"status": "done", "image": "..."}` when it is finished and
  `200 {"status": "failed", "error": {"code": ..., "message": ...}}` when it gave up.
- The image is PNG or JPEG of the person photo's width and height.

`no_person` and `shoulders_not_visible` (as a 422 or as a failed job's code) raise NoPersonFound and
ShouldersNotVisible: the photo is the problem, so no other engine is tried. Any other failure
(timeout, connection error, 401, 429, 5xx, other 4xx, a body not following the contract, a failed
job, a job unfinished after `max_wait` seconds) logs a warning and hands the images to `fallback`,
or raises EngineFailed when there is none. The API key is only ever put in the request header:
never in a log line, a message, an error's details or the repr.
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import re
import time
from collections.abc import Callable
from typing import Any, Self

import httpx
from PIL import Image, UnidentifiedImageError

from storefront.services.tryon.engine import (
    EngineFailed,
    NoPersonFound,
    ShouldersNotVisible,
    TryOnEngine,
    decode_inputs,
)

logger = logging.getLogger(__name__)

TRYON_PATH = "/tryon"
JOBS_PATH = "/jobs/"
DEFAULT_TIMEOUT = 30.0
DEFAULT_POLL_INTERVAL = 2.0
DEFAULT_MAX_WAIT = 120.0
#: A finished image may be larger than an upload (a PNG of a big photo); beyond this it is refused.
MAX_RESULT_BYTES = 60 * 1024 * 1024
RESULT_FORMATS = frozenset({"PNG", "JPEG"})
NO_PERSON_CODE = "no_person"
SHOULDERS_CODE = "shoulders_not_visible"
_JOB_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_RUNNING = ("pending", "running")
_JPEG_QUALITY = 92


class _Unusable(Exception):
    """The hosted engine did not give an image; the message (never holding the key) says why."""


class RemoteTryOnEngine:
    """TryOnEngine over the hosted service (module docstring); thread-safe, one connection pool."""

    def __init__(
        self,
        endpoint: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        poll_interval: float = DEFAULT_POLL_INTERVAL,
        max_wait: float = DEFAULT_MAX_WAIT,
        fallback: TryOnEngine | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self._api_key = api_key
        self.timeout = timeout
        self.poll_interval = poll_interval
        self.max_wait = max_wait
        self.fallback = fallback
        self._sleep = sleep
        self._clock = clock
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout),
            transport=transport,
            headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
        )

    def __repr__(self) -> str:
        fallback = type(self.fallback).__name__ if self.fallback is not None else None
        return f"RemoteTryOnEngine(endpoint={self.endpoint!r}, api_key='***', fallback={fallback})"

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def generate(self, person: bytes, garment: bytes) -> bytes:
        person_image, garment_image = decode_inputs(person, garment)  # UnsupportedImage: no fallback
        try:
            return self._generate(_encode(person_image), _encode(garment_image), person_image.size)
        except _Unusable as reason:
            if self.fallback is None:
                logger.warning("Remote try-on engine at %s failed: %s", self.endpoint, reason)
                raise EngineFailed() from None
            logger.warning(
                "Remote try-on engine at %s failed: %s; using %s instead",
                self.endpoint, reason, type(self.fallback).__name__,
            )
        return self.fallback.generate(person, garment)

    def _generate(self, person: bytes, garment: bytes, size: tuple[int, int]) -> bytes:
        files = {
            "person": ("person" + _extension(person), person, _mime(person)),
            "garment": ("garment" + _extension(garment), garment, _mime(garment)),
        }
        body = self._call("POST", TRYON_PATH, files=files)
        if body.get("status") == "done":
            return _result(body, size)
        job_id = body.get("job_id")
        if body.get("status") not in _RUNNING or not isinstance(job_id, str) or not _JOB_ID.match(job_id):
            raise _Unusable("the answer is neither an image nor a job to poll")
        return self._wait_for(job_id, size)

    def _wait_for(self, job_id: str, size: tuple[int, int]) -> bytes:
        """Poll the job every `poll_interval` seconds until it ends, for at most `max_wait` seconds."""
        deadline = self._clock() + self.max_wait
        while True:
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise _Unusable(f"job {job_id} did not finish within {self.max_wait:g} s")
            self._sleep(min(self.poll_interval, remaining))
            body = self._call("GET", JOBS_PATH + job_id)
            status = body.get("status")
            if status == "done":
                return _result(body, size)
            if status == "failed":
                _raise_photo_problem(body)
                raise _Unusable(f"job {job_id} failed: {_error_text(body)}")
            if status not in _RUNNING:
                raise _Unusable(f"job {job_id} has an unknown status")

    def _call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """The JSON object answered; photo problems raised as such, anything else unusable as _Unusable."""
        try:
            response = self._client.request(method, self.endpoint + path, **kwargs)
        except httpx.TimeoutException:
            raise _Unusable(f"{method} {path} timed out after {self.timeout:g} s") from None
        except httpx.HTTPError as error:
            raise _Unusable(f"{method} {path} failed: {type(error).__name__}") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code == 422 and isinstance(body, dict):
            _raise_photo_problem(body)
        if response.status_code == 401:
            raise _Unusable("the service refused the API key (401)")
        if response.status_code not in (200, 202):
            raise _Unusable(f"{method} {path} answered {response.status_code}")
        if not isinstance(body, dict):
            raise _Unusable(f"{method} {path} answered a body that is not a JSON object")
        return body


def _raise_photo_problem(body: dict[str, Any]) -> None:
    error = body.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if code == NO_PERSON_CODE:
        raise NoPersonFound()
    if code == SHOULDERS_CODE:
        raise ShouldersNotVisible()


def _error_text(body: dict[str, Any]) -> str:
    error = body.get("error")
    if isinstance(error, dict):
        return f"{error.get('code')}: {str(error.get('message'))[:200]}"
    return "no reason given"


def _result(body: dict[str, Any], size: tuple[int, int]) -> bytes:
    """The finished image's bytes, checked: PNG or JPEG, of the person photo's size."""
    encoded = body.get("image")
    if not isinstance(encoded, str) or len(encoded) > MAX_RESULT_BYTES * 4 // 3 + 4:
        raise _Unusable("the finished answer has no image")
    try:
        data = base64.b64decode(encoded, validate=True)
        with Image.open(io.BytesIO(data)) as image:
            if image.format not in RESULT_FORMATS:
                raise _Unusable(f"the finished image is {image.format}, not PNG or JPEG")
            if image.size != size:  # checked before decoding: a huge image is never loaded
                width, height = image.size
                raise _Unusable(f"the finished image is {width}x{height}, not {size[0]}x{size[1]}")
            image.load()  # a truncated image fails here
    except (binascii.Error, ValueError, UnidentifiedImageError, OSError, SyntaxError, EOFError):
        raise _Unusable("the finished image cannot be read") from None
    return data


def _encode(image: Image.Image) -> bytes:
    """JPEG, or PNG when the image has transparency: upright pixels only, no metadata."""
    out = io.BytesIO()
    if image.mode == "RGBA":
        image.save(out, "PNG")
    else:
        image.convert("RGB").save(out, "JPEG", quality=_JPEG_QUALITY)
    return out.getvalue()


def _mime(data: bytes) -> str:
    return "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"


def _extension(data: bytes) -> str:
    return ".png" if data.startswith(b"\x89PNG") else ".jpg"
