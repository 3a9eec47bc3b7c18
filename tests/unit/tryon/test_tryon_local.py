"""The local try-on engine (storefront.services.tryon.local) on real photos, with the real MediaPipe.

Photos: scikit-image's astronaut (a waist-up woman) and matplotlib's Grace Hopper portrait; garments:
the demo store's tee / hoodie / crewneck cut-outs and a tee product photo on its backdrop."""

import io

import cv2
import matplotlib.cbook
import numpy as np
import pytest
from PIL import Image
from skimage import data

from storefront.services.media.demo_images import render_garment, render_garment_cutout
from storefront.services.tryon import local as local_module
from storefront.services.tryon.engine import (
    GARMENT_FIELD,
    PERSON_FIELD,
    EngineFailed,
    NoPersonFound,
    ShouldersNotVisible,
    TryOnEngine,
    UnsupportedImage,
)
from storefront.services.tryon.garment import NO_GARMENT
from storefront.services.tryon.local import LocalTryOnEngine
from storefront.services.tryon.pose import PoseResult, shared_detector

BLUE = (0x1F, 0x6F, 0xEB)
GREEN = (0x2E, 0x7D, 0x32)
RED = (0xC6, 0x28, 0x28)


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


@pytest.fixture(scope="module")
def engine() -> LocalTryOnEngine:
    engine = LocalTryOnEngine()
    engine.warm_up()
    return engine


@pytest.fixture(scope="module")
def astronaut() -> Image.Image:
    return Image.fromarray(data.astronaut())


@pytest.fixture(scope="module")
def hopper() -> Image.Image:
    with matplotlib.cbook.get_sample_data("grace_hopper.jpg") as f:
        return Image.open(f).convert("RGB")


@pytest.fixture(scope="module")
def blue_tee() -> bytes:
    return _png(render_garment_cutout("tee", _hex(BLUE), "#ffffff", "HELLO"))


def _dressed(engine: LocalTryOnEngine, photo: Image.Image, garment: bytes) -> np.ndarray:
    out = Image.open(io.BytesIO(engine.generate(_png(photo), garment)))
    assert out.format == "PNG"
    assert out.size == photo.size
    return np.asarray(out.convert("RGB")).astype(int)


def _pose(photo: Image.Image) -> PoseResult:
    return shared_detector().detect(np.asarray(photo.convert("RGB")))


