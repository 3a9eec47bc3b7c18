"""The Events tab: a page of event cards (active and inactive), the create/edit dialog with its
photo uploads, and delete after confirmation. Cards hold display strings only; the form is loaded
from the database when a card is opened for editing."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypedDict

import reflex as rx

from storefront.services.events import events
from storefront.services.media import uploads
from storefront.services.media.images import MAX_IMAGE_BYTES
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.services.staff import activity
from storefront.services.staff.activity import Actor
from storefront.state.admin.paged import Page, PagedAdminState, PageRequest
from storefront.state.admin.session import AdminState, admin_event
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

PAGE_SIZE = 20
MAX_IMAGES = events.MAX_EVENT_IMAGES
UPLOAD_FOLDER = "events"
DESCRIPTION_PREVIEW = 180
NO_PRICE = "Not set"

ERROR = "Error"
SUCCESS = "Success"
EVENT_CREATED = "Event created successfully"
EVENT_UPDATED = "Event updated successfully"
EVENT_DELETED = "Event deleted successfully"
CREATE_FAILED = "Failed to create event"
UPDATE_FAILED = "Failed to update event"
DELETE_FAILED = "Failed to delete event"
LOAD_FAILED = "Failed to load events"
UPLOAD_FAILED = "Upload failed"
UPLOAD_FAILED_DESCRIPTION = "Failed to upload images. Please try again."
TOO_MANY_FILES = "Too many files"
#: react-dropzone's code for a drop of more files than `maxFiles`.
DROPZONE_TOO_MANY = "too-many-files"

#: The form's text fields, by the name the service reads them under.
TEXT_FIELDS = ("title", "location", "description", "startDate", "endDate", "capacity", "price")
FLAG_FIELDS = ("isActive", "featured")


def too_many_description(limit: int = MAX_IMAGES) -> str:
    return f"You can only upload up to {limit} images"


def uploaded_description(count: int) -> str:
    return f"{count} image{'' if count == 1 else 's'} uploaded"


class EventCard(TypedDict):
    """One card of the tab, formatted for display (plus its sort key)."""

    id: int
    starts_at: str
    title: str
    description: str
    start: str
    location: str
    capacity: str
    price: str
    registrations: int
    images: int
    videos: int
    links: int
    featured: bool
    active: bool


class LinkRow(TypedDict):
    title: str
    url: str


def preview(text: str, limit: int = DESCRIPTION_PREVIEW) -> str:
    """The start of a description, as much as a card shows."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def to_card(view: events.EventView) -> EventCard:
    return EventCard(
        id=view.id,
        starts_at=view.starts_at,
        title=view.title,
        description=preview(view.description),
        start=events.long_date(view.starts_at),
        location=view.location,
        capacity="Unlimited" if view.capacity is None else str(view.capacity),
        price=events.price_label(view.price_cents) or NO_PRICE,
        registrations=view.registration_count,
        images=len(view.images),
        videos=len(view.videos),
        links=len(view.links),
        featured=view.featured,
        active=view.is_active,
    )


def place(cards: list[EventCard], card: EventCard, total: int) -> tuple[list[EventCard], int]:
    """`cards` without the card's old copy and with the new one where the list's order puts it
    (soonest first, then id), unless that is past the loaded part; and the index it went to (-1)."""
    rest = [c for c in cards if c["id"] != card["id"]]
    key = (card["starts_at"], card["id"])
    index = next((i for i, c in enumerate(rest) if (c["starts_at"], c["id"]) > key), len(rest))
    if index == len(rest) and len(rest) < total - 1:
        return rest, -1  # belongs to a page not loaded yet
    return [*rest[:index], card, *rest[index:]], index


def price_text(cents: int | None) -> str:
    return "" if cents is None else f"{cents // 100}.{cents % 100:02d}"


# --------------------------------------------------------------------------- database work (in a thread)


def _page(offset: int) -> tuple[list[EventCard], int]:
    with session_scope() as session:
        page = events.list_events(session, include_inactive=True, limit=PAGE_SIZE, offset=offset)
        return [to_card(view) for view in page.events], page.total


def _load_form(event_id: int) -> events.EventView:
    with session_scope() as session:
        return events.get_event(session, event_id, include_inactive=True)


def _save(event_id: int, data: dict[str, Any], actor: Actor) -> EventCard:
    with session_scope() as session:
        view = events.update_event(session, event_id, data) if event_id else events.create_event(session, data)
        change = {"updated" if event_id else "created": view.title}
        activity.record(session, actor, activity.EVENT_CHANGE, f"event {view.id}", after=change)
        return to_card(view)


def _delete(event_id: int, actor: Actor) -> None:
    with session_scope() as session:
        events.delete_event(session, event_id)
        activity.record(session, actor, activity.EVENT_CHANGE, f"event {event_id}", after={"deleted": True})


def _store(files: list[uploads.UploadedFile]) -> list[str]:
    settings = services().settings
    with session_scope() as session:
        stored = uploads.store_uploads(session, files, settings.upload_dir, settings.media_dir, UPLOAD_FOLDER)
        return [image.url for image in stored]


