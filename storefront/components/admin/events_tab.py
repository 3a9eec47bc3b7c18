"""Admin dashboard tab: Events. Every event (active and inactive) as a card, Create Event, Edit and
Delete (after a confirmation), and the one create/edit dialog with the photo uploader."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.image_uploader import image_uploader
from storefront.state.admin.events import MAX_IMAGES, AdminEventsState as S

UPLOAD_ID = "event-images"
DELETE_CONFIRMATION = "Are you sure you want to delete this event? This action cannot be undone."


# --------------------------------------------------------------------------- the cards


def fact(icon: str, label: str, value: rx.Var) -> rx.Component:
    return rx.hstack(
        rx.icon(icon, size=14, color=styles.MUTED),
        rx.text(label, ": ", size="2", color=styles.MUTED),
        rx.text(value, size="2"),
        spacing="1",
        align="center",
    )


def count_badge(label: str, value: rx.Var, testid: str) -> rx.Component:
    return rx.badge(label, ": ", value.to(str), variant="surface", color_scheme="gray", data_testid=testid)


def event_card(card: rx.Var) -> rx.Component:
    event_id = card["id"].to(int)
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(card["title"], as_="h3", size="4"),
                rx.cond(card["featured"], rx.badge("Featured", color_scheme="amber")),
                rx.cond(card["active"], rx.fragment(), rx.badge("Inactive", color_scheme="gray", variant="solid")),
                spacing="2",
                align="center",
                wrap="wrap",
            ),
            rx.text(card["description"], size="2", color=styles.MUTED, style={"line_clamp": "3"}),
            rx.grid(
                fact("calendar", "Start", card["start"]),
                fact("map-pin", "Location", card["location"]),
                fact("users", "Capacity", card["capacity"]),
                fact("tag", "Price", card["price"]),
                fact("clipboard-list", "Registrations", card["registrations"].to(str)),
                columns=rx.breakpoints(initial="1", sm="2"),
                spacing="1",
                width="100%",
            ),
            rx.hstack(
                count_badge("Images", card["images"], "image-count"),
                count_badge("Videos", card["videos"], "video-count"),
                count_badge("Links", card["links"], "link-count"),
                spacing="2",
                wrap="wrap",
            ),
            rx.hstack(
                rx.button(
                    rx.icon("pencil", size=14), "Edit", variant="outline", size="2", on_click=S.open_edit(event_id)
                ),
                rx.button(
                    rx.icon("trash-2", size=14),
                    "Delete",
                    variant="outline",
                    color_scheme="red",
                    size="2",
                    on_click=S.ask_delete(event_id, card["title"].to(str)),
                ),
                spacing="2",
            ),
            spacing="3",
            align="start",
            width="100%",
        ),
        width="100%",
        opacity=rx.cond(card["active"], "1", "0.6"),
        data_testid="event-card",
        data_active=rx.cond(card["active"], "true", "false"),
    )


# --------------------------------------------------------------------------- the dialog


def field(label: str, control: rx.Component, name: str) -> rx.Component:
    """A labelled control with the service's message for it underneath."""
    return rx.box(
        rx.el.label(
            rx.text(label, size="1", weight="medium", color=styles.MUTED),
            control,
            style={"display": "grid", "gap": "0.25rem", "width": "100%"},
        ),
        error_text(name),
        width="100%",
    )


def text_input(name: str, value: rx.Var, **props) -> rx.Component:
    return rx.input(value=value, on_change=S.set_field(name), debounce_timeout=250, width="100%", **props)


def error_text(name: str) -> rx.Component:
    return rx.cond(
        S.errors.contains(name),
        rx.text(S.errors[name], size="1", color=rx.color("red", 11), role="alert", data_testid=f"error-{name}"),
    )


def video_row(url: rx.Var, index: rx.Var) -> rx.Component:
    return rx.hstack(
        rx.input(
            value=url,
            on_change=lambda value: S.set_video(index, value),
            debounce_timeout=250,
            placeholder="https://www.youtube.com/watch?v=...",
            aria_label="Video URL " + (index + 1).to(str),
            width="100%",
        ),
        rx.icon_button(
            rx.icon("x", size=14),
            on_click=S.remove_video(index),
            disabled=S.videos.length() <= 1,
            variant="soft",
            color_scheme="gray",
            type="button",
            aria_label="Remove video " + (index + 1).to(str),
        ),
        width="100%",
        spacing="2",
    )


def link_row(link: rx.Var, index: rx.Var) -> rx.Component:
    return rx.hstack(
        rx.input(
            value=link["title"].to(str),
            on_change=lambda value: S.set_link(index, "title", value),
            debounce_timeout=250,
            placeholder="Title",
            aria_label="Link title " + (index + 1).to(str),
            width="40%",
        ),
        rx.input(
            value=link["url"].to(str),
            on_change=lambda value: S.set_link(index, "url", value),
            debounce_timeout=250,
            placeholder="https://...",
            aria_label="Link URL " + (index + 1).to(str),
            width="60%",
        ),
        rx.icon_button(
            rx.icon("x", size=14),
            on_click=S.remove_link(index),
            disabled=S.links.length() <= 1,
            variant="soft",
            color_scheme="gray",
            type="button",
            aria_label="Remove link " + (index + 1).to(str),
        ),
        width="100%",
        spacing="2",
    )


