"""Event cards, their skeletons, and the event detail dialog of the Tours & Events page."""

from dataclasses import dataclass

import reflex as rx

from storefront.components import styles
from storefront.components.markup import Element, Node, Raw, Slot, Value, pick, to_component, to_html
from storefront.services.events.cards import FEATURED, EventLinkItem, EventVideo
from storefront.state.events import EventsState
from storefront.web.html_first import REPLAY_ATTRIBUTE

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
_MARK_FAILED = rx.Var(
    _js_expr="(e) => { const f = e.target.closest('[data-event-image]'); if (f) f.dataset.failed = '1'; }"
)
_CLEAR_FAILED = rx.Var(
    _js_expr="(e) => { const f = e.target.closest('[data-event-image]'); if (f) delete f.dataset.failed; }"
)

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
                    {
                        "display": "block",
                        "margin": "0 auto",
                        "max_width": "100%",
                        "max_height": "80vh",
                        "height": "auto",
                    }
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


#: lucide's icons as lucide-react draws them with the store's muted colour class (`sf-muted`).
_LUCIDE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 24 24" fill="none" '
    'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" '
    'class="lucide lucide-{name} sf-muted" aria-hidden="true">{paths}</svg>'
)
_ICON_PATHS = {
    "calendar": '<path d="M8 2v4"></path><path d="M16 2v4"></path><rect width="18" height="18" x="3" y="4" rx="2">'
                '</rect><path d="M3 10h18"></path>',
    "map-pin": '<path d="M20 10c0 4.993-5.539 10.193-7.399 11.799a1 1 0 0 1-1.202 0C9.539 20.193 4 14.993 4 10a8 8 0 '
               '0 1 16 0"></path><circle cx="12" cy="10" r="3"></circle>',
    "image-off": '<line x1="2" x2="22" y1="2" y2="22"></line><path d="M10.41 10.41a2 2 0 1 1-2.83-2.83"></path>'
                 '<line x1="13.5" x2="6" y1="13.5" y2="21"></line><line x1="18" x2="21" y1="12" y2="15"></line>'
                 '<path d="M3.59 3.59A1.99 1.99 0 0 0 3 5v14a2 2 0 0 0 2 2h14c.55 0 1.052-.22 1.41-.59"></path>'
                 '<path d="M21 15V5a2 2 0 0 0-2-2H9"></path>',
}


def _icon(name: str, size: int) -> Raw:
    """A muted lucide icon: the server writes its SVG, React draws lucide-react's (the same SVG)."""
    markup = _LUCIDE.format(size=size, name=name, paths=_ICON_PATHS[name])
    return Raw(markup, rx.icon(name, size=size, class_name="sf-muted", aria_hidden="true"))


#: A card's classes: Radix Themes' own (what rx.card, rx.inset, rx.heading, rx.hstack and rx.button
#: render) and the store's from assets/styles.css (components/markup.py).
CARD_CLASSES = "rt-reset rt-BaseCard rt-Card rt-r-size-2 rt-variant-surface sf-event-card"
INSET_CLASSES = "rt-Inset rt-r-side-top rt-r-clip-border-box rt-r-pb-inset"
ROW_CLASSES = "rt-Flex rt-r-fd-row rt-r-ai-center rt-r-gap-2 rx-Stack"
BUTTON_CLASSES = "rt-reset rt-BaseButton rt-r-size-2 rt-variant-outline rt-Button"
MORE_CLASSES = "rt-reset rt-BaseButton rt-r-size-3 rt-variant-outline rt-Button"
#: Three columns on large screens, two on tablets, one on phones.
GRID_CLASSES = "rt-Grid rt-r-gtc-1 sm:rt-r-gtc-2 lg:rt-r-gtc-3 rt-r-gap-5 sf-grid"
SECTION_CLASSES = "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-4 rx-Stack sf-grid"
#: The featured and the upcoming sections, one above the other.
SECTIONS_CLASSES = "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-8 rx-Stack sf-grid"


@dataclass(frozen=True)
class EventCardFields:
    """What an event card shows: Vars when React draws it, plain values when the server writes it."""

    title: Value
    date: Value
    location: Value
    price: Value
    image: Value
    srcset: Value
    width: Value
    height: Value
    eager: rx.Var | bool
    #: The `data-replay` key of the card: a tap before the app is ready opens the same card's details.
    key: Value


def _no_image(image: Value) -> rx.Var | bool:
    return image == ""


def _positive(value: Value) -> Value | None:
    """A width or height attribute, left out when the size is unknown (0)."""
    return rx.cond(value > 0, value, None) if isinstance(value, rx.Var) else (value or None)


def _price(price: Value) -> Node:
    """The price, or nothing for an event without one."""
    shown = Element("p", "rt-Text rt-r-size-3 rt-r-weight-bold", {"data-testid": "event-price"}, (price,))
    if isinstance(price, rx.Var):
        return Slot(rx.cond(price != "", to_component(shown)), "")
    return shown if price else ""


