"""The Product Editor's rules: which rows changed, which Save All sends, what it then says."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from storefront.services.admin.admin_catalog import FAILED_TO_UPDATE_PRODUCT
from storefront.services.platform.money import parse_cents

#: The fields staff edit inline; each row keeps an `original_<field>` copy.
EDITABLE_FIELDS = ("title", "description", "price", "category")

NO_CHANGES_TITLE = "No Changes"
NO_CHANGES_TEXT = "No products have been modified."
PRODUCT_UPDATED = "Product Updated"
UPDATE_FAILED = "Update Failed"
UPDATE_FAILED_TEXT = FAILED_TO_UPDATE_PRODUCT
ALL_SAVED = "All Changes Saved"
PARTIAL_SAVE = "Partial Save Completed"
BULK_FAILED = "Bulk Update Failed"
BULK_FAILED_TEXT = "Failed to save product changes. Please try again."


def _same(field: str, value: object, original: object) -> bool:
    if field == "price":
        # '24.9' and '24.90' are one price; an unreadable price is a change (Save reports it).
        cents = parse_cents(value)
        return cents is not None and cents == parse_cents(original)
    return str(value).strip() == str(original).strip()


def changed_fields(row: Mapping[str, object]) -> list[str]:
    """The editable fields whose value differs from the original."""
    return [f for f in EDITABLE_FIELDS if not _same(f, row.get(f, ""), row.get(f"original_{f}", ""))]


def rows_to_save(rows: Iterable[Mapping[str, object]]) -> list[Mapping[str, object]]:
    """Save All sends only rows being edited that have at least one real change."""
    return [row for row in rows if row.get("editing") and changed_fields(row)]


@dataclass(frozen=True)
class SaveAllOutcome:
    """The toast after Save All."""

    title: str
    description: str
    failed: bool


def save_all_outcome(saved: int, failed: int) -> SaveAllOutcome:
    if failed == 0:
        return SaveAllOutcome(ALL_SAVED, f"{saved} product(s) saved.", False)
    if saved == 0:
        return SaveAllOutcome(BULK_FAILED, BULK_FAILED_TEXT, True)
    return SaveAllOutcome(
        PARTIAL_SAVE, f"{saved} product(s) saved, {failed} failed. Check individual products for errors.", True
    )
