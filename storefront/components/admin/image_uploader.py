"""The photo upload widget of the back office: drag and drop or choose photos, thumbnails of the
images already on the form with a remove button, at most `max_files` images in all.

The widget is only the view: the page's state receives the files (`on_upload`, a handler taking
`files: list[rx.UploadFile]`), checks and stores them, and owns the list of image URLs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx
from reflex.event import EventHandler, EventSpec
from reflex.vars import ArrayVar, ObjectVar, Var

from storefront.components import styles
from storefront.components.image_files import ACCEPTED_TYPES, MAX_FILE_BYTES, rejected_codes, rejection_errors

HINT = "JPEG, PNG, GIF, WebP, HEIC up to 10MB each"


def _rejected_reasons(rejected: Var) -> Var:
    """'photo.bmp: File type must be ...' for each refused file."""

    def reason(record: Var) -> Var:
        file = record.to(ObjectVar, dict[str, Any])["file"].to(ObjectVar, dict[str, Any])
        messages = rejection_errors(record).map(lambda e: e.to(ObjectVar, dict[str, str])["message"]).join(", ")
        return f"{file['name']}: {messages}"

    return rejected.to(ArrayVar).map(reason)


def thumbnail(url: rx.Var, index: rx.Var, on_remove: Callable[[rx.Var], EventSpec]) -> rx.Component:
    return rx.box(
        rx.image(
            src=url,
            alt="Uploaded photo",
            width="100%",
            height="100%",
            object_fit="cover",
            loading="lazy",
            border_radius="6px",
        ),
        rx.icon_button(
            rx.icon("x", size=14),
            on_click=on_remove(index),
            size="1",
            color_scheme="red",
            radius="full",
            type="button",
            aria_label="Remove photo " + (index + 1).to(str),
            position="absolute",
            top="4px",
            right="4px",
        ),
        position="relative",
        width="96px",
        height="96px",
        data_testid="uploaded-image",
    )


def image_uploader(
    *,
    upload_id: str,
    images: rx.Var,
    on_upload: EventHandler,
    on_reject: EventHandler,
    on_remove: Callable[[rx.Var], EventSpec],
    uploading: rx.Var | bool = False,
    max_files: int = 10,
    error: rx.Var | str = "",
) -> rx.Component:
    """The widget. `on_reject(codes, reasons)` hears about files refused in the browser;
    `on_remove(index)` removes one image from the form."""
    count = images.to(list).length()
    remaining = max_files - count
    return rx.vstack(
        rx.upload.root(
            rx.vstack(
                rx.cond(
                    uploading,
                    rx.spinner(size="3"),
                    rx.icon("image-plus", size=28, color=styles.MUTED),
                ),
                rx.text(
                    rx.cond(uploading, "Uploading...", "Drag and drop photos here, or click to choose"),
                    size="2",
                    weight="medium",
                ),
                rx.text(HINT, size="1", color=styles.MUTED),
                rx.text(count.to(str), " of ", str(max_files), " images", size="1", color=styles.MUTED),
                align="center",
                spacing="1",
            ),
            id=upload_id,
            accept=ACCEPTED_TYPES,
            multiple=True,
            # react-dropzone treats 0 as "no limit": at the limit the state refuses the drop instead.
            max_files=rx.cond(remaining > 0, remaining, max_files),
            max_size=MAX_FILE_BYTES,
            disabled=uploading,
            on_drop=on_upload(rx.upload_files(upload_id=upload_id)),
            on_drop_rejected=lambda rejected: on_reject(rejected_codes(rejected), _rejected_reasons(rejected)),
            border=f"2px dashed {rx.color('gray', 7)}",
            border_radius="8px",
            padding="1.5rem",
            width="100%",
            cursor="pointer",
            text_align="center",
            drag_active_style={"border_color": rx.color("accent", 9), "background": rx.color("accent", 2)},
            data_testid="image-uploader",
        ),
        rx.cond(
            count > 0,
            rx.flex(
                rx.foreach(images, lambda url, index: thumbnail(url, index, on_remove)),
                wrap="wrap",
                gap="0.5rem",
                width="100%",
            ),
        ),
        rx.cond(error != "", rx.text(error, size="1", color=rx.color("red", 11), role="alert")),
        spacing="2",
        width="100%",
    )
