"""Reading a Lighthouse 12 JSON report: metrics, console errors, the LCP element's kind and the mobile targets."""

from __future__ import annotations

from bench.lighthouse import BACKGROUND_IMAGE, ISLAND_IMAGE, REACT_IMAGE, TEXT, UNKNOWN, LighthouseRun, parse_report
from bench.lighthouse_report import MINIMAL, misses, page_table, target_rows

#: The served HTML of a listing: a heading, then the server-filled island with one card (React's comment kept).
FIRST_HTML = """<!DOCTYPE html>
<html lang="en"><head><title>Products</title><meta charset="utf-8"></head>
<body>
  <div id="root"><header><h1>Products</h1></header>
    <main><!-- --><section class="grid">
      <div data-first-view=""><div class="card"><a href="/product/1"><div class="frame">
        <img src="/img/1.webp" alt="Tee"></div></a><p>Tee</p></div></div>
      <div class="cards"><div class="card"><a href="/product/2"><div class="frame">
        <img src="/img/2.webp" alt="Hoodie"></div></a></div></div>
    </section></main>
  </div>
</body></html>"""
ISLAND_IMG_PATH = "1,HTML,1,BODY,0,DIV,1,MAIN,1,SECTION,0,DIV,0,DIV,0,A,0,DIV,0,IMG"
REACT_IMG_PATH = "1,HTML,1,BODY,0,DIV,1,MAIN,1,SECTION,1,DIV,0,DIV,0,A,0,DIV,0,IMG"


def report(lcp_path: str | None = ISLAND_IMG_PATH, snippet: str = '<img src="/img/1.webp" alt="Tee">', *,
           lcp_ms: float = 3400.0, fcp_ms: float = 3300.0, cls: float = 0.0, tbt_ms: float = 120.0,
           perf: float = 0.81, others: float = 1.0, console: list[str] | None = None,
           image_loaded: bool | None = None) -> dict:
    """A Lighthouse 12 report as far as the bench reads it (the shape of a real run on this machine)."""
    node_table = {"type": "table", "headings": [{"key": "node", "valueType": "node", "label": "Element"}],
                  "items": [] if lcp_path is None else [{"node": {
                      "type": "node", "lhId": "page-0-IMG", "path": lcp_path,
                      "selector": "div.card > a > div.frame > img", "snippet": snippet, "nodeLabel": "Tee"}}]}
    if image_loaded is None:
        image_loaded = lcp_path is not None and lcp_path.endswith("IMG")
    phases = {"type": "table", "headings": [{"key": "phase"}], "items": [
        {"phase": "TTFB", "timing": 450.0}, {"phase": "Load Delay", "timing": 0},
        {"phase": "Load Time", "timing": 130.0 if image_loaded else 0}, {"phase": "Render Delay", "timing": 170.0}]}
    subparts = ["timeToFirstByte", *(["resourceLoadDelay", "resourceLoadDuration"] if image_loaded else []),
                "elementRenderDelay"]
    return {
        "lighthouseVersion": "12.8.2",
        "configSettings": {"formFactor": "mobile", "throttlingMethod": "simulate"},
        "categories": {"performance": {"score": perf}, "accessibility": {"score": others},
                       "best-practices": {"score": others}, "seo": {"score": others}},
        "audits": {
            "first-contentful-paint": {"numericValue": fcp_ms, "numericUnit": "millisecond"},
            "largest-contentful-paint": {"numericValue": lcp_ms, "numericUnit": "millisecond"},
            "cumulative-layout-shift": {"numericValue": cls, "numericUnit": "unitless"},
            "total-blocking-time": {"numericValue": tbt_ms, "numericUnit": "millisecond"},
            "largest-contentful-paint-element": {"scoreDisplayMode": "informative",
                                                 "details": {"type": "list", "items": [node_table, phases]}},
            "lcp-breakdown-insight": {"details": {"type": "list", "items": [
                {"type": "table", "items": [{"subpart": name, "duration": 10.0} for name in subparts]}]}},
            "errors-in-console": {"score": 0 if console else 1, "details": {"type": "table", "items": [
                {"source": "console.error", "description": text,
                 **({"sourceLocation": {"url": "http://x/favicon.ico"}} if text == "404" else {})}
                for text in console or []]}},
        },
    }


