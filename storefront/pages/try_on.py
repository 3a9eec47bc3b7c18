"""/try-it-on: upload a photo, pick one of the Available Items, Try It On; the result replaces the photo.

Upload Photo comes first below the title, above the photo frame (a drop zone too): the frame is
tall, and a button below it was out of view at 1280x900 and on phones until the shopper scrolled."""

from dataclasses import replace

import reflex as rx

from storefront.components import styles
from storefront.components.image_files import ACCEPTED_TYPES, MAX_FILE_BYTES, rejected_codes
from storefront.components.layout import PAGE_DESCRIPTIONS, PAGE_TITLES, public_page
from storefront.components.markup import Element, Node, Raw, Slot, Value, pick, to_component, to_html
from storefront.components.page_title import centred_title
from storefront.components.product_card import _IMAGE_FALLBACK, first_view_island, or_placeholder
from storefront.state.tryon import ITEMS_FAILED, PREVIEW_ID, ROUTE, UPLOAD_ID, TryOnState
from storefront.web.html_first import REPLAY_ATTRIBUTE

TITLE = PAGE_TITLES[ROUTE]
DESCRIPTION = PAGE_DESCRIPTIONS[ROUTE]
SUBTITLE = "Upload a waist-up photo facing the camera, pick an item and see how it looks on you."
PHOTO_HINT = (
    "A waist-up photo, facing the camera, with both shoulders in view. JPEG, PNG, GIF, WebP or HEIC up to 10MB."
)
PRIVACY_NOTE = "Your photo is only used for this preview: it is not saved on our servers."
EMPTY_PREVIEW = "Your photo will appear here"
DROP_HINT = "Drop a photo here or click to choose one."
ITEMS_EMPTY = "No items can be tried on right now."


def upload_button() -> rx.Component:
    """Solid until there is a photo (the first thing to do), then outline beside Try It On."""
    return rx.button(
        rx.icon("upload", size=16),
        rx.cond(TryOnState.uploading, "Uploading...", "Upload Photo"),
        type="button",
        size="3",
        variant=rx.cond(TryOnState.photo_url == "", "solid", "outline"),
        loading=TryOnState.uploading,
        width="100%",
    )


def preview() -> rx.Component:
    """The result when there is one, else the photo, else an empty frame inviting a photo."""
    return rx.box(
        rx.cond(
            TryOnState.preview_url != "",
            rx.image(
                src=TryOnState.preview_url,
                alt=rx.cond(TryOnState.result_url != "", "You wearing the chosen item", "Your photo"),
                width="100%",
                height="100%",
                object_fit="contain",
                data_testid=rx.cond(TryOnState.result_url != "", "tryon-result", "tryon-photo"),
            ),
            rx.vstack(
                rx.icon("user-round", size=48, color=styles.MUTED),
                rx.text(EMPTY_PREVIEW, color=styles.MUTED, size="2"),
                rx.text(DROP_HINT, color=styles.MUTED, size="1"),
                align="center",
                justify="center",
                height="100%",
                spacing="2",
                cursor="pointer",
            ),
        ),
        rx.cond(
            TryOnState.processing,
            rx.center(
                rx.spinner(size="3"),
                position="absolute",
                inset="0",
                background="rgba(255, 255, 255, 0.55)",
            ),
        ),
        position="relative",
        id=PREVIEW_ID,
        # Scrolled to below the sticky header, not under it.
        scroll_margin_top=styles.HEADER_HEIGHT,
        width="100%",
        aspect_ratio="3 / 4",
        border=f"1px solid {rx.color('gray', 6)}",
        border_radius="12px",
        overflow="hidden",
        background=rx.color("gray", 2),
    )


#: The name of the file input for assistive technology (it has no visible label of its own).
FILE_INPUT_LABEL = "Choose a photo"


def _label_file_input(upload: rx.Component, label: str) -> rx.Component:
    """rx.upload draws its file input itself, unnamed (Lighthouse: 'Form elements do not have
    associated labels'): give it an accessible name."""
    zone = upload.children[0]
    for child in zone.children:
        if str(getattr(child, "type", "")) == '"file"':
            child.custom_attrs["aria-label"] = label
            return upload
    raise ValueError("rx.upload no longer draws a file input in its drop zone")


def photo_picker() -> rx.Component:
    """Upload Photo above the photo frame, the two one drop zone (a click or a drop on either picks the photo)."""
    return _label_file_input(rx.upload.root(
        rx.vstack(upload_button(), preview(), spacing="3", width="100%"),
        id=UPLOAD_ID,
        accept=ACCEPTED_TYPES,
        multiple=False,
        max_files=1,
        max_size=MAX_FILE_BYTES,
        disabled=TryOnState.processing | TryOnState.uploading,
        on_drop=[TryOnState.photo_chosen, TryOnState.upload_photo(rx.upload_files(upload_id=UPLOAD_ID))],
        on_drop_rejected=lambda rejected: TryOnState.reject_photo(rejected_codes(rejected)),
        no_drag=False,
        drag_active_style={"outline": f"2px dashed {rx.color('accent', 9)}", "outline_offset": "4px"},
        border_radius="12px",
        width="100%",
        data_testid="upload-photo",
    ), FILE_INPUT_LABEL)


