"""Reading a source image's bytes: the store's own uploads from disk, provider images over HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx

from storefront.services.media.images import IMAGE_TOO_LARGE, MAX_IMAGE_BYTES, ImageRejected

UPLOADS_URL = "/uploads/"
FETCH_TIMEOUT_SECONDS = 15.0
USER_AGENT = "storefront-images/1.0 (Python; httpx)"


class ImageUnavailable(Exception):
    """The source could not be read now (network, 5xx, 429, missing file); try again later."""


class ImageSourceLoader:
    """Reads the bytes behind an image address, at most MAX_IMAGE_BYTES of them."""

    def __init__(self, upload_dir: Path, client: httpx.Client | None = None) -> None:
        self.upload_dir = Path(upload_dir)
        self._client = client or httpx.Client(
            timeout=FETCH_TIMEOUT_SECONDS, follow_redirects=True, headers={"User-Agent": USER_AGENT}
        )

    def close(self) -> None:
        self._client.close()

    def load(self, src: str) -> bytes:
        """The source's bytes; ImageRejected when it can never be an image, ImageUnavailable for now."""
        if src.startswith(UPLOADS_URL):
            return self._read_upload(src[len(UPLOADS_URL) :])
        if src.startswith(("https://", "http://")):
            return self._fetch(src)
        raise ImageRejected("The image address must be an http(s) URL or an uploaded file.")

    def _read_upload(self, relative: str) -> bytes:
        root = self.upload_dir.resolve()
        path = (root / relative.split("?", 1)[0]).resolve()
        if not path.is_relative_to(root):
            raise ImageRejected("The image address points outside the uploads folder.")
        try:
            if path.stat().st_size > MAX_IMAGE_BYTES:
                raise ImageRejected(IMAGE_TOO_LARGE)
            return path.read_bytes()
        except FileNotFoundError:
            raise ImageUnavailable(f"no uploaded file at {relative}") from None

    def _fetch(self, url: str) -> bytes:
        try:
            with self._client.stream("GET", url) as response:
                if response.status_code == 429 or response.status_code >= 500:
                    raise ImageUnavailable(f"HTTP {response.status_code} from {url}")
                if response.status_code >= 400:
                    raise ImageRejected(f"The image could not be fetched (HTTP {response.status_code}).")
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > MAX_IMAGE_BYTES:
                    raise ImageRejected(IMAGE_TOO_LARGE)
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_IMAGE_BYTES:
                        raise ImageRejected(IMAGE_TOO_LARGE)
                return bytes(body)
        except httpx.HTTPError as exc:
            raise ImageUnavailable(f"{type(exc).__name__} fetching {url}") from None
