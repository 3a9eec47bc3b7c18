"""The Staff tab (owner): the accounts, an invitation form, the link of the last invitation and
the two-factor policy; the Account tab (everyone): one's own password and two-factor sign-in; and
the enrolment screen the dashboard shows instead while two-factor sign-in is due."""

import reflex as rx

from storefront.components import styles
from storefront.components.admin.layout import section_card
from storefront.services.staff.roles import FULFILMENT, ROLE_LABELS, STAFF
from storefront.state.admin.staff import AccountRow, AccountState, StaffAdminState as S, TwoFactorState as T

FIELD_STYLE = {"display": "grid", "gap": "0.25rem", "width": "100%"}


def labelled(label: str, control: rx.Component, message: rx.Var) -> rx.Component:
    return rx.vstack(
        rx.el.label(
            rx.text(label, size="2", weight="medium"), control, style=FIELD_STYLE
        ),
        rx.cond(message, rx.text(message, color=rx.color("red", 11), size="1")),
        spacing="1",
        width="100%",
    )


def invite_form() -> rx.Component:
    errors = S.invite_errors
    return section_card(
        rx.form(
            rx.vstack(
                rx.heading("Invite someone", as_="h2", size="4"),
                rx.text("They get an email with a link to set their password (it works once, for 7 days).",
                        size="2", color=styles.MUTED),
                rx.flex(
                    labelled("Email", rx.input(name="email", type="email", size="2"), errors["email"]),
                    labelled("Username", rx.input(name="username", size="2"), errors["username"]),
                    labelled(
                        "Role",
                        rx.el.select(
                            rx.el.option(ROLE_LABELS[STAFF], value=STAFF),
                            rx.el.option(ROLE_LABELS[FULFILMENT] + " (orders only)", value=FULFILMENT),
                            name="role",
                            default_value=STAFF,
                            style={"height": "2rem", "border": "1px solid var(--gray-7)", "border_radius": "6px"},
                        ),
                        errors["role"],
                    ),
                    spacing="3",
                    direction=rx.breakpoints(initial="column", sm="row"),
                    width="100%",
                ),
                rx.button("Send invitation", type="submit", disabled=S.busy),
                rx.cond(
                    S.last_link != "",
                    rx.callout(
                        rx.text(
                            "Invitation link (also emailed): ",
                            # One long word: broken anywhere, or it would widen a phone's page.
                            rx.code(S.last_link, data_testid="invite-link", word_break="break-all"),
                        ),
                        icon="mail",
                        width="100%",
                    ),
                ),
                spacing="3",
                width="100%",
            ),
            on_submit=S.invite,
            reset_on_submit=True,
            no_validate=True,
        )
    )


def account_row(row: AccountRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(row["username"], weight="medium")),
        rx.table.cell(row["email"]),
        rx.table.cell(row["roleLabel"]),
        rx.table.cell(rx.badge(row["status"], color_scheme=rx.match(
            row["status"], ("active", "green"), ("invited", "amber"), "gray"))),
        rx.table.cell(rx.cond(row["twoFactor"], "On", "Off")),
        rx.table.cell(
            rx.cond(
                row["role"] != "owner",
                rx.hstack(
                    rx.cond(
                        row["status"] == "disabled",
                        rx.button("Enable", size="1", variant="soft", on_click=S.enable(row["id"])),
                        rx.button("Disable", size="1", variant="soft", color_scheme="amber",
                                  on_click=S.disable(row["id"])),
                    ),
                    rx.button("Remove", size="1", variant="soft", color_scheme="red", on_click=S.remove(row["id"])),
                    spacing="2",
                ),
            )
        ),
        data_testid="staff-row",
    )


def policy_card() -> rx.Component:
    """The owner's switch: everyone must use two-factor sign-in (the guard holds it on the server)."""
    return section_card(
        rx.vstack(
            rx.heading("Two-factor sign-in", as_="h2", size="4"),
            rx.hstack(
                rx.switch(
                    id="require-two-factor",
                    checked=S.require_two_factor,
                    on_change=S.set_require_two_factor,
                ),
                rx.el.label(
                    rx.text("Require two-factor sign-in for everyone", size="2", weight="medium"),
                    html_for="require-two-factor",
                ),
                spacing="2",
                align="center",
            ),
            rx.text(
                "While it is on, whoever has not set it up can do nothing else until they have (you too).",
                size="2",
                color=styles.MUTED,
            ),
            spacing="3",
            width="100%",
        )
    )


