"""Lighthouse's figures per page (mobile and desktop rows) and the mobile targets, met or missed."""

from __future__ import annotations

import math

from bench.lighthouse import DESKTOP, MOBILE, LighthouseRun
from bench.report import Row, fmt, ratio, render_markdown
from storefront.web.page_texts import NOINDEX_ROUTES

MINIMAL = "minimal page"
#: The targets, on Lighthouse's mobile preset, for every storefront page.
MAX_LCP_RATIO = 1.5
MIN_PERFORMANCE = 95
FULL_SCORE = 100
#: Issue 34's figures on the simulated phone (ms).
MAX_FCP_MS = 1200.0
MAX_LCP_MS = 2000.0
MAX_TBT_MS = 150.0
SCORE_LABELS = {"performance": "perf", "accessibility": "a11y", "best-practices": "best practices", "seo": "SEO"}
SECTION = "lighthouse mobile (simulated throttling), every storefront page"


def lcp_ratio(run: LighthouseRun, minimal: LighthouseRun) -> float | None:
    """The page's LCP over the minimal page's, in the same preset."""
    if run.error or minimal.error:
        return None
    return ratio(run.lcp_ms, minimal.lcp_ms)


def searched(page: str) -> bool:
    """Whether the page is meant for search engines (the cart and the order pages say `noindex` on purpose)."""
    return page not in NOINDEX_ROUTES


def _floor(category: str, page: str) -> float:
    """The lowest score the page may have in `category` (no SEO floor for a `noindex` page)."""
    if category == "performance":
        return MIN_PERFORMANCE
    return FULL_SCORE if category != "seo" or searched(page) else 0


#: The absolute mobile targets: (label, the run's figure, at most, unit).
LIMITS = (("FCP", "fcp_ms", MAX_FCP_MS), ("LCP", "lcp_ms", MAX_LCP_MS), ("TBT", "tbt_ms", MAX_TBT_MS))


def misses(run: LighthouseRun, minimal: LighthouseRun, page: str = "") -> list[str]:
    """The mobile targets a storefront page misses, named with its figure (empty when all are met)."""
    if run.error:
        return [f"not measured: {run.error}"]
    missed = []
    r = lcp_ratio(run, minimal)
    if r is None or r > MAX_LCP_RATIO:
        missed.append(f"LCP {r:.2f}x" if r is not None else "LCP ratio unknown")
    for label, figure, limit in LIMITS:
        value = getattr(run, figure)
        if math.isnan(value) or value > limit:
            missed.append(f"{label} {fmt(value, 'ms')}")
    for category, label in SCORE_LABELS.items():
        floor = _floor(category, page)
        score = run.scores.get(category)
        if score is None or score < floor:
            missed.append(f"{label} {score if score is not None else 'n/a'}")
    if not _cls_is_zero(run.cls):
        missed.append(f"CLS {run.cls:.3f}")
    if run.console_errors:
        missed.append(f"{len(run.console_errors)} console error{'s' if len(run.console_errors) > 1 else ''}")
    return missed


def _cls_is_zero(cls: float) -> bool:
    """CLS 0 as Lighthouse shows it (three decimals)."""
    return not math.isnan(cls) and round(cls, 3) == 0


