"""Simulated shoppers without a browser: websocket clients speaking Reflex's socket.io protocol."""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, BytesMessage, CloseConnection, Ping, Request, TextMessage

NAMESPACE = "/_event"


class SocketClient:
    """One engine.io v4 websocket on the Reflex event namespace (text frames only)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ws: WSConnection) -> None:
        self._reader, self._writer, self._ws = reader, writer, ws
        self._pending: list[str] = []
        #: The fragments of a text message whose end has not arrived yet (it may span several reads).
        self._partial = ""

    @classmethod
    async def connect(cls, base_url: str, token: str) -> SocketClient:
        parts = urlsplit(base_url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        ws = WSConnection(ConnectionType.CLIENT)
        writer.write(
            ws.send(Request(host=parts.netloc, target=f"{NAMESPACE}/?token={token}&EIO=4&transport=websocket"))
        )
        client = cls(reader, writer, ws)
        await client._drain()
        return client

    async def _drain(self) -> None:
        await self._writer.drain()

    async def send_text(self, text: str) -> None:
        self._writer.write(self._ws.send(TextMessage(data=text)))
        await self._drain()

    async def receive_text(self) -> str:
        """The next whole text message; answers engine.io pings on the way."""
        while True:
            while self._pending:
                message = self._pending.pop(0)
                if message == "2":
                    await self.send_text("3")
                    continue
                return message
            data = await self._reader.read(65536)
            if not data:
                raise ConnectionError("the server closed the socket")
            self._ws.receive_data(data)
            for event in self._ws.events():
                if isinstance(event, TextMessage):
                    self._partial += event.data
                    if event.message_finished:
                        self._pending.append(self._partial)
                        self._partial = ""
                elif isinstance(event, Ping):
                    self._writer.write(self._ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    raise ConnectionError("the server closed the socket")
                elif isinstance(event, (AcceptConnection, BytesMessage)):
                    pass

    async def close(self) -> None:
        self._writer.close()


def event_frame(name: str, payload: dict[str, Any], path: str) -> str:
    return f'42{NAMESPACE},' + json.dumps(
        ["event", {"name": name, "payload": payload, "router_data": {"pathname": path, "asPath": path}}])


@dataclass(frozen=True)
class ShopperScript:
    """What every shopper does: connect with the browser's connect payload, then send events in turn."""

    connect_auth: dict[str, Any]
    path: str
    events: list[tuple[str, Callable[[int], dict[str, Any]]]]
    #: A received frame containing one of these marks an event as handled (e.g. the listing arriving).
    done_markers: tuple[str, ...]
    #: A received frame containing one of these marks the connection as hydrated (and its on_load done).
    connect_markers: tuple[str, ...]
    #: Think time between a shopper's events, drawn uniformly from this range (seconds).
    think_s: tuple[float, float] = (1.0, 3.0)


async def _shopper(base_url: str, script: ShopperScript, rounds: int, latencies: list[float],
                   errors: list[str], connected: asyncio.Event, go: asyncio.Event) -> None:
    try:
        client = await SocketClient.connect(base_url, str(uuid.uuid4()))
        await client.receive_text()  # engine.io open
        await client.send_text(f"40{NAMESPACE}," + json.dumps(script.connect_auth))
        await _until_handled(client, script.connect_markers)  # the hydrate and on_load deltas
    except Exception as error:  # noqa: BLE001 - counted, reported
        errors.append(f"connect: {error!r}")
        connected.set()
        return
    connected.set()
    await go.wait()
    try:
        for round_ in range(rounds):
            for name, payload in script.events:
                await asyncio.sleep(random.uniform(*script.think_s))
                start = time.perf_counter()
                await client.send_text(event_frame(name, payload(round_), script.path))
                await _until_handled(client, script.done_markers)
                latencies.append((time.perf_counter() - start) * 1000)
    except Exception as error:  # noqa: BLE001
        errors.append(f"event: {error!r}")
    finally:
        await client.close()


async def _until_handled(client: SocketClient, markers: tuple[str, ...], timeout: float = 60) -> None:
    """Read messages until one contains one of `markers`; on timeout, say what did arrive."""
    seen: list[str] = []
    try:
        async with asyncio.timeout(timeout):
            while True:
                message = await client.receive_text()
                if message.startswith(f"42{NAMESPACE}") and any(m in message for m in markers):
                    return
                seen.append(message[:120])
    except TimeoutError:
        raise TimeoutError(f"none of {markers!r} in {timeout:g} s; got {len(seen)} messages: {seen[-4:]}") from None


@dataclass(frozen=True)
class LoadResult:
    shoppers: int
    connected: int
    events: int
    p50_ms: float
    p95_ms: float
    events_per_s: float
    errors: list[str]


async def run_shoppers(base_url: str | Sequence[str], script: ShopperScript, shoppers: int, rounds: int,
                       while_connected: Callable[[], Any] | None = None) -> tuple[LoadResult, Any]:
    """Connect `shoppers` clients, call `while_connected` (e.g. a memory probe), then all send events.
    Several base URLs (backend processes) share the shoppers evenly, each shopper staying on one."""
    urls = [base_url] if isinstance(base_url, str) else list(base_url)
    latencies: list[float] = []
    errors: list[str] = []
    go = asyncio.Event()
    flags = [asyncio.Event() for _ in range(shoppers)]
    tasks = []
    for number, flag in enumerate(flags):
        tasks.append(
            asyncio.create_task(_shopper(urls[number % len(urls)], script, rounds, latencies, errors, flag, go))
        )
        await asyncio.sleep(0.01)
    await asyncio.wait_for(asyncio.gather(*(flag.wait() for flag in flags)), timeout=300)
    probe = while_connected() if while_connected else None
    start = time.perf_counter()
    go.set()  # events per second counts think time too: it is the rate the shoppers were served at
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - start
    latencies.sort()
    result = LoadResult(
        shoppers=shoppers,
        connected=shoppers - sum(e.startswith("connect") for e in errors),
        events=len(latencies),
        p50_ms=statistics.median(latencies) if latencies else float("nan"),
        p95_ms=latencies[max(0, int(len(latencies) * 0.95) - 1)] if latencies else float("nan"),
        events_per_s=len(latencies) / elapsed if elapsed else 0.0,
        errors=errors[:5],
    )
    return result, probe
