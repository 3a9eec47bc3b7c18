"""CSV exports a spreadsheet opens safely: the one rule against formula injection, for every export."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

#: Spreadsheets run a cell starting with one of these as a formula (CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: str | None) -> str:
    """A cell a spreadsheet shows as text: one starting like a formula gets a leading quote."""
    text = value or ""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def csv_text(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """The header and rows as CSV text with CRLF line ends (the cells are written as given)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()