def event_card_markup(card: EventCardFields, open_event: object = None) -> Element:
    """A card: first image (or the image-not-available box), title, date, location, price and View
    details. The whole card opens the dialog (`open_event`, React's only); its button is the
    keyboard's way in (its click reaches the card's handler)."""
    no_image = _no_image(card.image)
    image = Element("img", attrs={
        "src": pick(no_image, None, card.image), "srcset": pick(no_image, None, card.srcset),
        "sizes": EVENT_CARD_SIZES, "alt": card.title, "loading": pick(card.eager, "eager", "lazy"),
        "fetchpriority": pick(card.eager, "high", "auto"), "decoding": "async",
        "width": _positive(card.width), "height": _positive(card.height),
    }, react_attrs={"onError": _MARK_FAILED, "onLoad": _CLEAR_FAILED})
    fallback = Element("div", "rt-Flex sf-event-fallback", {"data-fallback": "", "data-testid": "image-fallback"}, (
        Element("div", "rt-Flex rt-r-fd-column rt-r-ai-center rt-r-gap-2 rx-Stack", children=(
            _icon("image-off", 32), Element("p", "rt-Text rt-r-size-2 sf-muted", children=(IMAGE_NOT_AVAILABLE,)),
        )),
    ))
    replay = {REPLAY_ATTRIBUTE: card.key}
    return Element("div", CARD_CLASSES, {"data-testid": "event-card", **replay}, (
        Element("div", INSET_CLASSES, children=(
            Element("div", "rt-Box sf-event-image", {"data-event-image": "", "data-failed": pick(no_image, "1", None)},
                    (image, fallback)),
        )),
        Element("div", "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-2 rx-Stack sf-event-body", children=(
            Element("h3", "rt-Heading rt-r-size-4", {"data-testid": "event-title"}, (card.title,)),
            Element("div", ROW_CLASSES, children=(
                _icon("calendar", 16), Element("p", "rt-Text rt-r-size-2", {"data-testid": "event-date"}, (card.date,)),
            )),
            Element("div", ROW_CLASSES, children=(
                _icon("map-pin", 16),
                Element("p", "rt-Text rt-r-size-2 sf-muted", {"data-testid": "event-location"}, (card.location,)),
            )),
            _price(card.price),
            Element("button", BUTTON_CLASSES, {"data-accent-color": "", "type": "button", **replay}, ("View details",)),
        )),
    ), react_props={"on_click": open_event} if open_event is not None else {})


def event_key(section: str, index: Value) -> Value:
    """The `data-replay` key of a section's card at `index` (storefront/web/html_first.py)."""
    return f"event:{section}:" + (index.to(str) if isinstance(index, rx.Var) else str(index))


def event_card(card: rx.Var, index: rx.Var, section: str) -> rx.Component:
    """An event card as React draws it."""
    if section == FEATURED:
        eager = index < EAGER_EVENT_CARDS
    else:  # upcoming cards are in the first row only when no featured event is above them
        eager = (index < EAGER_EVENT_CARDS) & (EventsState.featured.length() == 0)
    fields = EventCardFields(
        title=card["title"].to(str), date=card["date"].to(str), location=card["location"].to(str),
        price=card["price"].to(str), image=card["image"].to(str), srcset=card["srcset"].to(str),
        width=card["image_width"].to(int), height=card["image_height"].to(int), eager=eager,
        key=event_key(section, index),
    )
    return to_component(event_card_markup(fields, EventsState.open_event(section, index)))  # type: ignore[return-value]


def event_card_html(card: dict, index: int, section: str, featured_above: bool) -> str:
    """An event card as the server writes it (`card` as storefront.services.events.cards.EventCard)."""
    eager = index < EAGER_EVENT_CARDS and (section == FEATURED or not featured_above)
    fields = EventCardFields(
        title=card["title"], date=card["date"], location=card["location"], price=card["price"], image=card["image"],
        srcset=card["srcset"], width=card["image_width"], height=card["image_height"], eager=eager,
        key=event_key(section, index),
    )
    return to_html(event_card_markup(fields))


def section_markup(heading: str, key: str, cards: Node, more: Node | None) -> Element:
    """One list of events with its heading, and Load More while there are more."""
    return Element("section", attrs={"aria-label": heading, "data-testid": f"{key}-events"}, children=(
        Element("div", SECTION_CLASSES, children=(
            Element("h2", "rt-Heading rt-r-size-6", children=(heading,)),
            Element("div", GRID_CLASSES, children=(cards,)),
            *([more] if more is not None else []),
        )),
    ))


def more_key(section: str) -> str:
    """The `data-replay` key of a section's Load More."""
    return f"more:{section}"


def load_more_markup(section: str) -> Element:
    """Load More as the server writes it: a tap before the app is ready is replayed on React's."""
    return Element(
        "div",
        "rt-Flex sf-load-more",
        children=(
            Element(
                "button",
                MORE_CLASSES,
                {"data-accent-color": "", "type": "button", REPLAY_ATTRIBUTE: more_key(section)},
                ("Load More",),
            ),
        ),
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