def target_rows(runs: dict[str, LighthouseRun], minimal: LighthouseRun) -> list[Row]:
    """One row per mobile target over every storefront page: the worst page's figure and whether all meet it."""
    if minimal.error:
        return [Row(SECTION, "minimal page", f"not measured: {minimal.error}")]
    measured = {page: run for page, run in runs.items() if not run.error}
    unmeasured = [page for page, run in runs.items() if run.error]

    def row(measure: str, worst_page: str | None, value: str, reference: str, target: str, met: bool,
            worst_ratio: float | None = None) -> Row:
        shown = f"{value} ({worst_page})" if worst_page else value
        if unmeasured:
            shown += f"; not measured: {', '.join(unmeasured)}"
        return Row(SECTION, measure, shown, reference, worst_ratio, target, met if met is False or not unmeasured
                   else None)

    if not measured:
        return [row("every target", None, "no page measured", "", "", False)]
    ratios = {page: lcp_ratio(run, minimal) or math.inf for page, run in measured.items()}
    worst = max(ratios, key=ratios.__getitem__)
    rows = [row("LCP", worst, fmt(measured[worst].lcp_ms, "ms"), fmt(minimal.lcp_ms, "ms"),
                f"<= {MAX_LCP_RATIO:g}x minimal", ratios[worst] <= MAX_LCP_RATIO,
                ratios[worst] if math.isfinite(ratios[worst]) else None)]
    for label, figure, limit in LIMITS:
        values = {page: getattr(run, figure) for page, run in measured.items()}
        worst = max(values, key=lambda page: math.inf if math.isnan(values[page]) else values[page])
        rows.append(row(f"{label} (simulated)", worst, fmt(values[worst], "ms"), fmt(getattr(minimal, figure), "ms"),
                        f"<= {fmt(limit, 'ms')}", not math.isnan(values[worst]) and values[worst] <= limit))
    for category, label in SCORE_LABELS.items():
        judged = {page: run for page, run in measured.items() if _floor(category, page) > 0}
        if not judged:
            continue
        floor = MIN_PERFORMANCE if category == "performance" else FULL_SCORE
        scores = {page: run.scores.get(category, math.nan) for page, run in judged.items()}
        worst = min(scores, key=lambda page: -math.inf if math.isnan(scores[page]) else scores[page])
        every = "" if len(judged) == len(measured) else " (pages meant for search engines)"
        rows.append(row(f"{label} score{every}", worst, fmt(scores[worst], ""),
                        fmt(minimal.scores.get(category, math.nan), ""), f">= {floor}", scores[worst] >= floor))
    cls = {page: run.cls if not math.isnan(run.cls) else math.inf for page, run in measured.items()}
    worst = max(cls, key=cls.__getitem__)
    rows.append(row("CLS", worst, f"{cls[worst]:.3f}", f"{minimal.cls:.3f}", "0",
                    all(_cls_is_zero(run.cls) for run in measured.values())))
    errors = {page: len(run.console_errors) for page, run in measured.items()}
    worst = max(errors, key=errors.__getitem__)
    rows.append(row("console errors (errors-in-console)", worst if errors[worst] else None,
                    f"{errors[worst]}" if errors[worst] else "0 on every page", f"{len(minimal.console_errors)}",
                    "0", errors[worst] == 0))
    return rows


def page_table(runs: dict[str, dict[str, LighthouseRun]]) -> str:
    """Every page's mobile row and desktop row (the minimal page first), with each mobile row's targets."""
    header = ("page", "preset", "FCP", "LCP", "LCP / minimal", "CLS", "TBT", "perf", "a11y", "best pr.", "SEO",
              "console errors", "LCP element", "targets")
    lines = []
    for page, by_preset in runs.items():
        for preset in (MOBILE, DESKTOP):
            run = by_preset.get(preset)
            if run is None:
                continue
            minimal = runs[MINIMAL][preset]
            if run.error:
                lines.append([page, preset, f"not measured: {run.error}", *[""] * (len(header) - 3)])
                continue
            r = lcp_ratio(run, minimal)
            targets = ""
            if page != MINIMAL and preset == MOBILE:
                missed = misses(run, minimal, page)
                targets = "met" if not missed else "MISSED: " + ", ".join(missed)
            lines.append([
                page, preset, fmt(run.fcp_ms, "ms"), fmt(run.lcp_ms, "ms"), f"{r:.2f}x" if r is not None else "",
                f"{run.cls:.3f}", fmt(run.tbt_ms, "ms"),
                *[f"{run.scores[c]:g}" if c in run.scores else "n/a" for c in SCORE_LABELS],
                str(len(run.console_errors)), run.lcp_element.kind, targets,
            ])
    return render_markdown(header, lines)
