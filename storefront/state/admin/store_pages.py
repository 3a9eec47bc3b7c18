"""The back office's store pages card: staff edit a policy or the contact page's text as Markdown,
with a preview rendered and sanitised on the server (as the page shows it)."""

from __future__ import annotations

import asyncio
import logging

import reflex as rx

from storefront.services.content import store_pages
from storefront.services.platform.errors import ServiceError
from storefront.services.platform.store_routes import STORE_PAGES
from storefront.state.admin.session import GENERIC_FAILURE, AdminState, admin_event
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

SAVED = "Page saved"
RESET = "Default text restored"
SAVE_FAILED = "Failed to save the page"
LOAD_FAILED = "Failed to load the page"
#: The preview is rendered again at most this often while staff type.
PREVIEW_DEBOUNCE_MS = 400


def _read(slug: str) -> store_pages.PageText:
    with session_scope() as session:
        return store_pages.page_text(session, slug, services().shop_facts)


def _save(slug: str, markdown: str) -> store_pages.PageText:
    with session_scope() as session:
        saved = store_pages.save_page(session, slug, markdown)
    return saved if saved.edited else _read(slug)


def _preview(markdown: str) -> str:
    return store_pages.render_markdown(markdown, services().settings.public_url)


class StorePagesAdminState(AdminState):
    """The page being edited, its Markdown as typed, and its preview."""

    slug: str = STORE_PAGES[0].slug
    markdown: str = ""
    preview_html: str = ""
    edited: bool = False
    loaded: bool = False
    saving: bool = False
    error: str = ""

    @rx.var
    def page_options(self) -> list[dict[str, str]]:
        return [{"value": page.slug, "label": page.title} for page in STORE_PAGES]

    @rx.var
    def page_route(self) -> str:
        return store_pages.route_of(self.slug).route if self.slug in {p.slug for p in STORE_PAGES} else "/"

    async def _show(self, text: store_pages.PageText) -> None:
        self.slug, self.markdown, self.edited, self.error = text.slug, text.markdown, text.edited, ""
        self.preview_html = await asyncio.to_thread(_preview, text.markdown)
        self.loaded = True

    @rx.event
    @admin_event
    async def load(self, slug: str = ""):
        """Open a page's text (staff's, else the default) in the editor."""
        try:
            await self._show(await asyncio.to_thread(_read, slug or self.slug))
        except ServiceError as error:
            return rx.toast.error(LOAD_FAILED, description=error.message)
        except Exception:
            log.exception("reading store page %s failed", slug)
            return rx.toast.error(LOAD_FAILED, description=GENERIC_FAILURE)
        return None

    @rx.event
    @admin_event
    async def set_markdown(self, value: str):
        """What staff typed, and its preview as the page will show it."""
        self.markdown = value
        self.preview_html = await asyncio.to_thread(_preview, value)
        return None

    @admin_event
    async def _store(self, markdown: str, done: str):
        self.saving = True
        try:
            saved = await asyncio.to_thread(_save, self.slug, markdown)
        except ServiceError as error:
            self.error = error.message
            return rx.toast.error(SAVE_FAILED, description=error.message)
        except Exception:
            log.exception("saving store page %s failed", self.slug)
            return rx.toast.error(SAVE_FAILED, description=GENERIC_FAILURE)
        finally:
            self.saving = False
        await self._show(saved)
        return rx.toast.success(done)

    @rx.event
    async def save(self):
        """Keep the Markdown as the page's text."""
        return await self._store(self.markdown, SAVED)

    @rx.event
    async def restore_default(self):
        """Forget staff's text: the page shows its default again."""
        return await self._store("", RESET)
