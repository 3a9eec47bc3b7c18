"""The listing's browser calls, made as plain text: run in Node as the browser runs them
(Reflex evals `payload.function` where `refs` is in scope, then calls what it gives)."""

from __future__ import annotations

import json
import subprocess

import pytest

from storefront.state.catalog import PRODUCTS_CARDS, keep_search_in_address, show_cards
from tests.node_runtime import NODE

needs_node = pytest.mark.skipif(NODE is None, reason="the browser calls are run in Node")

#: Runs each call's function as utils/state.js does; prints what the list and the address became.
HARNESS = r"""
const refs = {};
const calls = [];
const history = {state: {key: 1}, replaced: [], replaceState(state, _, url) { this.replaced.push(url); }};
const window = {location: {pathname: process.env.PATHNAME}, history};
const timers = [];
globalThis.setTimeout = (f) => timers.push(f);
const [before, mounted, functions] = JSON.parse(process.env.SCENARIO);
if (before !== null) refs['_client_state_products_cards'] = before;
const set = (v) => { calls.push(v); refs['_client_state_products_cards'] = v; };
if (mounted) refs['_client_state_setProducts_cards'] = set;
for (const source of functions) eval(source)();
const drawnBeforeTimers = history.replaced.length;
timers.forEach((f) => f());
console.log(JSON.stringify({shown: refs['_client_state_products_cards'] ?? null, calls, replaced: history.replaced,
                            drawnBeforeTimers}));
"""


def run(functions: list[str], before: list | None = None, mounted: bool = True, pathname: str = "/products") -> dict:
    assert NODE is not None
    done = subprocess.run([NODE, "-e", HARNESS], env={"SCENARIO": json.dumps([before, mounted, functions]),
                                                       "PATHNAME": pathname},
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def function(event) -> str:
    assert event.name == "_call_function" and event.payload["callback"] is None
    return event.payload["function"]


@needs_node
def test_a_new_search_replaces_the_cards_the_list_shows() -> None:
    seen = run([function(show_cards(PRODUCTS_CARDS, '[{"id":"b"}]', append=False))], before=[{"id": "a"}])
    assert seen["shown"] == [{"id": "b"}] and seen["calls"] == [[{"id": "b"}]]


@needs_node
def test_load_more_appends_its_page() -> None:
    seen = run([function(show_cards(PRODUCTS_CARDS, '[{"id":"c"}]', append=True))], before=[{"id": "a"}, {"id": "b"}])
    assert seen["shown"] == [{"id": "a"}, {"id": "b"}, {"id": "c"}]


@needs_node
def test_cards_sent_before_the_list_mounts_wait_for_it() -> None:
    seen = run([function(show_cards(PRODUCTS_CARDS, '[{"id":"b"}]', append=False))], before=None, mounted=False)
    assert seen["shown"] == [{"id": "b"}] and seen["calls"] == []


@needs_node
def test_the_address_follows_the_search_after_the_cards_only_on_the_listing() -> None:
    calls = [function(show_cards(PRODUCTS_CARDS, "[]", append=False)), function(keep_search_in_address('say "hi"'))]
    seen = run(calls)
    assert seen["replaced"] == ["/products?q=say+%22hi%22"] and seen["drawnBeforeTimers"] == 0
    assert run(calls, pathname="/products/")["replaced"] == ["/products?q=say+%22hi%22"]
    assert run(calls, pathname="/cart")["replaced"] == []
