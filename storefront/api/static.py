"""Static file mounts with the cache lifetime their content allows."""

from __future__ import annotations

from typing import Any

from fastapi.staticfiles import StaticFiles
from starlette.responses import Response

#: Content-hashed names never change meaning: browsers may keep them for a year without asking.
IMMUTABLE = "public, max-age=31536000, immutable"
#: Uploaded and generated files keep their names when replaced: cached for an hour.
ONE_HOUR = "public, max-age=3600"


class CachedStaticFiles(StaticFiles):
    """StaticFiles that sends a Cache-Control header with every file (nosniff comes with every
    answer of the API app: api/security_headers.py)."""

    def __init__(self, *, cache_control: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cache_control = cache_control

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = self.cache_control
        return response
