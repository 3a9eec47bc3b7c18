"""How worn the local try-on looks, on real photos with the real MediaPipe: the garment stays on the
person, covers the torso, leaves the background and face as they were, keeps a hand over the chest
in front, and photos it cannot dress well are refused with their reason.

The measures are `bench/tryon_quality.py`'s (the bench prints them for four photos); here they are
thresholds on two, and on the composed studio photo against its known outline (correctness, not
speed). Drawings and landmark sets test what no shipped photo shows: hair over the shoulders, a
sleeve's reach, a folded forearm, a top of the skin's colour, a back, raised arms, the grain."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image
from skimage import data

from bench.tryon_quality import (
    API_FLAT_LAY,
    API_RENDITION,
    API_TRANSPARENT,
    MAX_SPILL_PCT,
    MIN_PRINT_MARGIN_PCT,
    MIN_SSIM,
    MIN_TORSO_COVERED_PCT,
    astronaut,
    astronaut_in_studio,
    composite,
    grace_hopper,
    item_pictures,
    measure,
    png,
)
from storefront.services.media.demo_images import hex_to_rgb, render_garment_cutout
from storefront.services.tryon import body
from storefront.services.tryon.engine import (
    ARMS_RAISED,
    FACING_AWAY,
    NO_PERSON_FOUND,
    TORSO_CUT_OFF,
    UPSIDE_DOWN,
    NoPersonFound,
    PoseNotSuitable,
)
from storefront.services.tryon.local import LocalTryOnEngine
from storefront.services.tryon.pose import LANDMARKS, Keypoint, PoseResult, shared_detector, unsuitable

GARMENTS = {
    "tee": ("#1d4ed8", "HWDKN"),
    "hoodie": ("#2e7d32", "SWDNN"),
    "crewneck": ("#c62828", "HWDPN"),
}


@pytest.fixture(scope="module")
def engine() -> LocalTryOnEngine:
    return LocalTryOnEngine()


def _garment(kind: str) -> Image.Image:
    colour, label = GARMENTS[kind]
    return render_garment_cutout(kind, colour, "#f8fafc", label, 800)  # type: ignore[arg-type]


def test_on_a_composed_photo_the_garment_stays_inside_the_known_outline(engine: LocalTryOnEngine) -> None:
    studio = astronaut_in_studio()
    item = _garment("crewneck")
    quality = measure(engine, studio.photo, item, png(item), truth=studio.truth)
    assert quality.spill_pct <= MAX_SPILL_PCT, quality
    assert quality.torso_covered_pct >= MIN_TORSO_COVERED_PCT, quality
    assert quality.background_ssim >= MIN_SSIM, quality


@pytest.mark.parametrize(
    ("photo", "kind"),
    [("astronaut", "tee"), ("astronaut", "hoodie"), ("Grace Hopper", "crewneck"), ("Grace Hopper", "tee")],
)
def test_the_garment_stays_on_the_person_and_covers_the_torso(engine: LocalTryOnEngine, photo: str, kind: str) -> None:
    image = astronaut() if photo == "astronaut" else grace_hopper()
    item = _garment(kind)
    quality = measure(engine, image, item, png(item), name=photo, garment_name=kind)
    assert quality.spill_pct <= MAX_SPILL_PCT, quality
    assert quality.torso_covered_pct >= MIN_TORSO_COVERED_PCT, quality
    assert quality.background_ssim >= MIN_SSIM, quality
    assert quality.face_ssim >= MIN_SSIM, quality


@pytest.mark.parametrize("way", [API_RENDITION, API_FLAT_LAY, API_TRANSPARENT])
@pytest.mark.parametrize(
    ("photo", "kind"), [("astronaut", "tee"), ("Grace Hopper", "crewneck"), ("astronaut", "hoodie")]
)
def test_a_picture_sent_to_the_api_is_worn_as_well_as_the_page_s_garment(
    engine: LocalTryOnEngine, photo: str, kind: str, way: str
) -> None:
    """The garment as a client may send it (the page's rendition, a white flat-lay, a transparent
    PNG; not recognised as the store's): on the person, the torso covered, the print whole."""
    image = astronaut() if photo == "astronaut" else grace_hopper()
    colour, label = GARMENTS[kind]
    item, data = item_pictures(kind, colour, "#f8fafc", label)[way]
    quality = measure(engine, image, item, data, name=photo, garment_name=kind, print_colour=hex_to_rgb("#f8fafc"))
    assert quality.misses() == [], quality
    assert quality.print_margin_pct >= MIN_PRINT_MARGIN_PCT


def _with_a_hand_on_the_chest(photo: Image.Image) -> tuple[Image.Image, np.ndarray]:
    """The photo with a hand (palm, four fingers and a thumb, in the face's skin colour) drawn over
    the chest, and where the hand is (bool)."""
    rgb = np.asarray(photo.convert("RGB")).copy()
    p = shared_detector().detect(rgb).points
    nose = p["nose"]
    skin = np.median(
        rgb[round(nose.y) - 4 : round(nose.y) + 4, round(nose.x) - 10 : round(nose.x) + 10].reshape(-1, 3), axis=0
    )
    left, right = p["left_shoulder"].xy, p["right_shoulder"].xy
    sw = float(np.linalg.norm(left - right))
    mid = (left + right) / 2
    palm = mid + np.array([0.05 * sw, min(0.55 * sw, rgb.shape[0] - mid[1] - 0.15 * sw)])
    hand = np.zeros(rgb.shape[:2], np.uint8)
    cv2.ellipse(hand, (round(palm[0]), round(palm[1])), (round(0.13 * sw), round(0.11 * sw)), 0, 0, 360, 1, -1)
    finger = max(2, round(0.05 * sw))
    for i, dx in enumerate((-0.09, -0.03, 0.03, 0.09)):
        x = round(palm[0] + dx * sw)
        tip = round(palm[1] - (0.22 - 0.02 * abs(i - 1.5)) * sw)
        cv2.line(hand, (x, round(palm[1])), (x + round(0.02 * sw), tip), 1, finger)
    thumb = (round(palm[0] + 0.22 * sw), round(palm[1] - 0.06 * sw))
    cv2.line(hand, (round(palm[0] + 0.12 * sw), round(palm[1] + 0.02 * sw)), thumb, 1, finger)
    drawn = hand.astype(bool)
    rgb[drawn] = skin.astype(np.uint8)
    return Image.fromarray(rgb), drawn


@pytest.mark.parametrize("photo", ["astronaut", "Grace Hopper"])
def test_a_hand_over_the_chest_stays_in_front_of_the_garment(engine: LocalTryOnEngine, photo: str) -> None:
    image, hand = _with_a_hand_on_the_chest(astronaut() if photo == "astronaut" else grace_hopper())
    item = _garment("tee")
    dressed = engine.layer(image, item, png(item))
    after = composite(dressed).astype(int)
    # The hand's inside (its edge may blend a pixel or two) is the photo's own.
    inside = cv2.erode(hand.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    assert inside.sum() > 200
    unchanged = np.abs(after - np.asarray(image).astype(int)).max(axis=2) <= 3
    assert unchanged[inside].mean() >= 0.97
    # And the garment is still on around it.
    ring = cv2.dilate(hand.astype(np.uint8), np.ones((31, 31), np.uint8)).astype(bool) & ~cv2.dilate(
        hand.astype(np.uint8), np.ones((15, 15), np.uint8)
    ).astype(bool)
    assert (dressed.alpha[ring] > 0.5).mean() > 0.8


def test_an_upside_down_photo_is_refused_with_its_reason(engine: LocalTryOnEngine) -> None:
    item = png(_garment("tee"))
    with pytest.raises(PoseNotSuitable) as refused:
        engine.generate(png(astronaut().rotate(180)), item)
    assert refused.value.message == UPSIDE_DOWN
    with pytest.raises(PoseNotSuitable, match="upside down"):
        engine.generate(png(grace_hopper().rotate(90, expand=True)), item)


def test_a_head_seen_from_behind_is_no_one_facing_the_camera(engine: LocalTryOnEngine) -> None:
    """The back of a head: the face covered by the hair's colour (no photo of a back ships with the
    installed packages; the landmark rule for a back the model does see is tested below)."""
    rgb = np.asarray(astronaut()).copy()
    p = shared_detector().detect(rgb).points
    hair = np.median(
        rgb[
            round(p["left_eye"].y) - 60 : round(p["left_eye"].y) - 40,
            round(p["left_eye"].x) - 5 : round(p["left_eye"].x) + 5,
        ].reshape(-1, 3),
        axis=0,
    )
    centre = (p["nose"].xy + (p["left_eye"].xy + p["right_eye"].xy) / 2) / 2
    gap = float(np.linalg.norm(p["left_eye"].xy - p["right_eye"].xy))
    cv2.ellipse(rgb, (round(centre[0]), round(centre[1])), (round(1.3 * gap), round(1.6 * gap)), 0, 0, 360,
                tuple(int(c) for c in hair), -1)
    with pytest.raises(NoPersonFound) as refused:
        engine.generate(png(Image.fromarray(rgb)), png(_garment("tee")))
    assert refused.value.message == NO_PERSON_FOUND


def test_a_person_in_profile_is_refused(engine: LocalTryOnEngine) -> None:
    """scikit-image's cameraman: side on, bent over his camera."""
    with pytest.raises(PoseNotSuitable) as refused:
        engine.generate(png(Image.fromarray(data.camera())), png(_garment("tee")))
    assert refused.value.message == FACING_AWAY


def test_a_photo_cut_off_below_the_shoulders_is_refused(engine: LocalTryOnEngine) -> None:
    with pytest.raises(PoseNotSuitable) as refused:
        engine.generate(png(grace_hopper().crop((0, 0, 512, 470))), png(_garment("tee")))
    assert refused.value.message == TORSO_CUT_OFF


def _pose(**moved: tuple[float, float, float]) -> PoseResult:
    """A person facing the camera in a 400 x 600 photo (shoulders 100 px apart at y 200), with
    the given points moved (x, y, visibility)."""
    points = {
        "nose": (200, 130, 1.0), "left_eye": (210, 120, 1.0), "right_eye": (190, 120, 1.0),
        "left_ear": (222, 125, 1.0), "right_ear": (178, 125, 1.0), "mouth_left": (208, 145, 1.0),
        "mouth_right": (192, 145, 1.0), "left_shoulder": (250, 200, 1.0), "right_shoulder": (150, 200, 1.0),
        "left_elbow": (265, 300, 1.0), "right_elbow": (135, 300, 1.0), "left_wrist": (270, 390, 1.0),
        "right_wrist": (130, 390, 1.0), "left_hip": (235, 400, 1.0), "right_hip": (165, 400, 1.0),
    }
    points.update(moved)
    named = {name: Keypoint(*points.get(name, (200, 300, 0.0))) for name in LANDMARKS}
    return PoseResult(400, 600, named, np.ones((600, 400), np.float32))


def test_the_pose_rules() -> None:
    assert unsuitable(_pose()) is None
    # The back: the person's left shoulder on the image's left.
    assert unsuitable(_pose(left_shoulder=(150, 200, 1.0), right_shoulder=(250, 200, 1.0))) == FACING_AWAY
    # A face the model cannot see.
    assert unsuitable(_pose(nose=(200, 130, 0.1), left_eye=(210, 120, 0.1), right_eye=(190, 120, 0.1))) == FACING_AWAY
    # Both ears on one side of the nose: in profile.
    assert unsuitable(_pose(left_ear=(185, 125, 1.0), right_ear=(170, 125, 1.0))) == FACING_AWAY
    # A wrist raised above the eyes (one arm is enough); a hand at the chin is fine.
    assert unsuitable(_pose(right_wrist=(120, 80, 1.0), right_elbow=(110, 150, 1.0))) == ARMS_RAISED
    assert unsuitable(_pose(right_wrist=(190, 150, 1.0))) is None
    # Hips above the shoulders, or the nose below them.
    assert unsuitable(_pose(left_hip=(235, 100, 1.0), right_hip=(165, 100, 1.0))) == UPSIDE_DOWN
    assert unsuitable(_pose(nose=(200, 260, 1.0))) == UPSIDE_DOWN
    # Shoulders one above the other: the photo lies on its side.
    sideways = {"left_ear": (200, 110, 1.0), "right_ear": (200, 150, 1.0)}
    assert unsuitable(_pose(left_shoulder=(200, 150, 1.0), right_shoulder=(190, 250, 1.0), **sideways)) == UPSIDE_DOWN
    # The photo ends just below the shoulders.
    cut = _pose()
    cut = PoseResult(400, 225, cut.points, np.ones((225, 400), np.float32))
    assert unsuitable(cut) == TORSO_CUT_OFF


def _drawn_person(shirt: tuple[int, int, int]) -> tuple[np.ndarray, PoseResult, np.ndarray]:
    """A drawn person (400 x 600): a shirt, a face, brown hair over the head falling over both
    shoulders; the pose of `_pose` and where the strands lie below the shoulder line."""
    rgb = np.full((600, 400, 3), (90, 140, 200), np.uint8)  # a blue backdrop
    cv2.rectangle(rgb, (130, 190), (270, 600), shirt, -1)
    cv2.ellipse(rgb, (200, 100), (45, 60), 0, 0, 360, (120, 80, 40), -1)  # the hair's mass
    cv2.ellipse(rgb, (200, 140), (30, 38), 0, 0, 360, (224, 172, 140), -1)  # the face, the hairline above the eyes
    strands = np.zeros((600, 400), np.uint8)
    for x in (162, 238):
        cv2.line(strands, (x, 100), (x + (8 if x > 200 else -8), 260), 1, 18)
    rgb[strands.astype(bool)] = (120, 80, 40)
    body = np.zeros((600, 400), np.float32)
    body[190:, 130:271] = 1
    cv2.ellipse(body, (200, 100), (46, 61), 0, 0, 360, 1.0, -1)
    body[140:200, 150:250] = 1  # the neck and the strands' way down
    pose = _pose()
    pose = PoseResult(400, 600, pose.points, body, body)
    return rgb, pose, strands.astype(bool) & (np.arange(600)[:, None] > 200)


def test_hair_over_the_shoulders_stays_in_front() -> None:
    rgb, pose, strands = _drawn_person((235, 235, 235))
    found = body.hair(rgb, pose, pose.mask, 100.0) > 0.5
    assert found[strands].mean() > 0.95
    shirt = (pose.mask > 0.5) & ~strands & (np.arange(600)[:, None] > 270)
    assert not found[shirt].any()
    # Hair the colour of the top below it cannot be told from it: nothing is kept in front.
    rgb, pose, strands = _drawn_person((120, 80, 40))
    assert not body.hair(rgb, pose, pose.mask, 100.0).any()


def test_a_long_sleeve_ends_at_a_visible_wrist() -> None:
    from storefront.services.tryon.local import _Side, _sleeve

    part = np.zeros((200, 200, 4), np.float32)
    part[90:110, 20:180] = 1.0  # a sleeve lying along x, opening at x 20, cuff at x 180
    opening, cuff = np.array([20.0, 100.0]), np.array([180.0, 100.0])
    down = np.array([0.0, 1.0])
    side = _Side(-1, np.array([100.0, 100.0]), np.array([95.0, 200.0]), np.array([92.0, 297.0]), 1.0, 1.0)
    _, _, end = _sleeve(part, opening, cuff, side, np.array([100.0, 105.0]), 1.0, down, True, (400, 400))
    assert np.linalg.norm(end - side.wrist) < 12
    # A short sleeve keeps its own length.
    _, _, end = _sleeve(part, opening, cuff, side, np.array([100.0, 105.0]), 0.5, down, False, (400, 400))
    assert abs(np.linalg.norm(end - np.array([100.0, 105.0])) - 80) < 2


def test_a_forearm_across_the_body_stays_in_front() -> None:
    """A long sleeve follows a gently bent forearm in front of the body; a forearm folded across
    the body is left to the photo (the sleeve stops at the elbow, the forearm is kept out)."""
    from storefront.services.tryon.local import _mark_arm, _Side, _sleeve

    part = np.zeros((200, 200, 4), np.float32)
    part[90:110, 20:180] = 1.0
    opening, cuff, down = np.array([20.0, 100.0]), np.array([180.0, 100.0]), np.array([0.0, 1.0])
    shoulder, elbow, pivot = np.array([100.0, 100.0]), np.array([95.0, 200.0]), np.array([100.0, 105.0])
    gentle = _Side(-1, shoulder, elbow, np.array([130.0, 285.0]), 1.0, 1.0)
    under, over, end = _sleeve(part, opening, cuff, gentle, pivot, 1.0, down, True, (400, 400))
    assert len(under) == 1 and len(over) == 1  # the forearm's part lies over the torso
    assert np.linalg.norm(end - gentle.wrist) < 12
    folded = _Side(-1, shoulder, elbow, np.array([190.0, 190.0]), 1.0, 1.0)  # across the belly
    under, over, end = _sleeve(part, opening, cuff, folded, pivot, 1.0, down, True, (400, 400))
    assert over == [] and np.linalg.norm(end - elbow) < 12
    keep_out = np.zeros((400, 400), np.uint8)
    _mark_arm(keep_out, folded, end, 100.0, True)
    assert keep_out[195, 140] == 1  # midway along the forearm
    keep_out = np.zeros((400, 400), np.uint8)
    _mark_arm(keep_out, gentle, end, 100.0, True)
    assert keep_out[243, 112] == 0  # a gently bent forearm is the sleeve's


def test_a_top_of_the_skins_colour_is_not_taken_for_a_hand() -> None:
    rgb, pose, _ = _drawn_person((224, 172, 140))  # the face's own colour
    wrist = Keypoint(250, 390, 1.0)
    pose = PoseResult(400, 600, {**pose.points, "left_wrist": wrist, "left_index": wrist}, pose.mask, pose.selfie)
    assert not body.in_front(rgb, pose, pose.mask, 100.0).any()
    # The same drawing with a hand-sized patch of skin on a white top: the hand is found.
    rgb, pose, _ = _drawn_person((235, 235, 235))
    cv2.ellipse(rgb, (250, 390), (14, 12), 0, 0, 360, (224, 172, 140), -1)
    pose = PoseResult(400, 600, {**pose.points, "left_wrist": wrist}, pose.mask, pose.selfie)
    found = body.in_front(rgb, pose, pose.mask, 100.0) > 0.5
    assert found[385:395, 240:260].all() and found.sum() < 1000


def test_the_photos_grain_is_its_noise_not_its_edges() -> None:
    """A clean picture full of edges has no grain; the same with noise of a known size has about that."""
    rng = np.random.default_rng(7)
    clean = np.full((300, 300, 3), 128, np.uint8)
    for x in range(0, 300, 12):  # stripes: edges and texture everywhere, but noise nowhere
        clean[:, x : x + 6] = 60
    everywhere = np.ones((300, 300), np.float32)
    assert body.grain(clean, everywhere) < 0.002
    noisy = np.clip(clean.astype(np.float32) + rng.normal(0, 4.0, (300, 300, 1)), 0, 255).astype(np.uint8)
    assert 0.7 * 4 / 255 < body.grain(noisy, everywhere) < 1.3 * 4 / 255
    # A very noisy photo adds at most MAX_GRAIN.
    loud = np.clip(clean.astype(np.float32) + rng.normal(0, 30.0, (300, 300, 1)), 0, 255).astype(np.uint8)
    assert body.grain(loud, everywhere) == pytest.approx(body.MAX_GRAIN)
