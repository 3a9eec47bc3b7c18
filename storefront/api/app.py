"""The HTTP API (spec section 7) and static files, mounted in front of the Reflex backend."""

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from storefront.config import Settings


def create_api(settings: Settings) -> FastAPI:
    """The FastAPI app; it never shadows Reflex's own /_event, /_upload or /ping."""
    api = FastAPI(title="Storefront API", docs_url="/api/docs", openapi_url="/api/openapi.json")
    settings.upload_dir.mkdir(parents=True, exist_ok=True)
    api.mount("/uploads", StaticFiles(directory=settings.upload_dir), name="uploads")
    return api
