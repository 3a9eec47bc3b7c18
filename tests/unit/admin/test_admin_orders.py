"""The back office's orders, on SQLite and PostgreSQL: pages, stat cards, revenue, CSV and retry."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, select, update

from storefront.models import Order, OrderItem, OutboxJob
from storefront.services.admin import admin_orders
from storefront.services.admin.admin_orders import (
    CSV_HEADER,
    NO_ATTENTION,
    NOT_PAID,
    export_csv,
    list_orders,
    order_detail,
    order_stats,
    retry_fulfilment,
    revenue_by_day,
    serialize_page,
)
from storefront.services.orders.checkout import create_order
from storefront.services.orders.fulfilment import OrderOutbox
from storefront.services.orders.order_access import find_order, reissue_token
from storefront.services.orders.order_payment import OrderPayments, card_from_form
from storefront.services.orders.statuses import payment_label, status_label
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.errors import ConflictError, NotFoundError, ValidationError
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.services.printify.provider import validation_error
from storefront.wiring import session_factory
from tests.ordering import GOOD_CARD, ORDER_EMAILS, FakeClock, order_payload, pick, seed_demo

REASON = "address_to.zip: The address to.zip is invalid."


class RefusingProvider:
    """A provider that refuses every order for good with REASON."""

    def create_order(self, shop_id: int, order: dict) -> dict:
        raise validation_error(REASON)


@pytest.fixture
def provider(engine: Engine, tmp_path: Path) -> DemoPrintProvider:
    return seed_demo(engine, tmp_path)


def _place(engine: Engine, key: str, quantity: int = 1, **overrides) -> str:  # type: ignore[no-untyped-def]
    """Place an order; returns its number."""
    with Session(engine) as session:
        return create_order(session, order_payload((pick(engine), quantity), **overrides), key).number


def _pay(engine: Engine, number: str, clock: FakeClock | None = None) -> None:
    """Pay as the shopper would, with the order's token and the 4242 card."""
    with Session(engine) as session:
        token = reissue_token(session, find_order(session, number))
        session.commit()
    payments = OrderPayments(
        session_factory(engine), TestPaymentGateway(), **({"clock": clock} if clock else {}), emails=ORDER_EMAILS
    )
    payments.pay(number, token, card_from_form(GOOD_CARD), f"pay_{number}")


def _set(engine: Engine, number: str, **values: object) -> None:
    with Session(engine) as session:
        session.execute(update(Order).where(Order.number == number).values(**values))
        session.commit()


def _order(engine: Engine, number: str) -> Order:
    with Session(engine) as session:
        return find_order(session, number)


def _job(engine: Engine, number: str) -> OutboxJob:
    with Session(engine) as session:
        order = find_order(session, number)
        return session.exec(select(OutboxJob).where(OutboxJob.order_id == order.id)).one()


def _refused(engine: Engine, number: str, clock: FakeClock) -> None:
    """Pay the order and let the provider refuse it for good (it then needs attention)."""
    _pay(engine, number, clock)
    assert OrderOutbox(session_factory(engine), RefusingProvider(), DEMO_SHOP_ID, clock).run_due() == 0  # type: ignore[arg-type]
    assert _order(engine, number).attention_reason == REASON


# --------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("value", "label"),
    [
        ("pending", "Pending"),
        ("processing", "Processing"),
        ("fulfilled", "Fulfilled"),
        ("cancelled", "Cancelled"),
        ("shipped", "Unknown"),
        ("", "Unknown"),
        (None, "Unknown"),
    ],
)
def test_order_status_labels_show_unknown_outside_the_spec_set(value: str | None, label: str) -> None:
    assert status_label(value) == label


@pytest.mark.parametrize(
    ("value", "label"),
    [
        ("pending", "Pending"),
        ("paid", "Paid"),
        ("failed", "Failed"),
        ("refunded", "Refunded"),
        ("charging", "Pending"),
        ("disputed", "Unknown"),
        (None, "Unknown"),
    ],
)
def test_payment_status_labels_show_unknown_outside_the_spec_set(value: str | None, label: str) -> None:
    assert payment_label(value) == label


# --------------------------------------------------------------------------- pages


def test_orders_come_newest_first_with_the_total(engine: Engine, provider: DemoPrintProvider) -> None:
    numbers = [_place(engine, f"k{n}") for n in range(3)]
    with Session(engine) as session:
        page = list_orders(session, limit=2)
    assert [o.number for o in page.orders] == numbers[::-1][:2]
    assert (page.total, page.has_more) == (3, True)


