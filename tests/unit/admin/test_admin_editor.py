"""The Product Editor's Save All rules and messages."""

from storefront.services.admin.admin_editor import changed_fields, rows_to_save, save_all_outcome


def _row(editing: bool = True, **values: str) -> dict[str, object]:
    original = {"title": "Tee", "description": "Soft", "price": "24.99", "category": "swdnn"}
    row: dict[str, object] = {**original, **values, "editing": editing}
    row.update({f"original_{k}": v for k, v in original.items()})
    return row


def test_an_untouched_row_has_no_changes() -> None:
    assert changed_fields(_row()) == []


def test_each_edited_field_counts() -> None:
    assert changed_fields(_row(title="Tee 2", category="hwdrn")) == ["title", "category"]


def test_the_same_price_written_differently_is_no_change() -> None:
    assert changed_fields(_row(price="24.990")) == []
    assert changed_fields(_row(price="25")) == ["price"]


def test_an_unreadable_price_is_a_change_so_save_reports_it() -> None:
    assert changed_fields(_row(price="abc")) == ["price"]


def test_whitespace_alone_is_no_change() -> None:
    assert changed_fields(_row(title="  Tee ")) == []


def test_save_all_sends_only_edited_rows_with_a_real_change() -> None:
    rows = [_row(title="New"), _row(), _row(editing=False, title="Not in edit mode")]
    assert [r["title"] for r in rows_to_save(rows)] == ["New"]
    assert rows_to_save([_row(), _row(editing=False)]) == []


def test_save_all_outcomes_use_the_spec_texts() -> None:
    assert save_all_outcome(3, 0).title == "All Changes Saved"
    partial = save_all_outcome(2, 1)
    assert (partial.title, partial.description, partial.failed) == (
        "Partial Save Completed",
        "2 product(s) saved, 1 failed. Check individual products for errors.",
        True,
    )
    failed = save_all_outcome(0, 2)
    assert (failed.title, failed.description) == (
        "Bulk Update Failed",
        "Failed to save product changes. Please try again.",
    )
