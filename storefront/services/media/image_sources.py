"""Reading a source image's bytes: the store's own uploads from disk, provider images over HTTP.

An address from a provider is a stranger's: it is fetched only from public internet addresses.
Its host is resolved here and every address it names is checked (loopback, private, link-local,
multicast, reserved and unspecified ones are refused, IPv4-mapped IPv6 included); the request then
goes to the address that was checked (the TLS certificate still checked against the host name), so
a second, different DNS answer cannot slip a private address in. Redirects are followed by hand,
each hop checked the same way, and the whole fetch is capped in bytes and in time. Networks a test
or a local fake provider serves from are allowed only when named (`allowed_networks`).
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import httpx

from storefront.services.media.images import IMAGE_TOO_LARGE, MAX_IMAGE_BYTES, ImageRejected

UPLOADS_URL = "/uploads/"
FETCH_TIMEOUT_SECONDS = 15.0
#: The whole fetch of one image, redirects and body included: a server dripping bytes is cut off.
FETCH_DEADLINE_SECONDS = 30.0
MAX_REDIRECTS = 5
USER_AGENT = "storefront-images/1.0 (Python; httpx)"
NOT_HTTP = "The image address must be an http(s) URL or an uploaded file."
PRIVATE_ADDRESS = "The image address is not on the public internet."
TOO_MANY_REDIRECTS = f"The image address redirects more than {MAX_REDIRECTS} times."
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
#: host, port -> the addresses it resolves to (socket.getaddrinfo's, by default).
Resolver = Callable[[str, int], list[str]]


class ImageUnavailable(Exception):
    """The source could not be read now (network, 5xx, 429, missing file); try again later."""


def _resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ImageUnavailable(f"cannot resolve {host}: {exc}") from None
    return [str(info[4][0]) for info in infos]


def is_public(address: IPAddress) -> bool:
    """True for an address on the public internet (an IPv4-mapped IPv6 address judged as IPv4)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    refused = (
        address.is_loopback or address.is_private or address.is_link_local or address.is_multicast
        or address.is_reserved or address.is_unspecified
    )
    return address.is_global and not refused


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(value.strip(), strict=False) for value in values if value.strip())


class ImageSourceLoader:
    """Reads the bytes behind an image address, at most MAX_IMAGE_BYTES of them.

    `allowed_networks`: networks fetched from even though they are not public (a fake provider on
    loopback in tests, a provider on the store's own network); none by default."""

    def __init__(
        self,
        upload_dir: Path,
        client: httpx.Client | None = None,
        *,
        allowed_networks: Iterable[str] = (),
        resolver: Resolver = _resolve,
        deadline_seconds: float = FETCH_DEADLINE_SECONDS,
        max_bytes: int = MAX_IMAGE_BYTES,
    ) -> None:
        self.upload_dir = Path(upload_dir)
        self._client = client or httpx.Client(timeout=FETCH_TIMEOUT_SECONDS, headers={"User-Agent": USER_AGENT})
        self.allowed_networks = parse_networks(allowed_networks)
        self._resolver = resolver
        self.deadline_seconds = deadline_seconds
        self.max_bytes = max_bytes

    def close(self) -> None:
        self._client.close()

    def load(self, src: str) -> bytes:
        """The source's bytes; ImageRejected when it can never be an image, ImageUnavailable for now."""
        if src.startswith(UPLOADS_URL):
            return self._read_upload(src[len(UPLOADS_URL) :])
        if src.startswith(("https://", "http://")):
            return self._fetch(src)
        raise ImageRejected(NOT_HTTP)

    def _read_upload(self, relative: str) -> bytes:
        root = self.upload_dir.resolve()
        path = (root / relative.split("?", 1)[0]).resolve()
        if not path.is_relative_to(root):
            raise ImageRejected("The image address points outside the uploads folder.")
        try:
            if path.stat().st_size > MAX_IMAGE_BYTES:
                raise ImageRejected(IMAGE_TOO_LARGE)
            return path.read_bytes()
        except FileNotFoundError:
            raise ImageUnavailable(f"no uploaded file at {relative}") from None

    def _allowed(self, address: IPAddress) -> bool:
        return is_public(address) or any(address in network for network in self.allowed_networks)

    def _checked_address(self, url: httpx.URL) -> str:
        """The address to connect to for this URL, every address its host names being allowed."""
        host = url.raw_host.decode("ascii")  # IDNA-encoded, as DNS and TLS know it
        if url.scheme not in ("http", "https") or not host:
            raise ImageRejected(NOT_HTTP)
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            addresses = [ipaddress.ip_address(a.split("%", 1)[0]) for a in self._resolver(host, port)]
        if not addresses or not all(self._allowed(address) for address in addresses):
            raise ImageRejected(PRIVATE_ADDRESS)
        return str(addresses[0])

    def _fetch(self, src: str) -> bytes:
        deadline = time.monotonic() + self.deadline_seconds
        try:
            url = httpx.URL(src)
            for _ in range(MAX_REDIRECTS + 1):
                address = self._checked_address(url)
                pinned = url.copy_with(host=address)
                request = self._client.build_request(
                    "GET", pinned, headers={"Host": url.netloc.decode("ascii"), "Accept-Encoding": "identity"},
                    extensions={"sni_hostname": url.raw_host.decode("ascii")}, timeout=self._timeout(deadline),
                )
                response = self._client.send(request, stream=True, follow_redirects=False)
                try:
                    if response.status_code in _REDIRECTS and "location" in response.headers:
                        url = url.join(response.headers["location"])
                        continue
                    return self._body(response, src, deadline)
                finally:
                    response.close()
            raise ImageRejected(TOO_MANY_REDIRECTS)
        except httpx.HTTPError as exc:
            raise ImageUnavailable(f"{type(exc).__name__} fetching {src}") from None

    def _timeout(self, deadline: float) -> httpx.Timeout:
        """The client's own timeouts, none of them past the deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ImageUnavailable(f"no answer within {self.deadline_seconds:g} s")
        own = self._client.timeout

        def capped(value: float | None) -> float:
            return min(value if value is not None else FETCH_TIMEOUT_SECONDS, remaining)

        return httpx.Timeout(
            connect=capped(own.connect), read=capped(own.read), write=capped(own.write), pool=capped(own.pool)
        )

    def _body(self, response: httpx.Response, src: str, deadline: float) -> bytes:
        if response.status_code == 429 or response.status_code >= 500:
            raise ImageUnavailable(f"HTTP {response.status_code} from {src}")
        if response.status_code >= 400:
            raise ImageRejected(f"The image could not be fetched (HTTP {response.status_code}).")
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_bytes:
            raise ImageRejected(IMAGE_TOO_LARGE)
        body = bytearray()
        for chunk in response.iter_raw():  # as sent (identity asked): nothing inflates past the cap
            body += chunk
            if len(body) > self.max_bytes:
                raise ImageRejected(IMAGE_TOO_LARGE)
            if time.monotonic() > deadline:
                raise ImageUnavailable(f"{src} was still arriving after {self.deadline_seconds:g} s")
        return bytes(body)