def staff_tab() -> rx.Component:
    return rx.vstack(
        invite_form(),
        policy_card(),
        section_card(
            rx.heading("Accounts", as_="h2", size="4", margin_bottom="0.75rem"),
            rx.box(
                rx.table.root(
                    rx.table.header(
                        rx.table.row(
                            *[rx.table.column_header_cell(text) for text in
                              ("Username", "Email", "Role", "Status", "Two-factor", "")]
                        )
                    ),
                    rx.table.body(rx.foreach(S.accounts, account_row)),
                    width="100%",
                ),
                overflow_x="auto",
                width="100%",
            ),
        ),
        spacing="4",
        width="100%",
        on_mount=S.load,
    )


def code_form(label: str, on_submit: rx.EventHandler) -> rx.Component:
    return rx.form(
        rx.vstack(
            labelled("Code from the app", rx.input(name="code", auto_complete="one-time-code", size="2"),
                     T.code_error),
            rx.button(label, type="submit", variant="soft"),
            spacing="2",
            width="100%",
            max_width="320px",
        ),
        on_submit=on_submit,
        reset_on_submit=True,
        no_validate=True,
    )


def two_factor_card() -> rx.Component:
    return section_card(
        rx.vstack(
            rx.heading("Two-factor sign-in", as_="h2", size="4"),
            rx.cond(
                T.recovery_codes.length() > 0,
                rx.callout(
                    rx.vstack(
                        rx.text("Keep these recovery codes somewhere safe. Each works once; they are shown only now:"),
                        rx.grid(rx.foreach(T.recovery_codes, lambda c: rx.code(c, data_testid="recovery-code")),
                                columns="2", spacing="2"),
                        rx.cond(
                            T.codes_before_dashboard,
                            rx.button("I have kept them: continue", on_click=T.continue_to_dashboard),
                        ),
                    ),
                    icon="key-round",
                    width="100%",
                ),
            ),
            rx.cond(
                T.enabled,
                rx.vstack(
                    rx.text("On. Recovery codes left: ", T.codes_left.to_string(), size="2"),
                    code_form("Turn off", T.turn_off),
                    width="100%",
                ),
                rx.cond(
                    T.qr != "",
                    rx.vstack(
                        rx.text("Scan the code with an authenticator app, or type the key, then enter its code.",
                                size="2"),
                        rx.image(src=T.qr, width="180px", height="180px", alt="QR code for the authenticator app"),
                        rx.text(
                            "Key: ", rx.code(T.secret, data_testid="totp-secret", word_break="break-all"), size="2"
                        ),
                        code_form("Turn on", T.confirm),
                        width="100%",
                    ),
                    rx.vstack(
                        rx.text("Off. Sign-in asks for a code from an app on your phone once it is on.", size="2",
                                color=styles.MUTED),
                        rx.button("Set up two-factor sign-in", variant="soft", on_click=T.start),
                    ),
                ),
            ),
            spacing="3",
            width="100%",
        ),
        on_mount=T.load,
    )


def account_tab() -> rx.Component:
    return rx.vstack(password_card(), two_factor_card(), spacing="4", width="100%")


def password_card() -> rx.Component:
    errors = AccountState.password_errors
    return section_card(
        rx.form(
            rx.vstack(
                rx.heading("Change password", as_="h2", size="4"),
                rx.text("Signed in as ", rx.code(AccountState.staff_username), size="2", color=styles.MUTED),
                labelled(
                    "Current password", rx.input(name="current", type="password", auto_complete="current-password"),
                    errors["current"],
                ),
                labelled("New password (at least 10 characters)",
                         rx.input(name="new", type="password", auto_complete="new-password"), errors["password"]),
                rx.button("Change password", type="submit", disabled=AccountState.password_saving),
                spacing="3",
                width="100%",
                max_width="420px",
            ),
            on_submit=AccountState.change_password,
            reset_on_submit=True,
            no_validate=True,
        )
    )


def enrolment_screen() -> rx.Component:
    """All the dashboard shows while two-factor sign-in is due for the person (the server refuses
    everything else until it is on), then the new recovery codes until they are kept."""
    return rx.vstack(
        rx.callout(
            rx.cond(
                T.codes_before_dashboard,
                "Two-factor sign-in is on. Keep your recovery codes, then continue.",
                "Set up two-factor sign-in to continue: scan its QR code with an authenticator app and enter the "
                "app's code.",
            ),
            icon="shield-alert",
            color_scheme="amber",
            width="100%",
            data_testid="two-factor-due",
        ),
        two_factor_card(),
        spacing="4",
        width="100%",
    )
