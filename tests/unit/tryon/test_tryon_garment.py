"""The garment cut-out and its key points (storefront.services.tryon.garment), on the demo garments."""

import io

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont
from skimage import data as samples

from bench.tryon_quality import API_FLAT_LAY, API_RENDITION, API_TRANSPARENT, ON_THE_PAGE, item_pictures
from storefront.services.media.demo_images import render_garment, render_garment_cutout
from storefront.services.tryon.engine import GARMENT_FIELD, UnsupportedImage
from storefront.services.tryon.garment import (
    NO_GARMENT,
    NOT_A_TOP,
    Garment,
    GarmentCache,
    cut_garment,
    garment_mask,
)

SIZE = 800


def _unit(garment_image: Image.Image, point: tuple[float, float]) -> tuple[float, float]:
    """A cut-out point in the canvas's unit coordinates (the cut-out is cropped, 2 px margin)."""
    ys, xs = np.nonzero(garment_mask(garment_image) > 0.5)
    return (point[0] + max(0, xs.min() - 2)) / SIZE, (point[1] + max(0, ys.min() - 2)) / SIZE


def _close(found: tuple[float, float], expected: tuple[float, float], tolerance: float = 0.02) -> bool:
    return abs(found[0] - expected[0]) <= tolerance and abs(found[1] - expected[1]) <= tolerance


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_tee_key_points_match_the_drawing() -> None:
    image = render_garment_cutout("tee", "#1f6feb", "#ffffff", "HELLO", SIZE)
    p = cut_garment(image).points
    expected = {
        "neck": (0.5, 0.155),  # top of the back collar
        "left_shoulder": (0.315, 0.205),
        "right_shoulder": (0.685, 0.205),
        "left_armpit": (0.318, 0.405),
        "right_armpit": (0.682, 0.405),
        "hem_left": (0.312, 0.865),
        "hem_right": (0.688, 0.865),
        "hem_centre": (0.5, 0.865),
        "left_cuff": (0.17, 0.41),  # middle of the sleeve's open end
        "right_cuff": (0.83, 0.41),
    }
    for name, point in expected.items():
        assert _close(_unit(image, getattr(p, name)), point), (name, _unit(image, getattr(p, name)), point)
    assert p.long_sleeves is False


@pytest.mark.parametrize("kind", ["hoodie", "crewneck"])
def test_long_sleeved_key_points_match_the_drawing(kind: str) -> None:
    image = render_garment_cutout(kind, "#2e7d32", "#ffcc00", "CLUB", SIZE)
    p = cut_garment(image).points
    neck_y = 0.19 if kind == "hoodie" else 0.17
    expected = {
        "left_shoulder": (0.30, neck_y + 0.035),
        "right_shoulder": (0.70, neck_y + 0.035),
        "left_armpit": (0.315, 0.425),
        "right_armpit": (0.685, 0.425),
        "hem_left": (0.30, 0.895),  # the waistband's bottom corners
        "hem_right": (0.70, 0.895),
        "left_cuff": (0.208, 0.79),  # middle of the ribbed cuff's end
        "right_cuff": (0.792, 0.79),
    }
    for name, point in expected.items():
        assert _close(_unit(image, getattr(p, name)), point), (name, _unit(image, getattr(p, name)), point)
    assert p.long_sleeves is True
    if kind == "crewneck":
        assert _close(_unit(image, p.neck), (0.5, 0.148))
    else:
        assert _close(_unit(image, p.neck), (0.5, 0.055))  # the hood's top


