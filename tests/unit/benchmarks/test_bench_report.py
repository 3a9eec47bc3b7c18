"""The bench's results table: ratios to the minimal page, targets met or missed, the printed table."""

from bench.report import limit_row, missing_row, ratio_row, render_table, summary


def test_a_figure_within_its_ratio_target_is_met() -> None:
    row = ratio_row("cold load", "/ LCP", 450.0, 300.0, "ms", 1.5)
    assert (row.ratio, row.met, row.target, row.value, row.reference) == (
        1.5,
        True,
        "<= 1.5x minimal",
        "450 ms",
        "300 ms",
    )


def test_a_figure_beyond_its_ratio_target_is_missed() -> None:
    assert ratio_row("cold load", "/ LCP", 451.0, 300.0, "ms", 1.5).met is False


def test_a_ratio_without_a_target_is_shown_but_not_judged() -> None:
    row = ratio_row("cold load", "/ transferred", 2048.0, 1024.0, "bytes")
    assert (row.ratio, row.met, row.value) == (2.0, None, "2.0 KiB")


def test_a_zero_reference_gives_no_ratio_and_no_verdict() -> None:
    row = ratio_row("interaction", "search", 10.0, 0.0, "ms", 5)
    assert (row.ratio, row.met) == (None, None)


def test_absolute_targets_compare_as_written() -> None:
    assert limit_row("state", "largest", 30 * 1024, "bytes", at_most=30 * 1024).met is True
    assert limit_row("shoppers", "p95", 200.0, "ms", below=200).met is False
    assert limit_row("lighthouse", "seo", 100, "", at_least=100).met is True
    assert limit_row("provider", "calls", 1.0, "", at_most=0).target == "<= 0"


def test_the_table_names_a_section_once_and_marks_missed_targets() -> None:
    rows = [
        ratio_row("cold load", "/ LCP", 900.0, 300.0, "ms", 1.5),
        ratio_row("cold load", "/ FCP", 300.0, 300.0, "ms"),
        missing_row("lighthouse", "minimal page", "no Chromium"),
    ]
    lines = render_table(rows).splitlines()
    assert lines[0].startswith("| section")
    assert len({len(line) for line in lines}) == 1
    assert "cold load" in lines[2] and "MISSED" in lines[2] and "3.00x" in lines[2]
    assert lines[3].startswith("|   ") and "cold load" not in lines[3]
    assert "not measured: no Chromium" in lines[4]


def test_the_summary_counts_targets_and_names_the_missed_ones() -> None:
    rows = [
        ratio_row("cold load", "/ LCP", 900.0, 300.0, "ms", 1.5),
        limit_row("provider", "calls per 100 page views", 0, "", at_most=0),
        missing_row("shoppers", "p95", "not built", target="< 200 ms"),
    ]
    assert summary(rows) == "targets met: 1 of 3 (1 not measured); missed: / LCP"
