"""/try-it-on: upload a photo, pick one of the Available Items, Try It On; the result replaces the photo.

Upload Photo comes first below the title, above the photo frame (a drop zone too): the frame is
tall, and a button below it was out of view at 1280x900 and on phones until the shopper scrolled."""

import reflex as rx

from storefront.components import styles
from storefront.components.image_files import ACCEPTED_TYPES, MAX_FILE_BYTES, rejected_codes
from storefront.components.layout import PAGE_DESCRIPTIONS, PAGE_TITLES, public_page
from storefront.components.page_title import centred_title
from storefront.components.product_card import product_image
from storefront.state.tryon import ITEMS_FAILED, ROUTE, UPLOAD_ID, TryOnState

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
        width="100%",
        aspect_ratio="3 / 4",
        border=f"1px solid {rx.color('gray', 6)}",
        border_radius="12px",
        overflow="hidden",
        background=rx.color("gray", 2),
    )


def photo_picker() -> rx.Component:
    """Upload Photo above the photo frame, the two one drop zone (a click or a drop on either picks the photo)."""
    return rx.upload.root(
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
    )


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


def item_card(item: rx.Var) -> rx.Component:
    selected = TryOnState.selected_id == item["id"]
    return rx.el.button(
        rx.box(
            product_image(item["image_url"].to(str), item["name"].to(str), height="72px"),
            width="72px",
            border_radius="8px",
            overflow="hidden",
            flex_shrink="0",
        ),
        rx.text(item["name"], weight="medium", size="2", text_align="left"),
        rx.cond(selected, rx.icon("circle-check", size=18, color=rx.color("accent", 9), margin_left="auto")),
        on_click=TryOnState.select_item(item["id"]),
        type="button",
        aria_pressed=rx.cond(selected, "true", "false"),
        display="flex",
        align_items="center",
        gap="0.75rem",
        width="100%",
        padding="0.5rem",
        border=rx.cond(selected, f"2px solid {rx.color('accent', 9)}", f"2px solid {rx.color('gray', 5)}"),
        border_radius="10px",
        background=rx.cond(selected, rx.color("accent", 2), "transparent"),
        cursor="pointer",
        data_testid="tryon-item",
    )


def items_panel() -> rx.Component:
    return rx.vstack(
        rx.heading("Available Items", as_="h2", size="5"),
        rx.cond(
            TryOnState.items_loading,
            rx.vstack(
                *[rx.skeleton(height="88px", width="100%", border_radius="10px") for _ in range(3)],
                width="100%",
            ),
            rx.cond(
                TryOnState.items_failed,
                rx.callout(ITEMS_FAILED, icon="triangle-alert", color_scheme="red", width="100%"),
                rx.cond(
                    TryOnState.items.length() > 0,
                    rx.vstack(rx.foreach(TryOnState.items, item_card), spacing="2", width="100%"),
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