def test_pages_walk_every_order_once_even_when_new_orders_arrive(engine: Engine, provider: DemoPrintProvider) -> None:
    numbers = [_place(engine, f"k{n}") for n in range(5)]
    seen: list[str] = []
    cursor = None
    with Session(engine) as session:
        first = list_orders(session, limit=2)
        seen += [o.number for o in first.orders]
        cursor = first.next_cursor
        _place(engine, "late")  # arrives between two pages: it must not shift the next page
        while cursor is not None:
            page = list_orders(session, limit=2, cursor=cursor)
            seen += [o.number for o in page.orders]
            cursor = page.next_cursor
    assert seen == numbers[::-1]
    assert page.total == 6


def test_an_empty_store_has_an_empty_page(engine: Engine) -> None:
    with Session(engine) as session:
        page = list_orders(session)
        assert (page.orders, page.total, page.next_cursor) == ([], 0, None)


@pytest.mark.parametrize("limit", [0, 101, "ten", -1])
def test_a_page_size_outside_1_to_100_is_refused(engine: Engine, limit: object) -> None:
    with Session(engine) as session, pytest.raises(ValidationError) as refused:
        list_orders(session, limit=limit)  # type: ignore[arg-type]
    assert refused.value.field_errors == {"limit": admin_orders.INVALID_LIMIT}


@pytest.mark.parametrize("cursor", ["abc", "-1", "1; drop table orders", "9" * 40])
def test_a_cursor_we_did_not_hand_out_is_refused(engine: Engine, cursor: str) -> None:
    with Session(engine) as session, pytest.raises(ValidationError):
        list_orders(session, cursor=cursor)


def test_a_page_serializes_each_order_with_its_own_items(engine: Engine, provider: DemoPrintProvider) -> None:
    one = _place(engine, "k1", quantity=1)
    three = _place(engine, "k3", quantity=3)
    with Session(engine) as session:
        data = serialize_page(session, list_orders(session))
    assert [(o["id"], [i["quantity"] for i in o["items"]]) for o in data] == [(three, [3]), (one, [1])]
    assert data[0]["customerName"] == "Ada Lovelace"
    assert data[0]["shippingAddress"]["city"] == "Albany"


def test_the_detail_is_the_admin_order_entity(engine: Engine, provider: DemoPrintProvider) -> None:
    number = _place(engine, "k1", quantity=2)
    tee = pick(engine)
    with Session(engine) as session:
        detail = order_detail(session, number)
        with pytest.raises(NotFoundError):
            order_detail(session, "SF-999999")
    assert detail["id"] == number
    assert [(i["name"], i["size"], i["quantity"], i["price"]) for i in detail["items"]] == [
        (tee.name, "M", 2, tee.price)
    ]
    assert (detail["status"], detail["paymentStatus"], detail["printifyOrderId"]) == ("pending", "pending", None)


# --------------------------------------------------------------------------- stat cards and revenue


def test_stat_cards_count_paid_orders_only_and_sum_paid_totals(engine: Engine, provider: DemoPrintProvider) -> None:
    paid, fulfilled, refunded, unpaid = (_place(engine, f"k{n}", quantity=n + 1) for n in range(4))
    for number in (paid, fulfilled, refunded):
        _pay(engine, number)
    _set(engine, fulfilled, status="fulfilled")
    _set(engine, refunded, payment_status="refunded", status="cancelled")
    with Session(engine) as session:
        stats = order_stats(session)
    expected = _order(engine, paid).total_cents + _order(engine, fulfilled).total_cents
    # The unpaid checkout is no order yet: it counts nowhere (the refunded one was paid once).
    assert stats == admin_orders.OrderStats(total_orders=3, processing=1, fulfilled=1, revenue_cents=expected)
    assert _order(engine, unpaid).payment_status == "pending"