def list_section(title: str, rows: rx.Component, add_label: str, on_add, name: str) -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.text(title, size="2", weight="medium"),
            rx.button(rx.icon("plus", size=14), add_label, on_click=on_add, size="1", variant="soft", type="button"),
            justify="between",
            align="center",
            width="100%",
        ),
        rows,
        error_text(name),
        spacing="2",
        width="100%",
    )


def switch(label: str, checked: rx.Var, name: str) -> rx.Component:
    return rx.el.label(
        rx.hstack(
            rx.switch(checked=checked, on_change=S.set_flag(name), aria_label=label),
            rx.text(label, size="2"),
            spacing="2",
            align="center",
        ),
    )


def event_form() -> rx.Component:
    return rx.vstack(
        field("Title", text_input("title", S.title), "title"),
        field("Location", text_input("location", S.location), "location"),
        field(
            "Description",
            rx.text_area(
                value=S.description, on_change=S.set_field("description"), debounce_timeout=250, rows="4", width="100%"
            ),
            "description",
        ),
        rx.grid(
            field("Start date and time", text_input("startDate", S.start_date, type="datetime-local"), "startDate"),
            field("End date and time", text_input("endDate", S.end_date, type="datetime-local"), "endDate"),
            field("Capacity", text_input("capacity", S.capacity, type="number", min="1", step="1"), "capacity"),
            field("Price", text_input("price", S.price, type="number", min="0", step="0.01"), "price"),
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="3",
            width="100%",
        ),
        rx.hstack(switch("Active", S.is_active, "isActive"), switch("Featured", S.featured, "featured"), spacing="5"),
        rx.vstack(
            rx.text("Images", size="2", weight="medium"),
            image_uploader(
                upload_id=UPLOAD_ID,
                images=S.images,
                on_upload=S.upload_images,
                on_reject=S.reject_images,
                on_remove=S.remove_image,
                uploading=S.uploading,
                max_files=MAX_IMAGES,
                error=rx.cond(S.errors.contains("images"), S.errors["images"].to(str), ""),
            ),
            spacing="2",
            width="100%",
        ),
        list_section(
            "Videos",
            rx.vstack(rx.foreach(S.videos, video_row), spacing="2", width="100%"),
            "Add Video",
            S.add_video,
            "videos",
        ),
        list_section(
            "Links",
            rx.vstack(rx.foreach(S.links, link_row), spacing="2", width="100%"),
            "Add Link",
            S.add_link,
            "links",
        ),
        spacing="4",
        width="100%",
    )


def event_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(S.dialog_title),
            rx.dialog.description(
                "Title, location, description and start are required.",
                size="2",
                color=styles.MUTED,
                margin_bottom="1rem",
            ),
            rx.cond(
                S.form_loading,
                rx.center(rx.spinner(size="3"), padding="3rem"),
                event_form(),
            ),
            rx.hstack(
                rx.button("Cancel", variant="soft", color_scheme="gray", on_click=S.cancel, type="button"),
                rx.button(
                    "Save",
                    on_click=S.save,
                    loading=S.saving,
                    disabled=S.saving | S.uploading | S.form_loading,
                    type="button",
                ),
                justify="end",
                spacing="3",
                margin_top="1.5rem",
            ),
            max_width="720px",
        ),
        open=S.dialog_open,
        on_open_change=S.set_dialog_open,
    )


def delete_confirmation() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Delete Event"),
            rx.alert_dialog.description(DELETE_CONFIRMATION),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray")),
                rx.button("Delete", color_scheme="red", on_click=S.confirm_delete, loading=S.deleting),
                justify="end",
                spacing="3",
                margin_top="1rem",
            ),
        ),
        open=S.confirm_open,
        on_open_change=S.set_confirm_open,
    )


# --------------------------------------------------------------------------- the tab


def events_tab() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.vstack(
                rx.heading("Events", as_="h2", size="5"),
                rx.text(S.total.to(str), " events (active and inactive)", size="2", color=styles.MUTED),
                spacing="1",
            ),
            rx.button(rx.icon("plus", size=16), "Create Event", on_click=S.open_create),
            justify="between",
            align="center",
            width="100%",
        ),
        rx.cond(
            S.loaded & (S.rows.length() == 0),
            rx.callout(
                "No events yet. Create the first one with Create Event.",
                icon="calendar",
                color_scheme="gray",
                width="100%",
            ),
        ),
        rx.cond(
            ~S.loaded & S.loading,
            rx.center(rx.spinner(size="3"), padding="2rem", width="100%"),
        ),
        rx.grid(
            rx.foreach(S.rows, event_card),
            columns=rx.breakpoints(initial="1", md="2"),
            spacing="4",
            width="100%",
        ),
        rx.cond(S.has_more, rx.button("Load More", variant="outline", on_click=S.load_more, loading=S.loading_more)),
        event_dialog(),
        delete_confirmation(),
        spacing="4",
        width="100%",
        on_mount=S.load,
    )