@pytest.mark.parametrize(
    ("kind", "colour"),
    [("tee", "#1f6feb"), ("tee", "#ffffff"), ("hoodie", "#222222"), ("crewneck", "#c62828")],
)
def test_product_photo_backdrop_is_removed_like_the_cutout(kind: str, colour: str) -> None:
    cutout = render_garment_cutout(kind, colour, "#ffcc00", "LABEL", SIZE)
    photo = render_garment(kind, colour, "#ffcc00", "LABEL", SIZE)
    assert photo.mode == "RGB"  # opaque: the backdrop has to be thresholded away
    a, b = garment_mask(cutout) > 0.5, garment_mask(photo) > 0.5
    assert (a & b).sum() / (a | b).sum() > 0.9
    from_cutout, from_photo = cut_garment(cutout).points, cut_garment(photo).points
    for name in ("left_shoulder", "right_shoulder", "left_armpit", "hem_centre", "left_cuff"):
        assert _close(_unit(photo, getattr(from_photo, name)), _unit(cutout, getattr(from_cutout, name))), name


def test_cutout_is_cropped_with_the_garment_colour() -> None:
    garment = cut_garment(render_garment("tee", "#1f6feb", "#ffffff", "HELLO", SIZE))
    w, h = garment.size
    assert w < SIZE * 0.8 and h < SIZE * 0.8
    assert garment.rgba[0, 0, 3] == 0 and garment.rgba[h // 2, w // 2, 3] == 255
    assert np.abs(np.array(garment.dominant_colour()) - (0x1F, 0x6F, 0xEB)).max() < 12


@pytest.mark.parametrize(
    "image",
    [
        Image.new("RGBA", (300, 300), (0, 0, 0, 0)),  # transparent: nothing there
        Image.new("RGB", (300, 300), (240, 240, 240)),  # plain backdrop: nothing but background
        Image.fromarray(np.random.default_rng(1).integers(0, 255, (200, 200, 3), dtype=np.uint8)),  # no backdrop
    ],
    ids=["transparent", "blank", "noise"],
)
def test_no_garment_is_refused_for_the_item_field(image: Image.Image) -> None:
    with pytest.raises(UnsupportedImage) as refused:
        cut_garment(image)
    assert refused.value.message == NO_GARMENT
    assert refused.value.details == {GARMENT_FIELD: NO_GARMENT}


def test_cache_measures_each_garment_once() -> None:
    cache = GarmentCache(max_entries=2)
    tee = render_garment_cutout("tee", "#1f6feb", "#ffffff", "A", 300)
    data = _png(tee)
    loads: list[int] = []

    def load() -> Image.Image:
        loads.append(1)
        return tee

    first = cache.get(data, load)
    assert cache.get(data, load) is first
    assert len(loads) == 1 and cache.misses == 1
    hoodie = render_garment_cutout("hoodie", "#1f6feb", "#ffffff", "B", 300)
    crew = render_garment_cutout("crewneck", "#1f6feb", "#ffffff", "C", 300)
    cache.get(_png(hoodie), lambda: hoodie)
    cache.get(_png(crew), lambda: crew)  # evicts the tee, the least recently used
    assert len(cache) == 2
    assert cache.get(data, load) is not first
    assert len(loads) == 2


def _unit_box(garment_alpha: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A cut-out's silhouette scaled to `size` (width, height), to compare cut-outs of any scale."""
    return cv2.resize((garment_alpha > 127).astype(np.uint8), size, interpolation=cv2.INTER_NEAREST).astype(bool)


@pytest.mark.parametrize("way", [API_RENDITION, API_FLAT_LAY, API_TRANSPARENT])
@pytest.mark.parametrize(("kind", "colour", "trim"), [("tee", "#c8102e", "#ffffff"), ("hoodie", "#1f4fbf", "#ffffff"),
                                                      ("crewneck", "#2b2b2b", "#c8a24a")])
def test_a_picture_from_elsewhere_is_cut_like_the_store_s_cutout(way: str, kind: str, colour: str, trim: str) -> None:
    """A white trim on a white flat-lay stays, the drop shadow and the mockup's floor shadow go."""
    pictures = item_pictures(kind, colour, trim, "LABEL")
    ours, theirs = cut_garment(pictures[ON_THE_PAGE][0]), cut_garment(pictures[way][0])
    a = _unit_box(ours.rgba[..., 3], (400, 400))
    b = _unit_box(theirs.rgba[..., 3], (400, 400))
    assert (a & b).sum() / (a | b).sum() > 0.95
    for name in (
        "neck",
        "left_shoulder",
        "right_shoulder",
        "left_armpit",
        "hem_left",
        "hem_right",
        "left_cuff",
        "right_cuff",
    ):
        mine = np.array(getattr(ours.points, name)) / ours.size
        found = np.array(getattr(theirs.points, name)) / theirs.size
        assert np.abs(mine - found).max() < 0.03, (name, mine, found)


@pytest.mark.parametrize("way", [API_RENDITION, API_FLAT_LAY])
def test_a_dark_garment_cut_from_a_light_backdrop_has_no_light_fringe(way: str) -> None:
    garment = cut_garment(item_pictures("crewneck", "#2b2b2b", "#c8a24a", "LABEL")[way][0])
    assert _light_edge(garment, 150) < 0.01


def _light_edge(garment: Garment, light: int) -> float:
    """The share of the cut-out's outermost opaque pixels that are lighter than `light` in every channel."""
    solid = garment.rgba[..., 3] > 127
    edge = solid & ~cv2.erode(solid.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return float((garment.rgba[edge][:, :3].min(axis=1) > light).mean())


def _text_logo() -> Image.Image:
    logo = Image.new("RGB", (800, 400), "white")
    ImageDraw.Draw(logo).text((60, 120), "SWDNN", fill=(155, 17, 30), font=ImageFont.load_default(180))
    return logo


def _round_badge() -> Image.Image:
    badge = Image.new("RGB", (600, 600), "white")
    ImageDraw.Draw(badge).ellipse((100, 100, 500, 500), fill=(30, 60, 200))
    return badge


@pytest.mark.parametrize(
    "image",
    [
        Image.fromarray(samples.coffee()),  # a scene
        Image.fromarray(samples.chelsea()),  # an animal
        Image.fromarray(samples.astronaut()),  # a person, not a garment
        Image.fromarray(samples.logo()),  # a logo on a transparent background
        _text_logo(),
        _round_badge(),
    ],
    ids=["landscape", "cat", "person", "logo", "lettering", "badge"],
)
def test_a_picture_of_no_top_is_refused_with_a_sentence(image: Image.Image) -> None:
    with pytest.raises(UnsupportedImage) as refused:
        cut_garment(image)
    assert refused.value.message == NOT_A_TOP
    assert refused.value.details == {GARMENT_FIELD: NOT_A_TOP}


@pytest.mark.parametrize(
    ("backdrop", "colour"),
    [((250, 200, 0), "#1d4ed8"), ((0, 128, 128), "#f3e5c8"), ((20, 20, 20), "#2b2b2b"), ((120, 120, 120), "#2b2b2b")],
    ids=["yellow", "teal", "black-on-black", "grey"],
)
def test_a_garment_on_a_coloured_backdrop_with_a_floor_shadow_is_cut_out(
    backdrop: tuple[int, int, int], colour: str
) -> None:
    garment = render_garment_cutout("hoodie", colour, "#c8a24a", "LABEL", 700)
    canvas = Image.new("RGBA", (900, 900), (*backdrop, 255))
    shadow = Image.new("L", (900, 900), 0)
    ImageDraw.Draw(shadow).ellipse((200, 780, 700, 840), fill=70)
    canvas.alpha_composite(
        Image.merge("RGBA", (*Image.new("RGB", (900, 900)).split(), shadow.filter(ImageFilter.GaussianBlur(12))))
    )
    canvas.alpha_composite(garment, (100, 80))
    out = io.BytesIO()
    canvas.convert("RGB").save(out, "JPEG", quality=85)
    truth = np.zeros((900, 900), bool)
    truth[80:780, 100:800] = np.asarray(garment)[..., 3] > 127
    cut = garment_mask(Image.open(out)) > 0.5
    assert (cut & truth).sum() / (cut | truth).sum() > 0.97
