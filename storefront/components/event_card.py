"""Event cards, their skeletons, and the event detail dialog of the Tours & Events page."""

import reflex as rx

from storefront.components import styles
from storefront.state.events import FEATURED, EventLinkItem, EventsState, EventVideo

IMAGE_NOT_AVAILABLE = "Image not available"
#: The width a card's image is drawn at: three columns on large screens, two on tablets, one on phones.
EVENT_CARD_SIZES = "(min-width: 1024px) 380px, (min-width: 640px) 50vw, 100vw"
#: The dialog's image (the dialog is at most 640 px wide) and the enlarged view (the whole window).
DIALOG_SIZES = "(min-width: 700px) 600px, 100vw"
ENLARGED_SIZES = "100vw"
#: Cards in the first row load at once, with high priority; the rest lazily.
EAGER_EVENT_CARDS = 3
IMAGE_HEIGHT = "220px"

# An image that fails to load marks its frame, whose style then hides it and shows the fallback
# (no round trip to the server); a later successful load (another address) clears the mark.
_MARK_FAILED = rx.Var(_js_expr="(e) => { const f = e.target.closest('[data-event-image]'); if (f) f.dataset.failed = '1'; }")
_CLEAR_FAILED = rx.Var(_js_expr="(e) => { const f = e.target.closest('[data-event-image]'); if (f) delete f.dataset.failed; }")

_image_frame_style = {
    "position": "relative",
    "overflow": "hidden",
    "background": styles.SURFACE,
    "& [data-fallback]": {"display": "none"},
    "&[data-failed] img": {"display": "none"},
    "&[data-failed] [data-fallback]": {"display": "flex"},
}


def image_fallback(height: str, shown: bool = False) -> rx.Component:
    """The box shown instead of an image that failed to load (or an event without one)."""
    return rx.center(
        rx.vstack(
            rx.icon("image-off", size=32, color=styles.MUTED, aria_hidden="true"),
            rx.text(IMAGE_NOT_AVAILABLE, color=styles.MUTED, size="2"),
            align="center",
            spacing="2",
        ),
        height=height,
        width="100%",
        background=styles.SURFACE,
        data_fallback="",
        data_testid="image-fallback",
        # An event without an image shows the box at once; otherwise it waits for a failure.
        style={"display": "flex"} if shown else {},
    )


def _size_attr(value: rx.Var) -> rx.Var:
    """A width or height attribute, left out when the size is unknown (0)."""
    return rx.cond(value > 0, value, None)


def event_image(
    card: rx.Var,
    *,
    height: str,
    sizes: str,
    eager: rx.Var | bool,
    full_size: bool = False,
) -> rx.Component:
    """The event's first image from its renditions, or the fallback box when it has none or fails.
    `full_size` draws it whole, at most its own size and the window's (the enlarged view)."""
    if isinstance(eager, rx.Var):
        loading: rx.Var | str = rx.cond(eager, "eager", "lazy")
        priority: rx.Var | str = rx.cond(eager, "high", "auto")
    else:
        loading, priority = ("eager", "high") if eager else ("lazy", "auto")
    image = card["image"].to(str)
    return rx.cond(
        image == "",
        image_fallback(height, shown=True),
        rx.box(
            rx.el.img(
                src=image,
                src_set=card["srcset"].to(str),
                sizes=sizes,
                alt=card["title"].to(str),
                loading=loading,
                decoding="async",
                custom_attrs={
                    "onError": _MARK_FAILED,
                    "onLoad": _CLEAR_FAILED,
                    "fetchPriority": priority,
                    "width": _size_attr(card["image_width"].to(int)),
                    "height": _size_attr(card["image_height"].to(int)),
                },
                style=(
                    {"display": "block", "margin": "0 auto", "max_width": "100%", "max_height": "80vh", "height": "auto"}
                    if full_size
                    else {"display": "block", "width": "100%", "height": height, "object_fit": "cover"}
                ),
            ),
            image_fallback(height),
            data_event_image="",
            style=_image_frame_style,
            width="100%",
        ),
    )