def test_the_order_table_keeps_unpaid_checkouts_under_awaiting_payment(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    paid, unpaid, refunded = (_place(engine, f"v{n}", quantity=n + 1) for n in range(3))
    for number in (paid, refunded):
        _pay(engine, number)
    _set(engine, refunded, payment_status="refunded", status="cancelled")
    with Session(engine) as session:
        shown = admin_orders.list_orders(session, view=admin_orders.VIEW_PAID)
        awaiting = admin_orders.list_orders(session, view=admin_orders.VIEW_AWAITING)
        everything = admin_orders.list_orders(session)
    assert [o.number for o in shown.orders] == [refunded, paid] and shown.total == 2
    assert [o.number for o in awaiting.orders] == [unpaid] and awaiting.total == 1
    assert everything.total == 3
    with Session(engine) as session, pytest.raises(ValidationError):
        admin_orders.list_orders(session, view="unknown")


def test_stat_cards_of_an_empty_store_are_zero(engine: Engine) -> None:
    with Session(engine) as session:
        assert order_stats(session) == admin_orders.OrderStats(0, 0, 0, 0)


def test_revenue_by_day_sums_paid_orders_per_utc_day_for_30_days(engine: Engine, provider: DemoPrintProvider) -> None:
    now = datetime(2030, 3, 31, 10, 0, tzinfo=UTC)
    late, early, old, unpaid = (_place(engine, f"k{n}", quantity=n + 1) for n in range(4))
    for number in (late, early, old):
        _pay(engine, number)
    # 23:30 UTC on the 30th is still the 30th in UTC, whatever the database's own time zone says.
    _set(engine, late, created_at=datetime(2030, 3, 30, 23, 30, tzinfo=UTC))
    _set(engine, early, created_at=datetime(2030, 3, 2, 0, 15, tzinfo=UTC))
    _set(engine, old, created_at=datetime(2030, 3, 1, 23, 59, tzinfo=UTC))
    _set(engine, unpaid, created_at=datetime(2030, 3, 30, 12, 0, tzinfo=UTC))
    with Session(engine) as session:
        if session.get_bind().dialect.name == "postgresql":
            session.execute(text("SET TIME ZONE 'Asia/Tokyo'"))
        days = revenue_by_day(session, now=now)
    assert len(days) == 30
    assert (days[0].day.isoformat(), days[-1].day.isoformat()) == ("2030-03-02", "2030-03-31")
    by_day = {d.day.isoformat(): d.revenue_cents for d in days if d.revenue_cents}
    assert by_day == {
        "2030-03-02": _order(engine, early).total_cents,
        "2030-03-30": _order(engine, late).total_cents,
    }


def test_revenue_by_day_of_an_empty_store_is_thirty_zero_days(engine: Engine) -> None:
    with Session(engine) as session:
        days = revenue_by_day(session)
    assert len(days) == 30 and all(d.revenue_cents == 0 for d in days)
    assert days[-1].day == datetime.now(UTC).date()


# --------------------------------------------------------------------------- CSV


def _rows(text_: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text_)))


def test_the_csv_has_one_row_per_order_newest_first(engine: Engine, provider: DemoPrintProvider, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(admin_orders, "_EXPORT_BATCH", 2)  # several batches
    numbers = [_place(engine, f"k{n}") for n in range(5)]
    _pay(engine, numbers[0])
    with Session(engine) as session:
        rows = _rows(export_csv(session))
    assert tuple(rows[0]) == CSV_HEADER
    assert [r[0] for r in rows[1:]] == numbers[::-1]
    paid = _order(engine, numbers[0])
    assert rows[-1] == [
        paid.number,
        paid.created_at.strftime("%Y-%m-%d %H:%M:%S"),
        "Ada Lovelace",
        "ada@example.com",
        f"{paid.total_cents / 100:.2f}",
        "processing",
        "paid",
        "",
        "",
        "",
        "",
        "0.00",
        f"{paid.total_cents / 100:.2f}",
        "",
        "0.00",
    ]


def test_the_csv_and_the_revenue_count_net_of_partial_refunds(engine: Engine, provider: DemoPrintProvider) -> None:
    number = _place(engine, "net")
    _pay(engine, number)
    total = _order(engine, number).total_cents
    _set(engine, number, refunded_cents=500)
    with Session(engine) as session:
        (row,) = _rows(export_csv(session))[1:]
        assert (row[6], row[-4], row[-3]) == ("partially_refunded", "5.00", f"{(total - 500) / 100:.2f}")
        assert admin_orders.order_stats(session).revenue_cents == total - 500
        assert sum(day.revenue_cents for day in admin_orders.revenue_by_day(session)) == total - 500


def test_the_csv_of_an_empty_store_is_the_header(engine: Engine) -> None:
    with Session(engine) as session:
        assert _rows(export_csv(session)) == [list(CSV_HEADER)]


@pytest.mark.parametrize("name", ['=HYPERLINK("http://x")', "+SUM(A1)", "-2+3", "@cmd"])
def test_csv_cells_that_look_like_formulas_are_quoted(engine: Engine, provider: DemoPrintProvider, name: str) -> None:
    number = _place(engine, "k1", customerName=name)
    _set(engine, number, attention_reason="=1+1", tracking_number="@x")
    with Session(engine) as session:
        (row,) = _rows(export_csv(session))[1:]
    assert (row[2], row[-6], row[-5]) == (f"'{name}", "'@x", "'=1+1")


# --------------------------------------------------------------------------- retry


def test_retry_requeues_a_refused_order_and_the_outbox_sends_it(engine: Engine, provider: DemoPrintProvider) -> None:
    clock = FakeClock(datetime.now(UTC) - timedelta(hours=1))
    number = _place(engine, "k1")
    _refused(engine, number, clock)
    assert _job(engine, number).done_at is not None
    before = datetime.now(UTC)
    with Session(engine) as session:
        order = retry_fulfilment(session, number)
    assert order.attention_reason is None
    job = _job(engine, number)
    assert job.done_at is None and job.next_attempt_at >= before
    outbox = OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID)
    assert outbox.run_due() == 1
    sent = _order(engine, number)
    assert sent.printify_order_id and sent.attention_reason is None


