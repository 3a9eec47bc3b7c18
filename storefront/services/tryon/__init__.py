"""Virtual try-on engines: the interface and its errors (`engine.py`), the hosted engine (`remote.py`)."""

from storefront.services.tryon.engine import (
    ENGINE_FAILED,
    NO_PERSON_FOUND,
    SHOULDERS_NOT_VISIBLE,
    EngineFailed,
    NoPersonFound,
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
    "RemoteTryOnEngine",
    "ShouldersNotVisible",
    "TryOnEngine",
    "UnsupportedImage",
    "decode_inputs",
]
