"""A fake hosted try-on engine on loopback that follows the contract in storefront/services/tryon/remote.py.

Real HTTP (stdlib `ThreadingHTTPServer` in a thread): `POST /tryon` (multipart `person` + `garment`)
answers the finished image at once or a job to poll at `GET /jobs/{id}`; a Bearer key check (401);
the photo refused (422 `no_person` / `shoulders_not_visible`); jobs that fail or never finish; and
injectable faults (a status such as 500 or 429, a slow answer, a malformed body). Every request is
recorded with the files it carried.

    with FakeTryOnServer() as fake:
        engine = RemoteTryOnEngine(fake.endpoint, fake.api_key)

or the `tryon_server` fixture (import it into a test module or conftest). The finished image is the
person photo with the garment pasted on its middle, as PNG of the photo's size.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

import pytest
from PIL import Image

from tests.fakes.loopback import LoopbackHTTPServer, LoopbackServer

DEFAULT_API_KEY = "fake-tryon-key"
DEFAULT_PORT = 8767
UNAUTHENTICATED = {"error": {"code": "unauthenticated", "message": "Invalid API key."}}
NOT_FOUND = {"error": {"code": "not_found", "message": "Not found."}}
PHOTO_PROBLEMS = {
    "no_person": "No person detected in the image.",
    "shoulders_not_visible": "Both shoulders must be visible.",
}


@dataclass
class Fault:
    """One injected misbehaviour; `times=None` keeps it until cleared."""

    kind: str  # "status", "slow" or "malformed"
    status: int = 500
    body: Any = None
    retry_after: str | None = None
    delay: float = 0.0
    method: str | None = None
    path: str | None = None  # a substring of the request path
    times: int | None = 1

    def matches(self, method: str, path: str) -> bool:
        return (self.method is None or self.method == method) and (self.path is None or self.path in path)


@dataclass
class RecordedRequest:
    """What the fake received (the multipart files by field name) and the status it answered."""

    method: str
    path: str
    headers: dict[str, str]
    files: dict[str, bytes] = field(default_factory=dict)
    status: int = 0


@dataclass
class Job:
    id: str
    result: bytes
    polls: int = 0


class FakeTryOn:
    """The service's behaviour, without HTTP; settings may be changed between requests.

    - `jobs`: False answers the image at once (200), True a job (202) finished after
      `polls_before_done` polls (the poll that reaches it answers the image).
    - `job_outcome`: "done", "failed" (with `job_error`) or "never" (pending for ever).
    - `photo_problem`: a code of PHOTO_PROBLEMS answered as 422 to `POST /tryon`, or None.
    - `result_size`: answer an image of this size instead of the photo's (to break the contract).
    """

    def __init__(self, api_key: str = DEFAULT_API_KEY, *, jobs: bool = False, polls_before_done: int = 2) -> None:
        self.api_key = api_key
        self.jobs = jobs
        self.polls_before_done = polls_before_done
        self.job_outcome = "done"
        self.job_error: dict[str, str] = {"code": "model_error", "message": "The model crashed."}
        self.photo_problem: str | None = None
        self.result_size: tuple[int, int] | None = None
        self.requests: list[RecordedRequest] = []
        self.job_table: dict[str, Job] = {}
        self.faults: list[Fault] = []
        self.lock = threading.RLock()
        self.stopping = threading.Event()  # wakes slow answers when the server stops

    # faults

    def inject(self, fault: Fault) -> Fault:
        with self.lock:
            self.faults.append(fault)
        return fault

    def fail_with(self, status: int = 500, *, body: Any = None, retry_after: str | None = None,
                  times: int | None = 1, method: str | None = None, path: str | None = None) -> Fault:
        body = body if body is not None else {"error": {"code": "server_error", "message": f"Status {status}."}}
        return self.inject(Fault("status", status, body, retry_after, method=method, path=path, times=times))

    def answer_slowly(self, delay: float, *, times: int | None = 1, method: str | None = None,
                      path: str | None = None) -> Fault:
        return self.inject(Fault("slow", delay=delay, method=method, path=path, times=times))

    def answer_malformed(self, *, times: int | None = 1, method: str | None = None, path: str | None = None) -> Fault:
        return self.inject(Fault("malformed", method=method, path=path, times=times))

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.matches(method, path):
                    if fault.times is not None:
                        fault.times -= 1
                        if fault.times <= 0:
                            self.faults.remove(fault)
                    return fault
        return None

    # what was asked

    def requests_to(self, method: str, path_part: str) -> list[RecordedRequest]:
        with self.lock:
            return [r for r in self.requests if r.method == method and path_part in r.path]

    # the service

    def handle(self, method: str, path: str, headers: dict[str, str], files: dict[str, bytes]) -> tuple[int, Any]:
        if headers.get("Authorization") != f"Bearer {self.api_key}":
            return 401, UNAUTHENTICATED
        if method == "POST" and path == "/tryon":
            return self._tryon(files)
        if method == "GET" and path.startswith("/jobs/"):
            return self._job(path.removeprefix("/jobs/"))
        return 404, NOT_FOUND

    def _tryon(self, files: dict[str, bytes]) -> tuple[int, Any]:
        if set(files) != {"person", "garment"}:
            return 400, {"error": {"code": "bad_request", "message": "Send the files person and garment."}}
        try:
            result = self.dress(files["person"], files["garment"])
        except OSError:
            return 422, {"error": {"code": "unsupported_image", "message": "An image cannot be read."}}
        if self.photo_problem is not None:
            return 422, {"error": {"code": self.photo_problem, "message": PHOTO_PROBLEMS[self.photo_problem]}}
        if not self.jobs:
            return 200, {"status": "done", "image": base64.b64encode(result).decode()}
        job = Job(secrets.token_urlsafe(12), result)
        with self.lock:
            self.job_table[job.id] = job
        return 202, {"status": "pending", "job_id": job.id}

    def _job(self, job_id: str) -> tuple[int, Any]:
        with self.lock:
            job = self.job_table.get(job_id)
            if job is None:
                return 404, NOT_FOUND
            job.polls += 1
            if job.polls < self.polls_before_done or self.job_outcome == "never":
                return 200, {"status": "running" if job.polls > 1 else "pending"}
            if self.job_outcome == "failed":
                return 200, {"status": "failed", "error": dict(self.job_error)}
            return 200, {"status": "done", "image": base64.b64encode(job.result).decode()}

    def dress(self, person: bytes, garment: bytes) -> bytes:
        """The person photo with the garment pasted on its middle third, as PNG of the photo's size."""
        with Image.open(io.BytesIO(person)) as photo, Image.open(io.BytesIO(garment)) as item:
            canvas = photo.convert("RGB")
            width, height = canvas.size
            patch = item.convert("RGBA").resize((max(1, width // 3), max(1, height // 3)))
            canvas.paste(patch, (width // 3, height // 3), patch)
            if self.result_size is not None:
                canvas = canvas.resize(self.result_size)
            out = io.BytesIO()
            canvas.save(out, "PNG")
            return out.getvalue()


def _multipart_files(content_type: str, body: bytes) -> dict[str, bytes]:
    """The file fields of a multipart/form-data body, by field name."""
    if not content_type.startswith("multipart/form-data"):
        return {}
    message = BytesParser(policy=HTTP).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    files: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            files[str(name)] = part.get_payload(decode=True) or b""
    return files


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1
    disable_nagle_algorithm = True
    server: LoopbackHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _serve(self) -> None:
        fake = self.server.fake
        path = urlsplit(self.path).path
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        files = _multipart_files(self.headers.get("Content-Type", ""), raw)
        record = RecordedRequest(self.command, path, dict(self.headers.items()), files)
        with fake.lock:
            fake.requests.append(record)
        fault = fake.take_fault(self.command, path)
        if fault is not None and fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            return self._reply(record, fault.status, fault.body, headers)
        if fault is not None and fault.kind == "malformed":
            return self._reply(record, 200, None, raw_body=b'{"status": "done", "image": "iVBORw0KGgo')
        status, body = fake.handle(self.command, path, dict(self.headers.items()), files)
        if fault is not None and fault.kind == "slow":
            fake.stopping.wait(fault.delay)  # answered too late; stopping the server cuts the wait short
        self._reply(record, status, body)

    def _reply(self, record: RecordedRequest, status: int, body: Any, headers: dict[str, str] | None = None,
               raw_body: bytes | None = None) -> None:
        payload = raw_body if raw_body is not None else json.dumps(body).encode()
        record.status = status
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (timeout); nothing to tell it

    do_GET = do_POST = _serve  # noqa: N815 - http.server dispatches to do_<METHOD>



class FakeTryOnServer(FakeTryOn, LoopbackServer):
    """FakeTryOn served over HTTP on 127.0.0.1 at a free port; `endpoint` has no trailing slash."""

    def __init__(self, api_key: str = DEFAULT_API_KEY, **kwargs: Any) -> None:
        super().__init__(api_key, **kwargs)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, port: int = 0) -> FakeTryOnServer:
        self.stopping.clear()
        self.serve(_Handler, port, "fake-tryon")
        return self

    def stop(self) -> None:
        self.stopping.set()
        super().stop()


@pytest.fixture
def tryon_server() -> Iterator[FakeTryOnServer]:
    """A running fake try-on service answering images at once, stopped afterwards."""
    with FakeTryOnServer() as server:
        yield server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake hosted try-on engine on loopback.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--api-key", default=DEFAULT_API_KEY)
    parser.add_argument("--jobs", action="store_true", help="answer jobs to poll instead of images at once")
    args = parser.parse_args(argv)
    fake = FakeTryOnServer(args.api_key, jobs=args.jobs).start(args.port)
    print(f"Fake try-on engine at {fake.endpoint}")
    print("Run the store against it with:")
    print(f"  TRYON_ENDPOINT={fake.endpoint} TRYON_API_KEY={fake.api_key} make run")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