def event_card(card: rx.Var, index: rx.Var, section: str) -> rx.Component:
    """A card: first image, title, date, location, price and View details. The whole card opens the
    dialog; its button is the keyboard's way in (its click reaches the card's handler)."""
    if section == FEATURED:
        eager = index < EAGER_EVENT_CARDS
    else:  # upcoming cards are in the first row only when no featured event is above them
        eager = (index < EAGER_EVENT_CARDS) & (EventsState.featured.length() == 0)
    price = card["price"].to(str)
    return rx.card(
        rx.inset(
            event_image(card, height=IMAGE_HEIGHT, sizes=EVENT_CARD_SIZES, eager=eager),
            side="top",
            pb="current",
        ),
        rx.vstack(
            rx.heading(card["title"].to(str), as_="h3", size="4", data_testid="event-title"),
            rx.hstack(
                rx.icon("calendar", size=16, color=styles.MUTED, aria_hidden="true"),
                rx.text(card["date"].to(str), size="2", data_testid="event-date"),
                spacing="2",
                align="center",
            ),
            rx.hstack(
                rx.icon("map-pin", size=16, color=styles.MUTED, aria_hidden="true"),
                rx.text(card["location"].to(str), size="2", color=styles.MUTED, data_testid="event-location"),
                spacing="2",
                align="center",
            ),
            rx.cond(price != "", rx.text(price, weight="bold", size="3", data_testid="event-price")),
            rx.button("View details", variant="outline", width="100%"),
            spacing="2",
            padding_top="0.75rem",
        ),
        on_click=EventsState.open_event(section, index),
        cursor="pointer",
        data_testid="event-card",
        size="2",
    )


def skeleton_event_card() -> rx.Component:
    return rx.card(
        rx.skeleton(rx.box(height=IMAGE_HEIGHT)),
        rx.vstack(
            rx.skeleton(rx.text("Loading event title")),
            rx.skeleton(rx.text("Loading event date")),
            rx.skeleton(rx.text("Loading event location")),
            rx.skeleton(rx.box(height="2rem", width="100%")),
            spacing="2",
            padding_top="0.75rem",
        ),
        data_testid="event-skeleton",
        aria_hidden="true",
    )


def event_grid(*children: rx.Component, **props) -> rx.Component:
    """Three columns on large screens, two on tablets, one on phones."""
    return rx.grid(*children, columns=rx.breakpoints(initial="1", sm="2", lg="3"), spacing="5", width="100%", **props)


# --------------------------------------------------------------------------- the detail dialog


def _detail(icon: str, label: str, value: rx.Var, testid: str) -> rx.Component:
    return rx.hstack(
        rx.icon(icon, size=18, color=styles.MUTED, aria_hidden="true", flex_shrink="0"),
        rx.text(rx.text.strong(f"{label}: "), value, size="2", data_testid=testid),
        spacing="2",
        align="start",
    )


def _video(video: rx.Var, index: rx.Var) -> rx.Component:
    """A video: a play button until clicked, then its player (an iframe for YouTube or Vimeo pages,
    else the browser's own player), playing at once."""
    url, embed = video["url"].to(str), video["embed"].to(str)
    label = "Play video " + (index + 1).to(str)
    return rx.cond(
        EventsState.playing == url,
        rx.cond(
            embed != "",
            rx.el.iframe(
                src=embed,
                title=EventsState.selected["title"].to(str) + " video " + (index + 1).to(str),
                allow="autoplay; encrypted-media; fullscreen; picture-in-picture",
                referrer_policy="strict-origin-when-cross-origin",
                custom_attrs={"allowFullScreen": True},
                style={"width": "100%", "aspect_ratio": "16 / 9", "border": "0", "border_radius": "8px"},
            ),
            rx.el.video(
                src=url,
                controls=True,
                auto_play=True,
                plays_inline=True,
                preload="metadata",
                style={"width": "100%", "max_height": "360px", "border_radius": "8px", "background": "black"},
            ),
        ),
        rx.button(
            rx.icon("circle-play", size=18, aria_hidden="true"),
            label,
            variant="soft",
            on_click=EventsState.play(url),
            data_testid="play-video",
        ),
    )


