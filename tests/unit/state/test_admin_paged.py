"""The admin tabs' paged list: the first page replaces, Load More appends until no more follow,
and an answer a newer load (or another search) overtook is dropped."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from storefront.state.admin.paged import Page, PagedAdminState, PageRequest
from storefront.state.admin.session import SESSION_CHECKED, AdminState

LOAD_FAILED = "the tab's failure toast"
ROWS = [{"id": f"r{n}"} for n in range(5)]


class PagedTab(PagedAdminState, AdminState):
    """A list of ROWS two at a time, filtered by `query`; each fetch waits until the test answers it."""

    query: str = ""

    async def _page_params(self) -> Any:
        return self.query

    async def _fetch_page(self, request: PageRequest) -> Page:
        self._requests.append(request)
        answer: asyncio.Future[Page] = asyncio.get_running_loop().create_future()
        self._answers.append(answer)
        return await answer

    def _page_failed(self) -> Any:
        return LOAD_FAILED


def page_at(offset: int, query: str = "") -> Page:
    rows = [{**row, "query": query} for row in ROWS[offset : offset + 2]]
    return Page(rows=rows, more=offset + 2 < len(ROWS), total=len(ROWS))


def new_tab() -> PagedTab:
    tab = PagedTab(_reflex_internal_init=True)  # type: ignore[call-arg]
    # Plain attributes the fake fetch records into (not state vars).
    object.__setattr__(tab, "_requests", [])
    object.__setattr__(tab, "_answers", [])
    return tab


async def _started(tab: PagedTab, reset: bool, fetches: int) -> asyncio.Task[Any]:
    """Start a load (reset) or a Load More and wait until it is fetching (or returned at once)."""
    task = asyncio.ensure_future(tab._load_page(reset=reset))
    while len(tab._answers) < fetches and not task.done():  # type: ignore[attr-defined]
        await asyncio.sleep(0)
    return task


async def _answer(tab: PagedTab, task: asyncio.Task[Any], index: int, page: Page) -> Any:
    tab._answers[index].set_result(page)  # type: ignore[attr-defined]
    return await task


def test_load_shows_the_first_page_and_load_more_appends_until_no_more_follow() -> None:
    async def run() -> list[str]:
        tab = new_tab()
        first = await _started(tab, reset=True, fetches=1)
        assert tab.loading and not tab.loaded
        await _answer(tab, first, 0, page_at(0))
        assert not tab.loading and tab.loaded and tab.has_more and tab.total == len(ROWS)
        for n, offset in enumerate((2, 4), start=1):
            more = await _started(tab, reset=False, fetches=n + 1)
            assert tab.loading_more
            await _answer(tab, more, n, page_at(offset))
            assert not tab.loading_more
        assert [r.offset for r in tab._requests] == [0, 2, 4]  # type: ignore[attr-defined]
        assert not tab.has_more
        # No more follow: Load More fetches nothing.
        done = await _started(tab, reset=False, fetches=4)
        assert done.done() and await done is None and len(tab._answers) == 3  # type: ignore[attr-defined]
        return [row["id"] for row in tab.rows]

    assert asyncio.run(run()) == ["r0", "r1", "r2", "r3", "r4"]


def test_a_page_that_overlaps_the_shown_rows_adds_none_twice() -> None:
    async def run() -> list[str]:
        tab = new_tab()
        await _answer(tab, await _started(tab, reset=True, fetches=1), 0, page_at(0))
        more = await _started(tab, reset=False, fetches=2)
        await _answer(tab, more, 1, Page(rows=[ROWS[1], ROWS[2], ROWS[3]], more=True, total=len(ROWS)))
        return [row["id"] for row in tab.rows]

    assert asyncio.run(run()) == ["r0", "r1", "r2", "r3"]


def test_a_first_page_answered_after_a_newer_load_is_dropped() -> None:
    async def run() -> PagedTab:
        tab = new_tab()
        older = await _started(tab, reset=True, fetches=1)
        newer = await _started(tab, reset=True, fetches=2)
        await _answer(tab, newer, 1, page_at(0, "newer"))
        await _answer(tab, older, 0, page_at(0, "older"))
        return tab

    tab = asyncio.run(run())
    assert {row["query"] for row in tab.rows} == {"newer"}
    assert not tab.loading


def test_the_older_load_ending_does_not_clear_the_newer_ones_loading_flag() -> None:
    async def run() -> PagedTab:
        tab = new_tab()
        older = await _started(tab, reset=True, fetches=1)
        await _started(tab, reset=True, fetches=2)
        await _answer(tab, older, 0, page_at(0, "older"))
        return tab

    tab = asyncio.run(run())
    assert tab.loading and tab.rows == []


def test_a_next_page_answered_after_a_newer_load_is_not_appended() -> None:
    async def run() -> list[str]:
        tab = new_tab()
        await _answer(tab, await _started(tab, reset=True, fetches=1), 0, page_at(0))
        more = await _started(tab, reset=False, fetches=2)
        reload = await _started(tab, reset=True, fetches=3)
        await _answer(tab, reload, 2, page_at(0, "reloaded"))
        await _answer(tab, more, 1, page_at(2))
        assert not tab.loading_more
        return [f"{row['id']}:{row['query']}" for row in tab.rows]

    assert asyncio.run(run()) == ["r0:reloaded", "r1:reloaded"]


def test_an_answer_for_another_search_is_dropped() -> None:
    async def run() -> PagedTab:
        tab = new_tab()
        first = await _started(tab, reset=True, fetches=1)
        tab.query = "shirts"  # typed before the answer came, its own load not started yet
        await _answer(tab, first, 0, page_at(0))
        return tab

    tab = asyncio.run(run())
    assert tab.rows == [] and not tab.loaded


def test_load_more_does_nothing_while_the_first_page_loads() -> None:
    async def run() -> int:
        tab = new_tab()
        tab.has_more = True
        await _started(tab, reset=True, fetches=1)
        more = await _started(tab, reset=False, fetches=2)
        assert more.done() and await more is None
        return len(tab._answers)  # type: ignore[attr-defined]

    assert asyncio.run(run()) == 1


def test_a_failed_fetch_answers_the_tabs_toast_and_clears_its_flag() -> None:
    async def run() -> tuple[Any, PagedTab]:
        tab = new_tab()
        task = await _started(tab, reset=True, fetches=1)
        tab._answers[0].set_exception(RuntimeError("database down"))  # type: ignore[attr-defined]
        return await task, tab

    toast, tab = asyncio.run(run())
    assert toast == LOAD_FAILED
    assert not tab.loading and tab.rows == []


@pytest.mark.parametrize("handler", ["load", "load_more"])
def test_the_paged_handlers_check_the_admin_session(handler: str) -> None:
    assert getattr(PagedTab.event_handlers[handler].fn, SESSION_CHECKED, False)
    assert PagedTab.event_handlers[handler].is_background


def test_every_admin_tab_on_the_base_defines_its_required_hooks() -> None:
    """The base's `_fetch_page` and `_page_failed` only say what is missing: each tab built on it
    (imported with the admin states) defines both, so none reaches them."""
    from storefront.state.admin import categories, editor, events, orders, product_management, sync_pricing

    tabs = [
        module_state
        for module in (categories, editor, events, orders, product_management, sync_pricing)
        for module_state in vars(module).values()
        if isinstance(module_state, type) and issubclass(module_state, PagedAdminState)
        and module_state is not PagedAdminState
    ]
    assert len({tab.__name__ for tab in tabs}) == 6
    for tab in tabs:
        for hook in ("_fetch_page", "_page_failed"):
            assert getattr(tab, hook) is not getattr(PagedAdminState, hook), f"{tab.__name__}.{hook}"
