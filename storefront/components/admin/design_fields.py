"""The create form's design part: the artwork's drop zone and what the check said, its placement
with a preview on the blank, the colours and sizes to sell, each size's price and margin, and the
mockups of the product just created."""

from __future__ import annotations

import reflex as rx

from storefront.components import styles
from storefront.components.admin.mockups import mockup_gallery
from storefront.state.admin.product_design import DESIGN_UPLOAD_ID, ProductDesignState

D = ProductDesignState
DESIGN_TYPES = {"image/png": [".png"], "image/jpeg": [".jpg", ".jpeg"]}
DESIGN_HINT = "PNG with a transparent background, or JPEG; 2250 px wide or more prints sharp on a tee's front"


def design_drop_zone() -> rx.Component:
    return rx.upload.root(
        rx.vstack(
            rx.cond(D.uploading, rx.spinner(size="3"), rx.icon("image-up", size=28, color=styles.MUTED)),
            rx.text(
                rx.cond(D.design_name != "", D.design_name, "Drop the design here, or click to choose"),
                size="2",
                weight="medium",
            ),
            rx.text(DESIGN_HINT, size="1", color=styles.MUTED),
            align="center",
            spacing="1",
        ),
        id=DESIGN_UPLOAD_ID,
        accept=DESIGN_TYPES,
        multiple=False,
        max_files=1,
        on_drop=D.upload_design(rx.upload_files(upload_id=DESIGN_UPLOAD_ID)),
        border=f"2px dashed {rx.color('gray', 7)}",
        border_radius="8px",
        padding="1.25rem",
        width="100%",
        cursor="pointer",
        text_align="center",
        data_testid="design-upload",
    )


def design_status() -> rx.Component:
    return rx.vstack(
        rx.cond(D.design_info != "", rx.text(D.design_info, size="1", color=styles.MUTED, data_testid="design-info")),
        rx.cond(
            D.design_warning != "",
            rx.callout(
                D.design_warning, icon="triangle-alert", color_scheme="amber", size="1", data_testid="design-warning"
            ),
        ),
        rx.cond(
            D.design_error != "",
            rx.text(D.design_error, color=rx.color("red", 11), size="1", data_testid="design-error"),
        ),
        spacing="1",
        width="100%",
    )


def number_field(label: str, field: str, value: rx.Var, step: str, low: str, high: str) -> rx.Component:
    control_id = f"placement-{field}"
    return rx.vstack(
        rx.el.label(rx.text(label, size="1", weight="medium"), html_for=control_id),
        rx.input(
            id=control_id,
            name=f"placement_{field}",
            type="number",
            default_value=value.to(str),
            step=step,
            min=low,
            max=high,
            on_change=lambda typed: D.set_placement_number(field, typed).debounce(300),
            size="2",
            width="6rem",
        ),
        spacing="1",
    )


def placement_fields() -> rx.Component:
    return rx.hstack(
        rx.vstack(
            rx.el.label(rx.text("Side", size="1", weight="medium"), html_for="placement-position"),
            rx.select.root(
                rx.select.trigger(id="placement-position", width="7rem"),
                rx.select.content(rx.foreach(D.positions, lambda p: rx.select.item(p.capitalize(), value=p))),
                value=D.position,
                on_change=D.set_position,
                name="placement_position",
                size="2",
            ),
            spacing="1",
        ),
        number_field("Across (0-1)", "x", D.x, "0.05", "0", "1"),
        number_field("Down (0-1)", "y", D.y, "0.05", "0", "1"),
        number_field("Width (x print area)", "scale", D.scale, "0.05", "0.05", "2"),
        spacing="3",
        wrap="wrap",
        align="end",
    )


def preview() -> rx.Component:
    return rx.cond(
        D.preview_url != "",
        rx.image(
            src=D.preview_url,
            alt="The design on the blank",
            width="240px",
            height="240px",
            border=styles.BORDER,
            border_radius="8px",
            data_testid="design-preview",
        ),
    )


def option_box(kind: str, name: rx.Var) -> rx.Component:
    return rx.el.label(
        rx.el.input(type="checkbox", name=f"{kind}:" + name.to(str), default_checked=True),
        rx.text(name, size="2", as_="span"),
        display="inline-flex",
        align_items="center",
        gap="0.35rem",
        margin_right="0.9rem",
    )


def options() -> rx.Component:
    return rx.cond(
        D.colors.length() > 0,
        rx.vstack(
            rx.el.input(type="hidden", name="choices", value="1"),
            rx.text("Colours", size="2", weight="medium"),
            rx.box(rx.foreach(D.colors, lambda c: option_box("color", c)), data_testid="colour-choices"),
            rx.text("Sizes", size="2", weight="medium"),
            rx.box(rx.foreach(D.sizes, lambda s: option_box("size", s)), data_testid="size-choices"),
            spacing="2",
            width="100%",
        ),
    )


def margin_table() -> rx.Component:
    def row(item: rx.Var) -> rx.Component:
        return rx.table.row(
            rx.table.cell(item["size"]),
            rx.table.cell(item["price"]),
            rx.table.cell(item["cost"]),
            rx.table.cell(item["margin"]),
        )

    return rx.cond(
        D.size_rows.length() > 0,
        rx.table.root(
            rx.table.header(
                rx.table.row(
                    *[rx.table.column_header_cell(label) for label in ("Size", "Price", "Provider cost", "Margin")]
                )
            ),
            rx.table.body(rx.foreach(D.size_rows, row)),
            size="1",
            data_testid="size-margins",
        ),
    )


def design_section() -> rx.Component:
    return rx.vstack(
        rx.text("Design", size="2", weight="medium"),
        design_drop_zone(),
        design_status(),
        rx.flex(preview(), placement_fields(), spacing="4", wrap="wrap", align="start", width="100%"),
        spacing="2",
        width="100%",
    )


def mockups() -> rx.Component:
    return rx.cond(
        D.mockups.length() > 0,
        rx.vstack(
            rx.text("Mockups of the product just created", size="2", weight="medium"),
            mockup_gallery(D.mockups, "160px", "created-mockup"),
            spacing="2",
            width="100%",
        ),
    )
