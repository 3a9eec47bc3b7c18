"""Issue 9: page titles and descriptions, and readable collection labels on the home page."""

from storefront.components.layout import PAGE_DESCRIPTIONS, STORE_DESCRIPTION, page_title
from storefront.pages.home import MIN_TEXT_CONTRAST, WHITE, contrast_ratio, readable_on_white
from storefront.services.collections import COLLECTIONS
from storefront.state.header import ADMIN_GESTURE_SCRIPT, ADMIN_LOGIN_ROUTE, admin_gesture_click


def test_page_titles_end_with_the_brand_once() -> None:
    assert page_title("Our Products") == "Our Products | SWDNN"
    assert page_title("SWDNN | She Wit Da Nupes Now") == "SWDNN | She Wit Da Nupes Now"


def test_every_collection_page_is_described_by_its_collection() -> None:
    for collection in COLLECTIONS:
        assert PAGE_DESCRIPTIONS[collection.route] == collection.description
    assert PAGE_DESCRIPTIONS["/"] == STORE_DESCRIPTION


def test_collection_labels_read_on_white_at_wcag_aa() -> None:
    for collection in COLLECTIONS:
        assert contrast_ratio(readable_on_white(collection.primary), WHITE) >= MIN_TEXT_CONTRAST


def test_colours_that_already_read_on_white_are_kept() -> None:
    assert readable_on_white("#9b111e") == "#9b111e"
    assert readable_on_white("#f2c200") != "#f2c200"


def test_the_admin_gesture_never_calls_the_server() -> None:
    spec = admin_gesture_click()
    callback = dict((name._js_expr, value._var_value) for name, value in spec.args)["callback"]
    assert '"_redirect"' in callback and "state" not in callback  # no handler of a State
    assert f'return "{ADMIN_LOGIN_ROUTE}"' in ADMIN_GESTURE_SCRIPT
