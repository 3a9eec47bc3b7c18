"""One paged list for the admin tabs: the loaded rows, where the next page starts, whether there is
one, the loading flags and the guard that drops a stale answer; `load` shows the first page afresh
and `load_more` appends the next.

A tab is `class Tab(PagedAdminState, AdminState)`: the mixin gives each tab its own copy of the
vars and handlers (a class whose state bases are all mixins is a mixin itself, hence AdminState
again), and the tab implements the hooks:

- `_page_params()`, under the state lock: what a fetch needs from the state (search, shop, view);
  None when there is nothing to list (no shop yet). An answer fetched for other params than the
  state holds when it arrives is dropped, as is one a newer `load` overtook (the generation).
- `_fetch_page(request)`, off the lock: one page at `request.offset` (offset lists) or after
  `request.cursor` (keyset lists); returns a `Page`: its rows and whether more follow.
- `_page_failed()`: the toast a failed fetch answers.
- `_page_started(request, reset)`, optional, under the lock as a fetch starts.
- `_page_shown(page, reset)`, optional, under the lock: whatever else the answer brings (cards,
  stat figures), after its rows are shown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import reflex as rx

from storefront.state.admin.session import AdminState, admin_event

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PageRequest:
    """Which page to fetch: the rows shown so far, the previous page's cursor and the tab's params."""

    offset: int
    cursor: str
    params: Any


@dataclass(frozen=True)
class Page:
    """One page of rows (display dicts), whether more follow, the list's size when the tab shows it,
    and the cursor the next page starts after (keyset lists; "" for offset lists)."""

    rows: list[Any]
    more: bool
    total: int = 0
    cursor: str = ""


class PagedAdminState(AdminState, mixin=True):
    """The state of a paged admin list; see the module's docstring for the hooks a tab implements."""

    #: The rows shown, in the list's order (a tab narrows the type for its components).
    rows: list[dict[str, Any]] = []
    #: How many rows the whole list has (for the tabs that show it; a keyset list leaves it 0).
    total: int = 0
    has_more: bool = False
    #: The first page is being fetched (a `load`).
    loading: bool = False
    #: The next page is being fetched (a `load_more`).
    loading_more: bool = False
    #: A first page has been shown (an empty list then says so, instead of a skeleton).
    loaded: bool = False

    #: Where the next page starts in a keyset list.
    _cursor: str = ""
    #: Bumped by every `load`, so a slower older answer never overwrites a newer one.
    _generation: int = 0

    # ----------------------------------------------------------------------- the hooks

    async def _page_params(self) -> Any:
        """Under the lock: what the fetch needs from the state; None when there is nothing to list."""
        return ()

    async def _fetch_page(self, request: PageRequest) -> Page:
        """Off the lock: one page (the tab runs its database or provider work in a thread). Every tab
        defines it (tests/unit/state/test_admin_paged.py checks each one does)."""
        raise NotImplementedError(f"{type(self).__name__} lists pages but does not define _fetch_page")

    def _page_failed(self) -> rx.event.EventSpec:
        """The toast a failed fetch answers; every tab defines it, as it defines `_fetch_page`."""
        raise NotImplementedError(f"{type(self).__name__} lists pages but does not define _page_failed")

    async def _page_started(self, request: PageRequest, reset: bool) -> None:
        """Under the lock, as a fetch starts: a `load`'s (reset) or a `load_more`'s."""

    def _page_shown(self, page: Page, reset: bool) -> None:
        """Under the lock, after a fresh answer's rows are shown: whatever else the page brought."""

    def _row_key(self, row: Any) -> object:
        """What tells two rows apart, so a page that overlaps the shown rows adds none twice."""
        return row["id"]

    # ----------------------------------------------------------------------- the flow

    @rx.event(background=True)
    @admin_event
    async def load(self):
        """The first page afresh (on showing the tab, and after a search, filter or shop change)."""
        return await self._load_page(reset=True)

    @rx.event(background=True)
    @admin_event
    async def load_more(self):
        """Append the next page (Load More)."""
        return await self._load_page(reset=False)

    async def _load_page(self, reset: bool) -> rx.event.EventSpec | None:
        async with self:
            params = await self._page_params()
            if params is None:
                return None
            if reset:
                self._generation += 1
                self.loading = True
                request = PageRequest(offset=0, cursor="", params=params)
            else:
                if self.loading or self.loading_more or not self.has_more:
                    return None
                self.loading_more = True
                request = PageRequest(offset=len(self.rows), cursor=self._cursor, params=params)
            generation = self._generation
            await self._page_started(request, reset)
        try:
            page = await self._fetch_page(request)
        except Exception:
            log.exception("loading a page of %s failed", type(self).__name__)
            async with self:
                self._settle(reset, generation)
            return self._page_failed()
        async with self:
            self._settle(reset, generation)
            if generation != self._generation or await self._page_params() != params:
                return None  # a newer load, or another search, filter or shop, owns the list
            if reset:
                self.rows, self.loaded = list(page.rows), True
            elif request.offset == len(self.rows) and request.cursor == self._cursor:
                known = {self._row_key(row) for row in self.rows}
                self.rows = [*self.rows, *(row for row in page.rows if self._row_key(row) not in known)]
            else:
                return None  # the list changed under this page; Load More asks again
            self.total, self.has_more, self._cursor = page.total, page.more, page.cursor
            self._page_shown(page, reset)
        return None

    def _settle(self, reset: bool, generation: int) -> None:
        """The fetch is over: clear its flag (a first page's only if no newer load is running)."""
        if not reset:
            self.loading_more = False
        elif generation == self._generation:
            self.loading = False
