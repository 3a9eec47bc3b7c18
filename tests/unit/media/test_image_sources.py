"""The image copier fetches provider images from the public internet only: loopback, private,
link-local and other non-public addresses are refused before any connection, after every redirect
too, and each fetch is capped in bytes and in time. Real HTTP servers on loopback addresses play
the hosts; the one a test fetches from is named in `allowed_networks`, as only tests do."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from storefront.services.media.image_sources import (
    PRIVATE_ADDRESS,
    TOO_MANY_REDIRECTS,
    ImageSourceLoader,
    ImageUnavailable,
    is_public,
)
from storefront.services.media.images import IMAGE_TOO_LARGE, ImageRejected
from tests.fakes.image_host import FakeImageHost, png_bytes

#: The host a test fetches from (allowed), and a second loopback address playing an internal service.
HOST, INTERNAL = "127.0.0.1", "127.0.0.2"


@pytest.fixture
def host() -> Iterator[FakeImageHost]:
    server = FakeImageHost(HOST)
    yield server
    server.stop()


@pytest.fixture
def internal() -> Iterator[FakeImageHost]:
    server = FakeImageHost(INTERNAL)
    yield server
    server.stop()


def loader(tmp_path: Path, **options: object) -> ImageSourceLoader:
    return ImageSourceLoader(tmp_path, allowed_networks=[f"{HOST}/32"], **options)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.0.0.1", "169.254.169.254", "192.168.1.1", "172.16.0.1", "100.64.0.1", "0.0.0.0",
     "224.0.0.1", "240.0.0.1", "::1", "::", "fe80::1", "fc00::1", "ff02::1", "::ffff:127.0.0.1",
     "::ffff:10.0.0.1", "::ffff:169.254.169.254"],
)
def test_no_public_address_is_public(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c", "::ffff:93.184.215.14"])
def test_public_addresses_are(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


def test_an_image_on_an_allowed_host_is_fetched(tmp_path: Path, host: FakeImageHost) -> None:
    assert loader(tmp_path).load(f"{host.base_url}/image.png") == png_bytes()


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:{port}/image.png", "http://localhost:{port}/image.png", "http://[::ffff:127.0.0.1]:{port}/image.png",
     "http://10.0.0.1/image.png", "http://169.254.169.254/latest/meta-data/", "https://[::1]/image.png",
     "http://0.0.0.0:{port}/image.png"],
)
def test_private_and_local_addresses_are_refused_without_connecting(
    tmp_path: Path, host: FakeImageHost, url: str
) -> None:
    port = host.base_url.rsplit(":", 1)[1]
    unguarded = ImageSourceLoader(tmp_path)  # the store's default: public addresses only
    started = time.monotonic()
    with pytest.raises(ImageRejected) as refused:
        unguarded.load(url.format(port=port))
    assert refused.value.message == PRIVATE_ADDRESS
    assert host.requests == []  # the loopback host was never asked
    assert time.monotonic() - started < 2  # no connection was tried to 10.0.0.1 or the metadata service


@pytest.mark.parametrize(
    "target",
    ["http://{internal}:{port}/image.png", "http://[::ffff:{internal}]:{port}/image.png",
     "http://10.0.0.1/image.png", "http://169.254.169.254/latest/meta-data/"],
)
def test_a_redirect_to_a_private_address_is_refused_without_connecting(
    tmp_path: Path, host: FakeImageHost, internal: FakeImageHost, target: str
) -> None:
    to = target.format(internal=INTERNAL, port=internal.base_url.rsplit(":", 1)[1])
    started = time.monotonic()
    with pytest.raises(ImageRejected) as refused:
        loader(tmp_path).load(f"{host.base_url}/redirect?to={to}")
    assert refused.value.message == PRIVATE_ADDRESS
    assert host.requests == ["/redirect"]
    assert internal.requests == []
    assert time.monotonic() - started < 2


def test_redirects_within_allowed_hosts_are_followed_by_hand_up_to_five(tmp_path: Path, host: FakeImageHost) -> None:
    assert loader(tmp_path).load(f"{host.base_url}/redirect?to=/image.png") == png_bytes()
    with pytest.raises(ImageRejected) as refused:
        loader(tmp_path).load(f"{host.base_url}/loop")
    assert refused.value.message == TOO_MANY_REDIRECTS
    assert host.requests.count("/loop") == 6  # the first request and five redirects


def test_an_image_larger_than_the_limit_is_refused_while_it_arrives(tmp_path: Path, host: FakeImageHost) -> None:
    for path in ("/huge", "/declared-huge"):
        with pytest.raises(ImageRejected) as refused:
            loader(tmp_path).load(f"{host.base_url}{path}")
        assert refused.value.message == IMAGE_TOO_LARGE


def test_an_image_that_drips_in_is_cut_off_at_the_deadline(tmp_path: Path, host: FakeImageHost) -> None:
    started = time.monotonic()
    with pytest.raises(ImageUnavailable, match="still arriving"):
        loader(tmp_path, deadline_seconds=0.5).load(f"{host.base_url}/drip")
    assert time.monotonic() - started < 3  # each byte came well within the read timeout
