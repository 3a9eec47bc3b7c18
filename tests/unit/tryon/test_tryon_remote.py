"""The hosted try-on engine over real HTTP against tests/fakes/tryon_server.py (contract in tryon/remote.py)."""

from __future__ import annotations

import base64
import io
import logging
from collections.abc import Iterator

import httpx
import pytest
from PIL import Image

from storefront.services.media.images import IMAGE_UNREADABLE
from storefront.services.tryon import (
    ENGINE_FAILED,
    NO_PERSON_FOUND,
    SHOULDERS_NOT_VISIBLE,
    EngineFailed,
    NoPersonFound,
    RemoteTryOnEngine,
    ShouldersNotVisible,
    TryOnEngine,
    UnsupportedImage,
)
from tests.fakes.tryon_server import FakeTryOnServer, tryon_server  # noqa: F401 (fixture)

KEY = "sk-live-very-secret-key-123"
PERSON_SIZE = (48, 64)
FALLBACK_IMAGE_COLOUR = (0, 200, 0)


def _png(size: tuple[int, int], colour: tuple[int, ...], mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, colour).save(out, "PNG")
    return out.getvalue()


PERSON = _png(PERSON_SIZE, (200, 150, 120))
GARMENT = _png((20, 24), (10, 20, 200, 255), "RGBA")


class FakeTime:
    """An injectable clock and sleep: sleeping moves the clock on, and every sleep is recorded."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class RecordingEngine:
    """A fallback engine that records its calls and answers a plain green PNG of the photo's size."""

    def __init__(self) -> None:
        self.calls: list[tuple[bytes, bytes]] = []

    def generate(self, person: bytes, garment: bytes) -> bytes:
        self.calls.append((person, garment))
        with Image.open(io.BytesIO(person)) as photo:
            return _png(photo.size, FALLBACK_IMAGE_COLOUR)


@pytest.fixture
def server() -> Iterator[FakeTryOnServer]:
    with FakeTryOnServer(KEY) as fake:
        yield fake


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def fallback() -> RecordingEngine:
    return RecordingEngine()


def _engine(server: FakeTryOnServer, fake_time: FakeTime, fallback: TryOnEngine | None = None, *,
            api_key: str = KEY, **kwargs: float) -> RemoteTryOnEngine:
    options = {"timeout": 2.0, "poll_interval": 1.5, "max_wait": 10.0} | kwargs
    return RemoteTryOnEngine(
        server.endpoint, api_key, fallback=fallback, sleep=fake_time.sleep, clock=fake_time.clock, **options,
    )


def _is_fallback_image(data: bytes) -> bool:
    with Image.open(io.BytesIO(data)) as image:
        return image.size == PERSON_SIZE and image.convert("RGB").getpixel((0, 0)) == FALLBACK_IMAGE_COLOUR