def _torso_box(pose: PoseResult) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1: between the shoulders (inset), from below them to a bit above the hips."""
    ls, rs = pose.points["left_shoulder"], pose.points["right_shoulder"]
    sw = abs(ls.x - rs.x)
    x0, x1 = min(ls.x, rs.x) + 0.15 * sw, max(ls.x, rs.x) - 0.15 * sw
    top = max(ls.y, rs.y) + 0.1 * sw
    bottom = min(pose.height, top + 1.0 * sw)  # the hips are about 1.3 shoulder widths down
    return int(x0), int(top), int(x1), int(bottom)


def _face_box(pose: PoseResult) -> tuple[int, int, int, int]:
    p = pose.points
    xs = [p[n].x for n in ("left_eye", "right_eye", "nose")]
    ys = [p[n].y for n in ("left_eye", "right_eye", "nose")]
    return int(min(xs)) - 8, int(min(ys)) - 8, int(max(xs)) + 8, int(max(ys)) + 8


def _assert_dressed(before: np.ndarray, after: np.ndarray, pose: PoseResult, colour: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = _torso_box(pose)
    changed = np.abs(after[y0:y1, x0:x1] - before[y0:y1, x0:x1]).sum(axis=2) > 30
    assert changed.mean() > 0.7
    median = np.median(after[y0:y1, x0:x1].reshape(-1, 3), axis=0)
    assert np.abs(median - colour).max() < 60, median
    near = np.abs(after[y0:y1, x0:x1] - colour).max(axis=2) < 70
    assert near.mean() > 0.5  # the garment's colour dominates (labels and shading aside)
    fx0, fy0, fx1, fy1 = _face_box(pose)
    assert np.array_equal(after[fy0:fy1, fx0:fx1], before[fy0:fy1, fx0:fx1])
    # Away from the body (mask grown by a sixth of the shoulder width) nothing moved.
    sw = abs(pose.points["left_shoulder"].x - pose.points["right_shoulder"].x)
    r = int(sw / 6)
    body = cv2.dilate((pose.mask > 0.2).astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8))
    far = body == 0
    assert far.mean() > 0.02
    assert np.array_equal(after[far], before[far])


def test_is_a_try_on_engine(engine: LocalTryOnEngine) -> None:
    assert isinstance(engine, TryOnEngine)
    assert "work_size=1024" in repr(engine)


def test_tee_on_the_astronaut(engine: LocalTryOnEngine, astronaut: Image.Image, blue_tee: bytes) -> None:
    after = _dressed(engine, astronaut, blue_tee)
    _assert_dressed(np.asarray(astronaut).astype(int), after, _pose(astronaut), BLUE)


def test_hoodie_on_grace_hopper(engine: LocalTryOnEngine, hopper: Image.Image) -> None:
    hoodie = _png(render_garment_cutout("hoodie", _hex(GREEN), "#ffcc00", "CLUB"))
    after = _dressed(engine, hopper, hoodie)
    _assert_dressed(np.asarray(hopper).astype(int), after, _pose(hopper), GREEN)


def test_crewneck_product_photo_on_its_backdrop(engine: LocalTryOnEngine, astronaut: Image.Image) -> None:
    photo = render_garment("crewneck", _hex(RED), "#ffffff", "STORE")
    assert photo.mode == "RGB"  # no transparency: the engine removes the backdrop itself
    after = _dressed(engine, astronaut, _png(photo))
    _assert_dressed(np.asarray(astronaut).astype(int), after, _pose(astronaut), RED)


def test_large_photo_keeps_its_size_and_face(engine: LocalTryOnEngine, hopper: Image.Image, blue_tee: bytes) -> None:
    big = hopper.resize((1706, 2000), Image.Resampling.LANCZOS)
    after = _dressed(engine, big, blue_tee)
    before = np.asarray(big).astype(int)
    pose = _pose(hopper)  # key points of the small photo, scaled up
    fx = big.width / hopper.width
    x0, y0, x1, y1 = (int(v * fx) for v in _face_box(pose))
    assert np.array_equal(after[y0:y1, x0:x1], before[y0:y1, x0:x1])
    bx0, by0, bx1, by1 = (int(v * fx) for v in _torso_box(pose))
    changed = np.abs(after[by0:by1, bx0:bx1] - before[by0:by1, bx0:bx1]).sum(axis=2) > 30
    assert changed.mean() > 0.7


def test_exif_rotated_photo_answers_upright_size(
    engine: LocalTryOnEngine, hopper: Image.Image, blue_tee: bytes
) -> None:
    stored = hopper.transpose(Image.Transpose.ROTATE_90)  # stored sideways, 600 x 512
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90 degrees clockwise to show
    buffer = io.BytesIO()
    stored.save(buffer, format="JPEG", quality=95, exif=exif.tobytes())
    out = Image.open(io.BytesIO(engine.generate(buffer.getvalue(), blue_tee)))
    assert out.size == hopper.size == (512, 600)
    # Upright, the garment is on the body below the face (not sideways).
    after = np.asarray(out.convert("RGB")).astype(int)
    x0, y0, x1, y1 = _torso_box(_pose(hopper))
    assert (np.abs(after[y0:y1, x0:x1] - BLUE).max(axis=2) < 70).mean() > 0.5


def _landscape() -> Image.Image:
    yy, xx = np.mgrid[0:400, 0:640]
    sky = np.dstack([60 + xx * 0.3, 120 + yy * 0.2, 255 - yy * 0.3])
    return Image.fromarray(sky.astype(np.uint8))


@pytest.mark.parametrize("photo", [Image.fromarray(data.coffee()), _landscape()], ids=["coffee", "gradient"])
def test_no_person(engine: LocalTryOnEngine, photo: Image.Image, blue_tee: bytes) -> None:
    with pytest.raises(NoPersonFound) as refused:
        engine.generate(_png(photo), blue_tee)
    assert PERSON_FIELD in refused.value.details


@pytest.mark.parametrize("crop", ["head", "one_shoulder"])
def test_shoulders_out_of_frame(engine: LocalTryOnEngine, hopper: Image.Image, blue_tee: bytes, crop: str) -> None:
    box = (0, 0, hopper.width, 360) if crop == "head" else (200, 0, hopper.width, hopper.height)
    with pytest.raises((ShouldersNotVisible, NoPersonFound)) as refused:
        engine.generate(_png(hopper.crop(box)), blue_tee)
    assert PERSON_FIELD in refused.value.details
    if crop == "one_shoulder":
        assert isinstance(refused.value, ShouldersNotVisible)


def test_item_that_is_not_an_image(engine: LocalTryOnEngine, astronaut: Image.Image) -> None:
    with pytest.raises(UnsupportedImage) as refused:
        engine.generate(_png(astronaut), b"this is not an image")
    assert GARMENT_FIELD in refused.value.details


def test_item_with_nothing_on_it(engine: LocalTryOnEngine, astronaut: Image.Image) -> None:
    empty = _png(Image.new("RGBA", (400, 400), (0, 0, 0, 0)))
    with pytest.raises(UnsupportedImage) as refused:
        engine.generate(_png(astronaut), empty)
    assert refused.value.details == {GARMENT_FIELD: NO_GARMENT}


def test_unexpected_failure_is_engine_failed(
    engine: LocalTryOnEngine, astronaut: Image.Image, blue_tee: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(local_module, "dress", broken)
    with pytest.raises(EngineFailed):
        engine.generate(_png(astronaut), blue_tee)