def test_retry_queues_a_job_when_the_order_has_none(engine: Engine, provider: DemoPrintProvider) -> None:
    number = _place(engine, "k1")
    _pay(engine, number)
    with Session(engine) as session:
        session.execute(OutboxJob.__table__.delete())
        session.commit()
    _set(engine, number, attention_reason=REASON)
    with Session(engine) as session:
        retry_fulfilment(session, number)
    assert _job(engine, number).done_at is None


def test_retry_refuses_an_unpaid_order(engine: Engine, provider: DemoPrintProvider) -> None:
    number = _place(engine, "k1")
    _set(engine, number, attention_reason=REASON)
    with Session(engine) as session, pytest.raises(ConflictError) as refused:
        retry_fulfilment(session, number)
    assert refused.value.message == NOT_PAID
    assert _order(engine, number).attention_reason == REASON


def test_retry_refuses_a_paid_order_that_needs_no_attention(engine: Engine, provider: DemoPrintProvider) -> None:
    number = _place(engine, "k1")
    _pay(engine, number)
    with Session(engine) as session, pytest.raises(ConflictError) as refused:
        retry_fulfilment(session, number)
    assert refused.value.message == NO_ATTENTION


def test_a_second_retry_of_the_same_order_is_refused(engine: Engine, provider: DemoPrintProvider) -> None:
    number = _place(engine, "k1")
    _refused(engine, number, FakeClock())
    with Session(engine) as session:
        retry_fulfilment(session, number)
    with Session(engine) as session, pytest.raises(ConflictError):
        retry_fulfilment(session, number)


def test_retry_of_an_unknown_order_is_not_found(engine: Engine) -> None:
    with Session(engine) as session, pytest.raises(NotFoundError):
        retry_fulfilment(session, "SF-999999")


# --------------------------------------------------------------------------- the tab's rows


def test_a_table_row_is_formatted_for_display() -> None:
    from storefront.state.admin.orders import to_row

    order = Order(
        number="SF-000042",
        idempotency_key="k",
        request_fingerprint="f",
        access_token_hash="h",
        customer_email="ada@example.com",
        customer_name="Ada Lovelace",
        first_name="Ada",
        last_name="Lovelace",
        address1="1 Main",
        city="Albany",
        state_code="NY",
        zip="12207",
        country_code="US",
        subtotal_cents=123400,
        shipping_cents=0,
        total_cents=123450,
        status="shipped",
        payment_status="paid",
        attention_reason=REASON,
        created_at=datetime(2030, 3, 5, 23, 0, tzinfo=UTC),
    )
    assert to_row(order) == {
        "number": "SF-000042",
        "customer": "Ada Lovelace",
        "email": "ada@example.com",
        "total": "$1,234.50",
        "status": "Unknown",
        "payment": "Paid",
        "provider_status": "Not sent",
        "date": "Mar 5, 2030",
        "attention": REASON,
        "retryable": True,
    }


@pytest.mark.parametrize(
    ("image_url", "thumbnail"),
    [
        ("/media/0a1b2c-640.webp", "/media/0a1b2c-320.webp"),
        ("/media/0a1b2c-240.webp", "/media/0a1b2c-240.webp"),
        ("/images/product-placeholder.jpg", ""),
        ("", ""),
    ],
)
def test_an_order_line_shows_its_pictures_smallest_rendition_or_nothing(image_url: str, thumbnail: str) -> None:
    line = OrderItem(order_id=1, product_id="p", variant_id="1", name="Tee", size="M", quantity=1,
                     unit_price_cents=2500, image_url=image_url)
    assert admin_orders.line_thumbnail(line) == thumbnail