def _link(link: rx.Var) -> rx.Component:
    return rx.link(
        link["title"].to(str),
        rx.icon("external-link", size=14, aria_hidden="true"),
        href=link["url"].to(str),
        target="_blank",
        rel="noopener noreferrer",
        display="inline-flex",
        align_items="center",
        gap="0.35rem",
        data_testid="event-link",
    )


def _enlarged_image() -> rx.Component:
    """The first image at full size, in a dialog of its own."""
    selected = EventsState.selected
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(selected["title"].to(str), size="4", custom_attrs={"as": "h2"}),
            rx.dialog.description(selected["location"].to(str), size="2", color=styles.MUTED),
            event_image(selected, height="16rem", sizes=ENLARGED_SIZES, eager=True, full_size=True),
            rx.flex(
                rx.dialog.close(rx.button("Close", variant="soft")),
                justify="end",
                padding_top="1rem",
            ),
            max_width="min(96vw, 1280px)",
            data_testid="enlarged-image",
        ),
        open=EventsState.image_enlarged,
        on_open_change=EventsState.set_image_enlarged,
    )


def event_dialog() -> rx.Component:
    """The chosen event: first image (click to enlarge), description, dates, location, capacity,
    price, videos (click plays) and links (new tab)."""
    selected = EventsState.selected
    ends, capacity, price = selected["ends"].to(str), selected["capacity"].to(str), selected["price"].to(str)
    videos, links = selected["videos"].to(list[EventVideo]), selected["links"].to(list[EventLinkItem])
    return rx.dialog.root(
        rx.dialog.content(
            # Radix draws a dialog's title as an h1; the page already has one.
            rx.dialog.title(selected["title"].to(str), size="6", custom_attrs={"as": "h2"}),
            rx.cond(
                selected["image"].to(str) == "",
                image_fallback(IMAGE_HEIGHT, shown=True),
                rx.el.button(
                    event_image(selected, height="300px", sizes=DIALOG_SIZES, eager=True),
                    on_click=EventsState.set_image_enlarged(True),
                    aria_label="Enlarge image",
                    title="Enlarge image",
                    type="button",
                    style={
                        "display": "block",
                        "width": "100%",
                        "padding": "0",
                        "border": "0",
                        "border_radius": "8px",
                        "overflow": "hidden",
                        "cursor": "zoom-in",
                        "background": "none",
                    },
                    data_testid="enlarge-image",
                ),
            ),
            rx.vstack(
                rx.dialog.description(
                    selected["description"].to(str), style={"white_space": "pre-line"}, data_testid="event-description"
                ),
                _detail("calendar", "Starts", selected["starts"].to(str), "event-starts"),
                rx.cond(ends != "", _detail("calendar-check", "Ends", ends, "event-ends")),
                _detail("map-pin", "Location", selected["location"].to(str), "event-location"),
                rx.cond(capacity != "", _detail("users", "Capacity", capacity, "event-capacity")),
                rx.cond(price != "", _detail("ticket", "Price", price, "event-price")),
                rx.cond(
                    videos.length() > 0,
                    rx.vstack(
                        rx.heading("Videos", as_="h3", size="3"),
                        rx.foreach(videos, _video),
                        spacing="2",
                        width="100%",
                    ),
                ),
                rx.cond(
                    links.length() > 0,
                    rx.vstack(
                        rx.heading("Links", as_="h3", size="3"),
                        rx.foreach(links, _link),
                        spacing="2",
                    ),
                ),
                spacing="3",
                padding_top="1rem",
                width="100%",
            ),
            rx.flex(
                rx.dialog.close(rx.button("Close", variant="soft")),
                justify="end",
                padding_top="1rem",
            ),
            _enlarged_image(),
            max_width="640px",
            data_testid="event-dialog",
        ),
        open=EventsState.dialog_open,
        on_open_change=EventsState.set_dialog_open,
    )