def photo_panel() -> rx.Component:
    return rx.vstack(
        photo_picker(),
        rx.cond(
            TryOnState.result_url != "",
            rx.el.a(
                rx.button(rx.icon("download", size=16), "Download", type="button", size="3", width="100%"),
                href=TryOnState.result_url,
                download=TryOnState.result_file_name,
                width="100%",
                data_testid="download-result",
            ),
        ),
        rx.text(PHOTO_HINT, size="1", color=styles.MUTED),
        rx.text(PRIVACY_NOTE, size="1", color=styles.MUTED),
        spacing="3",
        width="100%",
    )


#: lucide's "circle-check" at 18 px, as lucide-react draws it with the store's class.
CHECK_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="18" height="18" viewBox="0 0 24 24" fill="none" '
    'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" '
    'class="lucide lucide-circle-check sf-tryon-check" aria-hidden="true"><circle cx="12" cy="12" r="10"></circle>'
    '<path d="m9 12 2 2 4-4"></path></svg>'
)
#: The list of items (a column of full-width buttons).
ITEMS_CLASSES = "rt-Flex rt-r-fd-column rt-r-ai-start rt-r-gap-2 rx-Stack sf-grid"
#: The `data-first-view` of the items (storefront/web/first_view.py fills it).
ITEMS_VIEW = "tryon-items"


def item_key(item_id: Value) -> Value:
    """The `data-replay` key of an item: a tap before the app is ready chooses it once it is."""
    return "tryon-item:" + item_id


def item_markup(item_id: Value, name: Value, image: Value, selected: rx.Var | bool) -> Element:
    """An item to try on: its picture, its name and, when chosen, a check (styles follow `aria-pressed`)."""
    check: Node = (
        Slot(rx.cond(selected, rx.icon("circle-check", size=18, class_name="sf-tryon-check", aria_hidden="true")), "")
        if isinstance(selected, rx.Var) else (Raw(CHECK_ICON) if selected else "")
    )
    # The name is the button's text beside it: the picture itself is decorative (alt="").
    picture = Element(
        "img",
        attrs={"src": or_placeholder(image), "alt": "", "decoding": "async", "width": 72, "height": 72},
        react_attrs={"onError": _IMAGE_FALLBACK},
    )
    return Element("button", "sf-tryon-item", {
        "type": "button", "aria-pressed": pick(selected, "true", "false"), "data-testid": "tryon-item",
        REPLAY_ATTRIBUTE: item_key(item_id),
    }, (
        Element("div", "rt-Box sf-tryon-thumb", children=(picture,)),
        Element("p", "rt-Text rt-r-size-2 rt-r-weight-medium sf-tryon-name", children=(name,)),
        check,
    ))


def item_card(item: rx.Var) -> rx.Component:
    item_id = item["id"].to(str)
    markup = item_markup(item_id, item["name"].to(str), item["image_url"].to(str), TryOnState.selected_id == item_id)
    return to_component(replace(markup, react_props={"on_click": TryOnState.select_item(item_id)}))


def items_html(views: list[dict], chosen: str) -> str:
    """The items as the server writes them into the first view, `chosen` (`?item=`) chosen."""
    return "".join(to_html(item_markup(v["id"], v["name"], v["image_url"], v["id"] == chosen)) for v in views)


def items_panel() -> rx.Component:
    return rx.vstack(
        rx.heading("Available Items", as_="h2", size="5"),
        rx.cond(
            TryOnState.items_loading,
            rx.fragment(
                first_view_island(ITEMS_VIEW, ITEMS_CLASSES),
                rx.el.div(
                    *[rx.skeleton(height="88px", width="100%", border_radius="10px") for _ in range(3)],
                    class_name=ITEMS_CLASSES,
                    custom_attrs={"data-first-view-fallback": ""},
                ),
            ),
            rx.cond(
                TryOnState.items_failed,
                rx.callout(ITEMS_FAILED, icon="triangle-alert", color_scheme="red", width="100%"),
                rx.cond(
                    TryOnState.items.length() > 0,
                    rx.el.div(rx.foreach(TryOnState.items, item_card), class_name=ITEMS_CLASSES),
                    rx.text(ITEMS_EMPTY, color=styles.MUTED),
                ),
            ),
        ),
        rx.button(
            rx.cond(TryOnState.processing, "Processing...", "Try It On"),
            on_click=TryOnState.try_on,
            disabled=~TryOnState.can_try_on,
            size="3",
            width="100%",
            data_testid="try-it-on",
        ),
        rx.cond(
            TryOnState.error != "",
            rx.callout(
                TryOnState.error,
                icon="circle-alert",
                color_scheme="red",
                role="alert",
                width="100%",
                data_testid="tryon-error",
            ),
        ),
        spacing="3",
        width="100%",
    )


@public_page(route=ROUTE, title=TITLE, on_load=TryOnState.load, description=DESCRIPTION)
def try_it_on() -> rx.Component:
    return rx.vstack(
        centred_title(TITLE, SUBTITLE),
        rx.grid(
            photo_panel(),
            items_panel(),
            columns=rx.breakpoints(initial="1", md="2"),
            gap="2rem",
            width="100%",
            align_items="start",
        ),
        spacing="6",
        padding_y="2.5rem",
        style=styles.content_box,
        on_unmount=TryOnState.forget_photo,
    )