def test_the_metrics_scores_and_console_errors_are_read() -> None:
    run = parse_report(report(console=["Minified React error #418"]), FIRST_HTML)
    assert (run.fcp_ms, run.lcp_ms, run.cls, run.tbt_ms) == (3300.0, 3400.0, 0.0, 120.0)
    assert run.scores == {"performance": 81, "accessibility": 100, "best-practices": 100, "seo": 100}
    assert run.console_errors == ["Minified React error #418"]
    assert parse_report(report(console=["404"]), FIRST_HTML).console_errors == ["404 (http://x/favicon.ico)"]
    assert run.lcp_element.selector == "div.card > a > div.frame > img"


def test_an_image_inside_the_first_view_element_is_an_island_image() -> None:
    assert parse_report(report(ISLAND_IMG_PATH), FIRST_HTML).lcp_element.kind == ISLAND_IMAGE


def test_an_image_outside_the_first_view_element_is_a_react_image() -> None:
    element = parse_report(report(REACT_IMG_PATH), FIRST_HTML).lcp_element
    assert (element.kind, element.in_first_html) == (REACT_IMAGE, True)


def test_an_image_missing_from_the_first_html_is_a_react_image() -> None:
    path = "1,HTML,1,BODY,0,DIV,1,MAIN,1,SECTION,2,DIV,0,DIV,0,A,0,DIV,0,IMG"
    element = parse_report(report(path), FIRST_HTML).lcp_element
    assert (element.kind, element.in_first_html) == (REACT_IMAGE, False)


def test_an_island_image_removed_after_it_painted_is_still_an_island_image() -> None:
    # Lighthouse gives a removed node's path from below the removed subtree's root (here the island itself).
    detached = "0,DIV,0,A,0,DIV,0,IMG"
    assert parse_report(report(detached), FIRST_HTML).lcp_element.kind == ISLAND_IMAGE
    # ... or from below an ancestor of the island removed with it.
    assert parse_report(report("0,DIV,0,DIV,0,A,0,DIV,0,IMG"), FIRST_HTML).lcp_element.kind == ISLAND_IMAGE


def test_a_removed_image_that_was_not_in_the_island_is_a_react_image() -> None:
    assert parse_report(report("0,A,0,DIV,0,IMG"), FIRST_HTML).lcp_element.kind == REACT_IMAGE
    assert parse_report(report("0,DIV,0,A,0,DIV,0,IMG"), FIRST_HTML.replace("data-first-view", "data-x"),
                        ).lcp_element.kind == REACT_IMAGE


def test_emotion_styles_moved_to_the_head_do_not_count_in_the_path() -> None:
    served = FIRST_HTML.replace(
        '<section class="grid">', '<style data-emotion="css 1x">.a{}</style><section class="grid">'
    )
    element = parse_report(report(ISLAND_IMG_PATH), served).lcp_element
    assert (element.kind, element.in_first_html) == (ISLAND_IMAGE, True)


def test_text_and_a_missing_element_are_named() -> None:
    heading = parse_report(report("1,HTML,1,BODY,0,DIV,0,HEADER,0,H1", "<h1>"), FIRST_HTML)
    assert heading.lcp_element.kind == TEXT
    # Text inside the island is still text: only images are told apart by where they come from.
    island_text = parse_report(report(ISLAND_IMG_PATH.rsplit(",", 8)[0] + ",0,DIV,1,P", "<p>"), FIRST_HTML)
    assert island_text.lcp_element.kind == TEXT
    assert parse_report(report(None), FIRST_HTML).lcp_element.kind == UNKNOWN


def test_an_element_whose_largest_paint_loaded_an_image_is_a_background_image() -> None:
    hero = parse_report(report("1,HTML,1,BODY,0,DIV,0,HEADER", "<header>", image_loaded=True), FIRST_HTML)
    assert hero.lcp_element.kind == BACKGROUND_IMAGE
    # Without the insight audit, the element audit's load time tells the same.
    data = report("1,HTML,1,BODY,0,DIV,0,HEADER", "<header>", image_loaded=True)
    del data["audits"]["lcp-breakdown-insight"]
    assert parse_report(data, FIRST_HTML).lcp_element.kind == BACKGROUND_IMAGE


def test_a_runtime_error_is_a_reason_not_figures() -> None:
    run = parse_report({"runtimeError": {"code": "NO_FCP", "message": "The page did not paint any content."}}, "")
    assert run.error == "The page did not paint any content." and run.scores == {}


def minimal() -> LighthouseRun:
    return parse_report(report("1,HTML,1,BODY,0,MAIN,0,H1", "<h1>", lcp_ms=2000.0, perf=0.90), "<html></html>")


