"""The bench's one table: figures, ratios to the minimal page, targets and whether each is met."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class Row:
    """One line of the table. `met` is None when the line has no target (or was not measured)."""

    section: str
    measure: str
    value: str
    reference: str = ""
    ratio: float | None = None
    target: str = ""
    met: bool | None = None


def ratio(value: float, reference: float) -> float | None:
    """value / reference, or None when the reference is zero or missing."""
    if not reference or math.isnan(reference) or math.isnan(value):
        return None
    return value / reference


def ratio_row(section: str, measure: str, value: float, reference: float, unit: str,
              max_ratio: float | None = None) -> Row:
    """A figure beside the minimal page's, with an optional `value <= max_ratio x reference` target."""
    r = ratio(value, reference)
    target = f"<= {max_ratio:g}x minimal" if max_ratio is not None else ""
    met = None if max_ratio is None or r is None else r <= max_ratio
    return Row(section, measure, fmt(value, unit), fmt(reference, unit), r, target, met)


def limit_row(section: str, measure: str, value: float, unit: str, *, at_most: float | None = None,
              below: float | None = None, at_least: float | None = None, reference: str = "") -> Row:
    """A figure with an absolute target: `at_most` (<=), `below` (<) or `at_least` (>=)."""
    if at_most is not None:
        target, met = f"<= {fmt(at_most, unit)}", value <= at_most
    elif below is not None:
        target, met = f"< {fmt(below, unit)}", value < below
    elif at_least is not None:
        target, met = f">= {fmt(at_least, unit)}", value >= at_least
    else:
        target, met = "", None
    if math.isnan(value):
        met = None
    return Row(section, measure, fmt(value, unit), reference, None, target, met)


def missing_row(section: str, measure: str, reason: str, target: str = "") -> Row:
    """A line that could not be measured, and why."""
    return Row(section, measure, f"{NOT_MEASURED}: {reason}", "", None, target, None)


def fmt(value: float, unit: str) -> str:
    """A figure with its unit: ms, KiB (from bytes), MiB (from KiB), /s, or a plain number."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if unit == "ms":
        return f"{value:.0f} ms" if value >= 10 else f"{value:.2f} ms"
    if unit == "bytes":
        return f"{value / 1024:.1f} KiB"
    if unit == "kib":
        return f"{value / 1024:.1f} MiB"
    if unit == "/s":
        return f"{value:.1f}/s"
    return f"{value:g}{unit}"


def met_label(met: bool | None) -> str:
    return {True: "yes", False: "MISSED", None: ""}[met]


def render_table(rows: list[Row]) -> str:
    """A Markdown table of every row, the section named once where it starts."""
    header = ("section", "measure", "storefront", "minimal page", "ratio", "target", "met")
    lines: list[list[str]] = []
    previous = None
    for row in rows:
        lines.append([
            row.section if row.section != previous else "",
            row.measure, row.value, row.reference,
            f"{row.ratio:.2f}x" if row.ratio is not None else "",
            row.target, met_label(row.met),
        ])
        previous = row.section
    return render_markdown(header, lines)


def render_markdown(header: tuple[str, ...], lines: list[list[str]]) -> str:
    """A Markdown table with padded columns."""
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |" for line in lines]
    return "\n".join(out)


def summary(rows: list[Row]) -> str:
    targets = [row for row in rows if row.target]
    met = sum(row.met is True for row in targets)
    missed = [row.measure for row in targets if row.met is False]
    unknown = sum(row.met is None for row in targets)
    text = f"targets met: {met} of {len(targets)}"
    if unknown:
        text += f" ({unknown} not measured)"
    if missed:
        text += "; missed: " + ", ".join(missed)
    return text


def write_results(path: Path, rows: list[Row], raw: dict[str, Any]) -> None:
    """results.json: every row as shown plus the raw figures they came from."""
    path.write_text(json.dumps({"rows": [asdict(row) for row in rows], "raw": raw}, indent=2, default=str) + "\n")
