"""Virtual try-on: the engine interface and its errors (`engine.py`), the local engine (`local.py`,
imported on first use: MediaPipe is slow to import), the hosted engine (`remote.py`), and the use
case the page and the API share (`fitting.py`, `items.py`).

May use: platform, media, catalog.
"""

from storefront.services.tryon.engine import (
    ENGINE_FAILED,
    NO_PERSON_FOUND,
    SHOULDERS_NOT_VISIBLE,
    EngineFailed,
    NoPersonFound,
    PoseNotSuitable,
    ShouldersNotVisible,
    TryOnEngine,
    UnsupportedImage,
    decode_inputs,
)
from storefront.services.tryon.remote import RemoteTryOnEngine

__all__ = [
    "ENGINE_FAILED",
    "NO_PERSON_FOUND",
    "SHOULDERS_NOT_VISIBLE",
    "EngineFailed",
    "NoPersonFound",
    "PoseNotSuitable",
    "RemoteTryOnEngine",
    "ShouldersNotVisible",
    "TryOnEngine",
    "UnsupportedImage",
    "decode_inputs",
]