FAST = {"fcp_ms": 900.0, "lcp_ms": 1500.0, "tbt_ms": 40.0}


def test_a_page_meeting_every_mobile_target_misses_none() -> None:
    assert misses(parse_report(report(**FAST, perf=0.95), FIRST_HTML), minimal()) == []


def test_each_missed_mobile_target_is_named_with_its_figure() -> None:
    run = parse_report(report(lcp_ms=3100.0, perf=0.94, others=0.92, cls=0.0123, console=["a", "b"]), FIRST_HTML)
    assert misses(run, minimal()) == ["LCP 1.55x", "FCP 3300 ms", "LCP 3100 ms", "perf 94", "a11y 92",
                                      "best practices 92", "SEO 92", "CLS 0.012", "2 console errors"]
    # A shift that Lighthouse shows as 0.000 counts as none.
    assert misses(parse_report(report(**FAST, cls=0.0004, perf=0.99), FIRST_HTML), minimal()) == []


def test_each_absolute_figure_has_its_own_limit() -> None:
    run = parse_report(report(fcp_ms=1201.0, lcp_ms=2001.0, tbt_ms=151.0, perf=0.99), FIRST_HTML)
    assert misses(run, minimal()) == ["FCP 1201 ms", "LCP 2001 ms", "TBT 151 ms"]
    edge = parse_report(report(fcp_ms=1200.0, lcp_ms=2000.0, tbt_ms=150.0, perf=0.99), FIRST_HTML)
    assert misses(edge, minimal()) == []


def test_a_noindex_page_is_not_held_to_the_seo_score() -> None:
    run = parse_report(report(**FAST, perf=0.99), FIRST_HTML)
    noindex = LighthouseRun(run.preset, {**run.scores, "seo": 66}, run.fcp_ms, run.lcp_ms, run.cls, run.tbt_ms)
    assert misses(noindex, minimal(), "/cart") == []
    assert misses(noindex, minimal(), "/products") == ["SEO 66"]
    rows = {row.measure: row for row in target_rows({"/cart": noindex, "/products": run}, minimal())}
    assert rows["SEO score (pages meant for search engines)"].met is True
    assert rows["perf score"].met is True


def test_the_target_rows_judge_the_worst_page() -> None:
    good = parse_report(report(**FAST, perf=0.99), FIRST_HTML)
    slow = parse_report(report(lcp_ms=11800.0, perf=0.66, console=["418"]), FIRST_HTML)
    rows = {row.measure: row for row in target_rows({"/": good, "/products": slow}, minimal())}
    assert rows["LCP"].met is False and rows["LCP"].ratio == 5.9 and "(/products)" in rows["LCP"].value
    assert rows["LCP (simulated)"].met is False and rows["LCP (simulated)"].value == "11800 ms (/products)"
    assert rows["TBT (simulated)"].met is True
    assert rows["perf score"].met is False and rows["perf score"].value == "66 (/products)"
    assert rows["perf score"].reference == "90"
    assert rows["SEO score"].met is True and rows["CLS"].met is True
    assert rows["console errors (errors-in-console)"].met is False
    all_good = target_rows({"/": good}, minimal())
    assert all(row.met is True for row in all_good) and len(all_good) == 10


def test_an_unmeasured_page_leaves_a_met_target_unjudged() -> None:
    good = parse_report(report(**FAST, perf=0.99), FIRST_HTML)
    rows = target_rows({"/": good, "/products": LighthouseRun(error="timed out")}, minimal())
    assert all(row.met is None for row in rows)
    assert "not measured: /products" in rows[0].value


def test_the_page_table_has_a_mobile_and_a_desktop_row_per_page() -> None:
    runs = {MINIMAL: {"mobile": minimal(), "desktop": minimal()},
            "/products": {"mobile": parse_report(report(lcp_ms=11800.0), FIRST_HTML),
                          "desktop": parse_report(report(lcp_ms=2000.0), FIRST_HTML, "desktop")}}
    lines = page_table(runs).splitlines()
    assert len(lines) == 6
    assert "/products" in lines[4] and "mobile" in lines[4] and "5.90x" in lines[4] and "island image" in lines[4]
    assert "MISSED: LCP 5.90x, FCP 3300 ms, LCP 11800 ms, perf 81" in lines[4]
    assert "desktop" in lines[5] and "1.00x" in lines[5] and "MISSED" not in lines[5]
