"""The engine the settings choose: local by default; remote over real HTTP (the fake hosted
service on loopback) that falls back to the real local engine when the service times out."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from skimage import data as samples

from storefront import wiring
from storefront.config import Settings
from storefront.services.media.demo_images import render_garment_cutout
from storefront.services.tryon import RemoteTryOnEngine
from storefront.services.tryon.local import LocalTryOnEngine
from tests.fakes.tryon_server import DEFAULT_API_KEY, FakeTryOnServer, tryon_server  # noqa: F401 (fixture)


def encoded(image: Image.Image, fmt: str) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


PERSON = encoded(Image.fromarray(samples.astronaut()), "JPEG")
TEE = encoded(render_garment_cutout("tee", "#1d4ed8", "#f8fafc", "HWDKN", 600), "PNG")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("TRYON_ENGINE", "TRYON_ENDPOINT", "TRYON_API_KEY", "TRYON_TIMEOUT_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_default_engine_is_the_local_one(clean_env: pytest.MonkeyPatch) -> None:
    assert isinstance(wiring.tryon_engine(Settings()), LocalTryOnEngine)


def test_the_remote_engine_falls_back_to_the_local_one_when_the_service_times_out(
    clean_env: pytest.MonkeyPatch, tryon_server: FakeTryOnServer  # noqa: F811
) -> None:
    clean_env.setenv("TRYON_ENGINE", "remote")
    clean_env.setenv("TRYON_ENDPOINT", tryon_server.endpoint)
    clean_env.setenv("TRYON_API_KEY", DEFAULT_API_KEY)
    clean_env.setenv("TRYON_TIMEOUT_SECONDS", "0.3")
    engine = wiring.tryon_engine(Settings())
    assert isinstance(engine, RemoteTryOnEngine) and isinstance(engine.fallback, LocalTryOnEngine)
    assert engine.timeout == 0.3
    tryon_server.answer_slowly(30)
    try:
        result = engine.generate(PERSON, TEE)
    finally:
        engine.close()
    assert len(tryon_server.requests_to("POST", "/tryon")) == 1  # the service was asked first
    with Image.open(io.BytesIO(result)) as image:
        assert image.size == (512, 512)
        r, g, b = image.convert("RGB").getpixel((256, 430))  # the chest: the local engine's blue tee
    assert b > 100 and b > r + 40