def _assert_dressed(data: bytes) -> None:
    """The fake's answer: the photo, PNG, same size, the garment pasted on the middle."""
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        assert image.size == PERSON_SIZE
        rgb = image.convert("RGB")
        assert _near(rgb.getpixel((0, 0)), (200, 150, 120))  # the photo went as JPEG: nearly its colour
        assert _near(rgb.getpixel((PERSON_SIZE[0] // 2, PERSON_SIZE[1] // 2)), (10, 20, 200))


def _near(pixel: tuple[int, ...], colour: tuple[int, ...]) -> bool:
    return all(abs(a - b) <= 4 for a, b in zip(pixel, colour, strict=True))


def test_engine_satisfies_the_protocol(server: FakeTryOnServer, fake_time: FakeTime) -> None:
    assert isinstance(_engine(server, fake_time), TryOnEngine)


def test_an_immediate_answer_is_the_result(server: FakeTryOnServer, fake_time: FakeTime) -> None:
    with _engine(server, fake_time) as engine:
        result = engine.generate(PERSON, GARMENT)

    _assert_dressed(result)
    assert [r.path for r in server.requests] == ["/tryon"]
    assert fake_time.sleeps == []


def test_the_photo_and_garment_are_sent_as_multipart_with_the_key_as_bearer(
    server: FakeTryOnServer, fake_time: FakeTime
) -> None:
    with _engine(server, fake_time) as engine:
        engine.generate(PERSON, GARMENT)

    (post,) = server.requests_to("POST", "/tryon")
    assert post.headers["Authorization"] == f"Bearer {KEY}"
    assert post.headers["Content-Type"].startswith("multipart/form-data")
    assert set(post.files) == {"person", "garment"}
    with Image.open(io.BytesIO(post.files["person"])) as person:
        assert (person.format, person.size) == ("JPEG", PERSON_SIZE)  # re-encoded: no metadata leaves
    with Image.open(io.BytesIO(post.files["garment"])) as garment:
        assert (garment.format, garment.mode) == ("PNG", "RGBA")  # transparency kept


def test_a_job_is_polled_at_the_poll_interval_until_done(server: FakeTryOnServer, fake_time: FakeTime) -> None:
    server.jobs = True
    server.polls_before_done = 3

    with _engine(server, fake_time, poll_interval=1.5) as engine:
        result = engine.generate(PERSON, GARMENT)

    _assert_dressed(result)
    polls = server.requests_to("GET", "/jobs/")
    assert len(polls) == 3
    assert {r.path for r in polls} == {f"/jobs/{next(iter(server.job_table))}"}
    assert all(r.headers["Authorization"] == f"Bearer {KEY}" for r in polls)
    assert fake_time.sleeps == [1.5, 1.5, 1.5]


def test_no_person_is_no_person_found_and_no_fallback(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine
) -> None:
    server.photo_problem = "no_person"

    with pytest.raises(NoPersonFound) as raised:
        _engine(server, fake_time, fallback).generate(PERSON, GARMENT)

    assert raised.value.message == NO_PERSON_FOUND
    assert raised.value.status_code == 422
    assert raised.value.field_errors == {"userPhoto": NO_PERSON_FOUND}
    assert fallback.calls == []


def test_no_person_from_a_failed_job_is_no_person_found_and_no_fallback(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine
) -> None:
    server.jobs = True
    server.job_outcome = "failed"
    server.job_error = {"code": "no_person", "message": "No person detected."}

    with pytest.raises(NoPersonFound):
        _engine(server, fake_time, fallback).generate(PERSON, GARMENT)

    assert fallback.calls == []


def test_shoulders_not_visible_is_its_own_error_and_no_fallback(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine
) -> None:
    server.photo_problem = "shoulders_not_visible"

    with pytest.raises(ShouldersNotVisible) as raised:
        _engine(server, fake_time, fallback).generate(PERSON, GARMENT)

    assert raised.value.message == SHOULDERS_NOT_VISIBLE
    assert fallback.calls == []


def test_an_input_that_is_not_an_image_is_refused_before_any_request(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine
) -> None:
    with pytest.raises(UnsupportedImage) as raised:
        _engine(server, fake_time, fallback).generate(b"not an image at all", GARMENT)

    assert raised.value.message == IMAGE_UNREADABLE
    assert raised.value.field_errors == {"userPhoto": IMAGE_UNREADABLE}
    assert server.requests == []
    assert fallback.calls == []


def test_a_garment_that_is_not_an_image_names_the_item_image(server: FakeTryOnServer, fake_time: FakeTime) -> None:
    with pytest.raises(UnsupportedImage) as raised:
        _engine(server, fake_time).generate(PERSON, b"")

    assert raised.value.field_errors == {"selectedItem": "Item image: The image file is empty."}


def test_a_timeout_falls_back(server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine) -> None:
    server.answer_slowly(30)

    result = _engine(server, fake_time, fallback, timeout=0.2).generate(PERSON, GARMENT)

    assert _is_fallback_image(result)
    assert fallback.calls == [(PERSON, GARMENT)]  # the fallback gets the original bytes


def test_a_timeout_without_fallback_is_engine_failed(server: FakeTryOnServer, fake_time: FakeTime) -> None:
    server.answer_slowly(30)

    with pytest.raises(EngineFailed) as raised:
        _engine(server, fake_time, timeout=0.2).generate(PERSON, GARMENT)

    assert raised.value.message == ENGINE_FAILED
    assert raised.value.status_code == 502


def test_a_connection_error_falls_back(fake_time: FakeTime, fallback: RecordingEngine) -> None:
    with FakeTryOnServer(KEY) as stopped:
        endpoint = stopped.endpoint
    engine = RemoteTryOnEngine(endpoint, KEY, fallback=fallback, sleep=fake_time.sleep, clock=fake_time.clock)

    assert _is_fallback_image(engine.generate(PERSON, GARMENT))
    assert len(fallback.calls) == 1


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_a_server_error_or_rate_limit_falls_back(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine, status: int
) -> None:
    server.fail_with(status, retry_after="30" if status == 429 else None)

    assert _is_fallback_image(_engine(server, fake_time, fallback).generate(PERSON, GARMENT))
    assert len(fallback.calls) == 1
    assert len(server.requests) == 1  # no retries: the fallback answers now


@pytest.mark.parametrize("status", [500, 429])
def test_a_server_error_without_fallback_is_engine_failed(
    server: FakeTryOnServer, fake_time: FakeTime, status: int
) -> None:
    server.fail_with(status)

    with pytest.raises(EngineFailed):
        _engine(server, fake_time).generate(PERSON, GARMENT)


def test_a_malformed_body_falls_back(server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine) -> None:
    server.answer_malformed()

    assert _is_fallback_image(_engine(server, fake_time, fallback).generate(PERSON, GARMENT))
    assert len(fallback.calls) == 1


def test_a_malformed_poll_answer_falls_back(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine
) -> None:
    server.jobs = True
    server.answer_malformed(path="/jobs/")

    assert _is_fallback_image(_engine(server, fake_time, fallback).generate(PERSON, GARMENT))


def test_a_result_of_another_size_falls_back(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine
) -> None:
    server.result_size = (PERSON_SIZE[0] * 2, PERSON_SIZE[1] * 2)

    assert _is_fallback_image(_engine(server, fake_time, fallback).generate(PERSON, GARMENT))


def test_a_result_that_is_not_png_or_jpeg_falls_back(fake_time: FakeTime, fallback: RecordingEngine) -> None:
    gif = io.BytesIO()
    Image.new("RGB", PERSON_SIZE).save(gif, "GIF")
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, json={"status": "done", "image": base64.b64encode(gif.getvalue()).decode()})
    )
    engine = RemoteTryOnEngine("http://tryon.invalid", KEY, fallback=fallback, transport=transport)

    assert _is_fallback_image(engine.generate(PERSON, GARMENT))


def test_a_failed_job_falls_back(server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine) -> None:
    server.jobs = True
    server.job_outcome = "failed"

    assert _is_fallback_image(_engine(server, fake_time, fallback).generate(PERSON, GARMENT))
    assert len(server.requests_to("GET", "/jobs/")) == 2  # failed when it would have been done


def test_a_job_that_never_finishes_stops_at_max_wait_and_falls_back(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine
) -> None:
    server.jobs = True
    server.job_outcome = "never"

    result = _engine(server, fake_time, fallback, poll_interval=3, max_wait=10).generate(PERSON, GARMENT)

    assert _is_fallback_image(result)
    assert fake_time.sleeps == [3, 3, 3, 1]  # the last wait ends at the deadline, not past it
    assert len(server.requests_to("GET", "/jobs/")) == 4


def test_a_job_that_never_finishes_without_fallback_is_engine_failed(
    server: FakeTryOnServer, fake_time: FakeTime
) -> None:
    server.jobs = True
    server.job_outcome = "never"

    with pytest.raises(EngineFailed):
        _engine(server, fake_time, max_wait=4).generate(PERSON, GARMENT)


def test_a_refused_key_falls_back_with_a_warning_that_does_not_hold_the_key(
    server: FakeTryOnServer, fake_time: FakeTime, fallback: RecordingEngine, caplog: pytest.LogCaptureFixture
) -> None:
    wrong_key = "sk-live-wrong-key-456"
    caplog.set_level(logging.WARNING, logger="storefront.services.tryon.remote")

    result = _engine(server, fake_time, fallback, api_key=wrong_key).generate(PERSON, GARMENT)

    assert _is_fallback_image(result)
    assert server.requests[0].status == 401
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert "401" in record.getMessage()
    assert "RecordingEngine" in record.getMessage()
    assert wrong_key not in caplog.text


def test_the_key_is_absent_from_repr_messages_and_logs(
    server: FakeTryOnServer, fake_time: FakeTime, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    engine = _engine(server, fake_time)
    server.fail_with(500)

    with pytest.raises(EngineFailed) as raised:
        engine.generate(PERSON, GARMENT)

    assert KEY not in repr(engine)
    assert KEY not in str(engine)
    assert "***" in repr(engine)
    assert KEY not in str(raised.value) and KEY not in repr(raised.value.details)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__  # no traceback chain to leak
    assert KEY not in caplog.text