# --------------------------------------------------------------------------- the state


class AdminEventsState(PagedAdminState, AdminState):
    """The Events tab of /admin/dashboard: its cards (`rows`) come a page at a time."""

    rows: list[EventCard] = []

    # The dialog: 0 creates a new event, an id edits that one.
    dialog_open: bool = False
    editing_id: int = 0
    form_loading: bool = False
    saving: bool = False
    title: str = ""
    location: str = ""
    description: str = ""
    start_date: str = ""
    end_date: str = ""
    capacity: str = ""
    price: str = ""
    is_active: bool = True
    featured: bool = False
    images: list[str] = []
    videos: list[str] = [""]
    links: list[LinkRow] = [LinkRow(title="", url="")]
    errors: dict[str, str] = {}
    uploading: bool = False

    # The delete confirmation.
    delete_id: int = 0
    delete_title: str = ""
    deleting: bool = False

    @rx.var
    def dialog_title(self) -> str:
        return "Edit Event" if self.editing_id else "Create New Event"

    @rx.var
    def confirm_open(self) -> bool:
        return self.delete_id != 0

    # ----------------------------------------------------------------------- the list (PagedAdminState)

    async def _fetch_page(self, request: PageRequest) -> Page:
        cards, total = await asyncio.to_thread(_page, request.offset)
        return Page(rows=cards, more=request.offset + len(cards) < total, total=total)

    def _page_failed(self) -> rx.event.EventSpec:
        return rx.toast.error(ERROR, description=LOAD_FAILED)

    # ----------------------------------------------------------------------- the dialog

    def _reset_form(self) -> None:
        self.editing_id, self.form_loading = 0, False
        self.title = self.location = self.description = ""
        self.start_date = self.end_date = self.capacity = self.price = ""
        self.is_active, self.featured = True, False
        self.images, self.videos, self.links = [], [""], [LinkRow(title="", url="")]
        self.errors = {}

    @rx.event
    @admin_event
    async def open_create(self):
        self._reset_form()
        self.dialog_open = True
        return None

    @rx.event(background=True)
    @admin_event
    async def open_edit(self, event_id: int):
        """Open the dialog on one event, its form loaded from the database."""
        async with self:
            self._reset_form()
            self.editing_id, self.form_loading, self.dialog_open = int(event_id), True, True
        try:
            view = await asyncio.to_thread(_load_form, int(event_id))
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("loading event %s failed", event_id)
            async with self:
                self.dialog_open, self.form_loading = False, False
                self._reset_form()
            return rx.toast.error(ERROR, description=events.EVENT_NOT_FOUND)
        async with self:
            if not self.dialog_open or self.editing_id != view.id:
                return None
            self.title, self.location, self.description = view.title, view.location, view.description
            self.start_date, self.end_date = view.starts_at, view.ends_at or ""
            self.capacity = "" if view.capacity is None else str(view.capacity)
            self.price = price_text(view.price_cents)
            self.is_active, self.featured = view.is_active, view.featured
            self.images = list(view.images)
            self.videos = list(view.videos) or [""]
            self.links = [LinkRow(title=link.title, url=link.url) for link in view.links] or [LinkRow(title="", url="")]
            self.form_loading = False
        return None

    @rx.event
    @admin_event
    async def set_dialog_open(self, value: bool):
        """The dialog closed by Escape or the overlay: the same as Cancel."""
        if not value:
            self._reset_form()
        self.dialog_open = value
        return None

    @rx.event
    @admin_event
    async def cancel(self):
        self._reset_form()
        self.dialog_open = False
        return None

    @rx.event
    @admin_event
    async def set_field(self, name: str, value: str):
        attribute = {
            "title": "title",
            "location": "location",
            "description": "description",
            "startDate": "start_date",
            "endDate": "end_date",
            "capacity": "capacity",
            "price": "price",
        }.get(name)
        if attribute is not None:
            setattr(self, attribute, str(value))
        return None

    @rx.event
    @admin_event
    async def set_flag(self, name: str, value: bool):
        if name == "isActive":
            self.is_active = bool(value)
        elif name == "featured":
            self.featured = bool(value)
        return None

    @rx.event
    @admin_event
    async def set_video(self, index: int, value: str):
        if 0 <= index < len(self.videos):
            self.videos[index] = str(value)
        return None

    @rx.event
    @admin_event
    async def add_video(self):
        self.videos.append("")
        return None

    @rx.event
    @admin_event
    async def remove_video(self, index: int):
        if len(self.videos) > 1 and 0 <= index < len(self.videos):
            self.videos.pop(index)
        return None

    @rx.event
    @admin_event
    async def set_link(self, index: int, part: str, value: str):
        if part in ("title", "url") and 0 <= index < len(self.links):
            self.links[index] = {**self.links[index], part: str(value)}  # type: ignore[typeddict-item]
        return None

    @rx.event
    @admin_event
    async def add_link(self):
        self.links.append(LinkRow(title="", url=""))
        return None

    @rx.event
    @admin_event
    async def remove_link(self, index: int):
        if len(self.links) > 1 and 0 <= index < len(self.links):
            self.links.pop(index)
        return None

    @rx.event
    @admin_event
    async def remove_image(self, index: int):
        if 0 <= index < len(self.images):
            self.images.pop(index)
        return None

    def _form_data(self) -> dict[str, Any]:
        """The form under the names the service (and the API) use."""
        return {
            "title": self.title,
            "location": self.location,
            "description": self.description,
            "startDate": self.start_date,
            "endDate": self.end_date,
            "capacity": self.capacity,
            "price": self.price,
            "images": list(self.images),
            "videos": list(self.videos),
            "links": [dict(link) for link in self.links],
            "isActive": self.is_active,
            "featured": self.featured,
        }

    @rx.event(background=True)
    @admin_event
    async def save(self):
        """Create or update the event; on a refusal the dialog stays open with the messages."""
        async with self:
            if self.saving or self.form_loading or self.uploading:
                return None
            self.saving, self.errors = True, {}
            event_id, data = self.editing_id, self._form_data()
        failed = UPDATE_FAILED if event_id else CREATE_FAILED
        try:
            card = await asyncio.to_thread(_save, event_id, data, await self._actor())
        except ValidationError as error:
            async with self:
                self.saving, self.errors = False, dict(error.field_errors)
            return rx.toast.error(ERROR, description=failed)
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("saving event %s failed", event_id or "(new)")
            async with self:
                self.saving = False
            return rx.toast.error(ERROR, description=failed)
        async with self:
            self.saving = False
            total = self.total + (0 if event_id else 1)
            self.rows, index = place(self.rows, card, total)
            self.total = total
            if index < 0:  # it belongs to a page not loaded yet: Load More brings it
                self.has_more = True
            if self.editing_id == event_id:
                self._reset_form()
                self.dialog_open = False
        return rx.toast.success(SUCCESS, description=EVENT_UPDATED if event_id else EVENT_CREATED)

    # ----------------------------------------------------------------------- photos

    @rx.event
    @admin_event
    async def upload_images(self, files: list[rx.UploadFile]):
        """Photos chosen or dropped on the uploader: checked and stored, then added to the form."""
        if not files:
            return
        if len(self.images) + len(files) > MAX_IMAGES:
            yield rx.toast.error(TOO_MANY_FILES, description=too_many_description(MAX_IMAGES))
            return
        self.uploading = True
        yield
        try:
            # Never more than one byte past the limit: a larger file is refused without being read whole.
            received = [
                uploads.UploadedFile(filename=file.name or "", data=await file.read(MAX_IMAGE_BYTES + 1))
                for file in files
            ]
            urls = await asyncio.to_thread(_store, received)
        except ValidationError as error:
            self.uploading = False
            yield rx.toast.error(UPLOAD_FAILED, description=error.message)
            return
        except Exception:
            log.exception("uploading event images failed")
            self.uploading = False
            yield rx.toast.error(UPLOAD_FAILED, description=UPLOAD_FAILED_DESCRIPTION)
            return
        self.uploading = False
        if len(self.images) + len(urls) > MAX_IMAGES:  # the form changed meanwhile
            yield rx.toast.error(TOO_MANY_FILES, description=too_many_description(MAX_IMAGES))
            return
        self.images = [*self.images, *urls]
        yield rx.toast.success(SUCCESS, description=uploaded_description(len(urls)))

    @rx.event
    @admin_event
    async def reject_images(self, codes: list[str], reasons: list[str]):
        """Files the uploader refused before sending them (too many, too large, not an image)."""
        if any(DROPZONE_TOO_MANY in code for code in codes):
            return rx.toast.error(TOO_MANY_FILES, description=too_many_description(MAX_IMAGES))
        reason = "; ".join(r for r in reasons if r) or UPLOAD_FAILED_DESCRIPTION
        return rx.toast.error(UPLOAD_FAILED, description=reason)

    # ----------------------------------------------------------------------- delete

    @rx.event
    @admin_event
    async def ask_delete(self, event_id: int, title: str):
        self.delete_id, self.delete_title = int(event_id), str(title)
        return None

    @rx.event
    @admin_event
    async def set_confirm_open(self, value: bool):
        if not value and not self.deleting:
            self.delete_id, self.delete_title = 0, ""
        return None

    @rx.event(background=True)
    @admin_event
    async def confirm_delete(self):
        async with self:
            if self.deleting or not self.delete_id:
                return None
            event_id, self.deleting = self.delete_id, True
        try:
            await asyncio.to_thread(_delete, event_id, await self._actor())
        except Exception as error:
            if not isinstance(error, ServiceError):
                log.exception("deleting event %s failed", event_id)
            async with self:
                self.deleting, self.delete_id, self.delete_title = False, 0, ""
            return rx.toast.error(ERROR, description=DELETE_FAILED)
        async with self:
            self.rows = [card for card in self.rows if card["id"] != event_id]
            self.total = max(self.total - 1, 0)
            self.deleting, self.delete_id, self.delete_title = False, 0, ""
        return rx.toast.success(SUCCESS, description=EVENT_DELETED)
