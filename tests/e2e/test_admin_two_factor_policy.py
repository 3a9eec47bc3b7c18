"""'Require two-factor sign-in for everyone' in a real browser: the owner turns the Staff tab's
switch on, and a staff member without it who signs in sees only the enrolment screen until it is on."""

from __future__ import annotations

import pyotp
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, col, create_engine, select

from storefront.models import ActivityEntry, StaffPolicy
from tests.e2e.admin import ADMIN_USERNAME, open_tab, sign_in, staff_member
from tests.e2e.conftest import StoreServer

TARA_PASSWORD = "tara's own long passphrase"
SWITCH = "Require two-factor sign-in for everyone"


def _stop_requiring(store: StoreServer) -> None:
    """Back to no policy: the other browser tests share this store (its owner has no second factor)."""
    engine = create_engine(store.db_url)
    try:
        with Session(engine) as session:
            policy = session.get(StaffPolicy, 1)
            if policy is not None:
                policy.require_two_factor = False
                session.add(policy)
                session.commit()
    finally:
        engine.dispose()


def test_when_the_owner_requires_it_a_staff_member_sees_only_the_enrolment_screen(
    page: Page, browser: Browser, store: StoreServer, store_url: str
) -> None:
    staff_member(store.url, "tara", TARA_PASSWORD)
    try:
        sign_in(page)
        open_tab(page, "Staff")
        switch = page.get_by_role("switch", name=SWITCH)
        expect(switch).to_have_attribute("aria-checked", "false")
        switch.click()
        # The owner has no second factor either: asked to set it up at once, like everyone.
        expect(page.get_by_test_id("two-factor-due")).to_be_visible()
        expect(page.get_by_role("tab")).to_have_count(0)

        staff = browser.new_context(base_url=store_url, viewport={"width": 1280, "height": 900})
        try:
            tara = staff.new_page()
            sign_in(tara, "tara", TARA_PASSWORD)
            expect(tara.get_by_test_id("two-factor-due")).to_contain_text("Set up two-factor sign-in to continue")
            expect(tara.get_by_role("tab")).to_have_count(0)
            expect(tara.get_by_role("button", name="Logout")).to_be_visible()

            tara.get_by_role("button", name="Set up two-factor sign-in").click()
            totp = pyotp.TOTP(tara.get_by_test_id("totp-secret").inner_text())
            tara.get_by_label("Code from the app").fill(totp.now())
            tara.get_by_role("button", name="Turn on").click()
            expect(tara.get_by_test_id("recovery-code")).to_have_count(10)
            tara.get_by_role("button", name="I have kept them: continue").click()
            expect(tara.get_by_role("tab", name="Orders")).to_be_visible()
            expect(tara.get_by_test_id("two-factor-due")).to_have_count(0)
        finally:
            staff.close()
    finally:
        _stop_requiring(store)

    engine = create_engine(store.db_url)
    try:
        with Session(engine) as session:
            logged = session.exec(
                select(ActivityEntry).where(col(ActivityEntry.target) == "two-factor policy")
            ).all()
    finally:
        engine.dispose()
    # The switch's change is in the activity log, with who and from where.
    assert [(row.actor, row.after_json, bool(row.client)) for row in logged][:1] == [
        (ADMIN_USERNAME, '{"required": true}', True)
    ]
