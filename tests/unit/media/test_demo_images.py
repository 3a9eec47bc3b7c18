"""Generated demo pictures: garments that look like clothing, collection tiles and write-once PNGs."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from storefront.services.collections import COLLECTIONS, HWDRN
from storefront.services.media.demo_images import ensure_png, hex_to_rgb, render_collection_tile, render_garment

KINDS = ("tee", "hoodie", "crewneck")
PRIMARY, SECONDARY = "#c8102e", "#ffffff"
SIZE = 400
#: Where each kind's chest print sits (fractions of the image): clear of collar, drawstrings and pocket.
CHEST = {"tee": (0.34, 0.36, 0.66, 0.50), "hoodie": (0.34, 0.45, 0.66, 0.60), "crewneck": (0.34, 0.37, 0.66, 0.51)}


def _near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 10) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel[:3], colour, strict=False))


def _count(image: Image.Image, colour: str, box: tuple[float, float, float, float] = (0, 0, 1, 1)) -> int:
    """Pixels close to `colour` inside the box given in fractions of the image size."""
    w, h = image.size
    crop = image.crop((int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)))
    target = hex_to_rgb(colour)
    return sum(n for n, pixel in crop.getcolors(maxcolors=w * h) if _near(pixel, target))


def _extent(image: Image.Image, colour: str, y: float) -> float:
    """Width (fraction of the image) between the leftmost and rightmost `colour` pixel on row y."""
    w, h = image.size
    target = hex_to_rgb(colour)
    xs = [x for x in range(w) if _near(image.getpixel((x, int(y * h))), target)]
    return (max(xs) - min(xs)) / w if xs else 0.0


@pytest.mark.parametrize("kind", KINDS)
def test_garment_has_the_requested_size(kind: str) -> None:
    image = render_garment(kind, PRIMARY, SECONDARY, "HWDRN", size=SIZE)
    assert image.size == (SIZE, SIZE)
    assert image.mode == "RGB"


@pytest.mark.parametrize("kind", KINDS)
def test_garment_body_is_a_large_share_of_primary_colour(kind: str) -> None:
    image = render_garment(kind, PRIMARY, SECONDARY, "HWDRN", size=SIZE)
    share = _count(image, PRIMARY) / (SIZE * SIZE)
    assert 0.2 < share < 0.6


@pytest.mark.parametrize("kind", KINDS)
def test_garment_background_differs_from_the_chest(kind: str) -> None:
    image = render_garment(kind, PRIMARY, SECONDARY, "", size=SIZE)
    corner = image.getpixel((3, 3))
    chest = image.getpixel((SIZE // 2, int(SIZE * 0.60)))
    assert _near(chest, hex_to_rgb(PRIMARY))
    assert not _near(corner, hex_to_rgb(PRIMARY), tolerance=40)


@pytest.mark.parametrize("kind", KINDS)
def test_garment_sleeves_make_it_wider_than_the_hem(kind: str) -> None:
    image = render_garment(kind, PRIMARY, SECONDARY, "", size=SIZE)
    assert _extent(image, PRIMARY, 0.45) > 1.3 * _extent(image, PRIMARY, 0.80)


@pytest.mark.parametrize("kind", KINDS)
def test_garment_label_is_printed_on_the_chest_in_the_secondary_colour(kind: str) -> None:
    chest = CHEST[kind]
    labelled = render_garment(kind, PRIMARY, SECONDARY, "HWDRN", size=SIZE)
    blank = render_garment(kind, PRIMARY, SECONDARY, "", size=SIZE)
    assert _count(labelled, SECONDARY, chest) > 300
    assert _count(blank, SECONDARY, chest) == 0


@pytest.mark.parametrize("kind", KINDS)
def test_garment_trim_uses_the_secondary_colour(kind: str) -> None:
    image = render_garment(kind, PRIMARY, SECONDARY, "", size=SIZE)
    hem = (0.25, 0.80, 0.75, 0.92)
    assert _count(image, SECONDARY, hem) > 500


def test_garment_kinds_have_different_silhouettes() -> None:
    images = [render_garment(kind, PRIMARY, SECONDARY, "", size=SIZE).tobytes() for kind in KINDS]
    assert len(set(images)) == len(KINDS)


def test_garment_back_view_differs_from_the_front() -> None:
    front = render_garment("hoodie", PRIMARY, SECONDARY, "HWDRN", size=SIZE)
    back = render_garment("hoodie", PRIMARY, SECONDARY, "HWDRN", size=SIZE, back=True)
    assert front.tobytes() != back.tobytes()


def test_garment_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError):
        render_garment("scarf", PRIMARY, SECONDARY, "HWDRN", size=SIZE)  # type: ignore[arg-type]


def test_pale_label_on_pale_garment_gets_a_readable_outline() -> None:
    image = render_garment("tee", "#ffffff", "#f3e5c8", "SWDNN", size=SIZE)
    assert _count(image, "#141414", CHEST["tee"]) > 100


@pytest.mark.parametrize("collection", COLLECTIONS, ids=lambda c: c.key)
def test_collection_tile_renders_in_the_collection_colours(collection) -> None:
    tile = render_collection_tile(collection, size=(400, 300))
    assert tile.size == (400, 300)
    assert _count(tile, collection.primary) > 400 * 300 * 0.05
    assert _count(tile, collection.secondary) > 400 * 300 * 0.02


def test_ensure_png_writes_the_file_once(tmp_path: Path) -> None:
    calls: list[int] = []

    def render() -> Image.Image:
        calls.append(1)
        return render_collection_tile(HWDRN, size=(200, 150))

    target = tmp_path / "tiles" / "hwdrn.png"
    assert ensure_png(target, render) is True
    assert ensure_png(target, render) is False
    assert len(calls) == 1
    with Image.open(target) as written:
        assert (written.format, written.size) == ("PNG", (200, 150))


def test_ensure_png_leaves_no_temporary_files(tmp_path: Path) -> None:
    ensure_png(tmp_path / "tee.png", lambda: render_garment("tee", PRIMARY, SECONDARY, "X", size=64))
    assert [p.name for p in tmp_path.iterdir()] == ["tee.png"]


def test_ensure_png_keeps_no_partial_file_when_rendering_fails(tmp_path: Path) -> None:
    def broken() -> Image.Image:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        ensure_png(tmp_path / "broken.png", broken)
    assert list(tmp_path.iterdir()) == []
