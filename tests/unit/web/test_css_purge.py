"""The Radix stylesheet purge: which rules stay, and a compiled store's usage read from `.web`."""

from __future__ import annotations

from pathlib import Path

import pytest

from storefront.web import css_purge
from storefront.web.css_purge import RadixUsage, purge

CSS = """
:root, .light { --ruby-9: #e54666; }
.rt-Button { cursor: pointer; }
.rt-Button.rt-r-size-2 { height: 32px; }
.rt-Slider { height: 4px; }
.rt-Button:where(.rt-variant-classic), .rt-Slider.rt-variant-soft { color: red; }
@media (min-width: 768px) { .md\\:rt-r-gtc-2 { --x: 1; } .lg\\:rt-r-gtc-2 { --x: 2; } }
@media (min-width: 1024px) { .xl\\:rt-r-size-1 { --y: 1; } }
.rt-Button:not(.rt-Slider) { content: "}{"; }
@keyframes rt-fade { from { opacity: 0; } to { opacity: 1; } }
.store-card { color: blue; }
[data-accent-color='ruby'] { --accent-9: var(--ruby-9); }
"""

USAGE = RadixUsage(words={"rt-Button", "rt-r-size", "rt-variant"}, responsive={"md:rt-r-gtc"})


def test_rules_of_unused_components_go_and_the_rest_stays() -> None:
    out = purge(CSS, USAGE).css
    assert ".rt-Slider {" not in out and ".rt-Slider{" not in out
    # The composed `rt-r-size-2` and `rt-variant-soft` stay with their component, the unused one goes.
    assert ".rt-Button.rt-r-size-2{ height: 32px; }" in out
    assert ".rt-Button:where(.rt-variant-classic){" in out and ".rt-Slider.rt-variant-soft" not in out
    # Classes inside :not() are not needed on the page; strings with braces survive.
    assert '.rt-Button:not(.rt-Slider){ content: "}{"; }' in out
    for kept in (":root,.light{", "@keyframes rt-fade{", ".store-card{", "[data-accent-color='ruby']{"):
        assert kept in out


def test_responsive_classes_stay_only_for_the_breakpoints_and_props_the_pages_use() -> None:
    out = purge(CSS, USAGE).css
    assert ".md\\:rt-r-gtc-2{" in out
    assert "lg\\:rt-r-gtc-2" not in out
    assert "@media (min-width: 1024px)" not in out  # emptied, so dropped


def test_the_purged_stylesheet_names_a_subset_of_the_classes() -> None:
    result = purge(CSS, USAGE)
    assert css_purge.selector_classes(result.css) < css_purge.selector_classes(CSS)
    assert (result.rules_before, result.rules_kept) == (11, 8)


@pytest.mark.parametrize("broken", [".a { color: red;", ".a { content: \"x }", "/* open", ".a } "])
def test_a_stylesheet_it_cannot_read_stops_the_build(broken: str) -> None:
    with pytest.raises(css_purge.CssSyntaxError):
        purge(broken, USAGE)


def _web_dir(tmp_path: Path, page: str) -> Path:
    """A `.web` with one compiled page and a two-component Radix Themes package."""
    web = tmp_path / ".web"
    components = web / "node_modules" / "@radix-ui" / "themes" / "dist" / "esm" / "components"
    components.mkdir(parents=True)
    (components / "icon-button.js").write_text(
        'import{baseButtonPropDefs as p}from"./_internal/base-button.props.js";'
        'const c="rt-IconButton";export{c as IconButton};'
    )
    (components / "_internal").mkdir()
    (components / "_internal" / "base-button.props.js").write_text(
        'const p={size:{type:"enum",className:"rt-r-size",values:["1","2"],responsive:!0},'
        'columns:{type:"enum | string",className:"rt-r-gtc",responsive:!0}};export{p as baseButtonPropDefs};'
    )
    (components / "slider.js").write_text('const c="rt-SliderRoot";export{c as Slider};')
    (web / "app" / "routes").mkdir(parents=True)
    (web / "app" / "routes" / "index.jsx").write_text(page)
    return web


def test_usage_follows_the_pages_imports_into_radix_and_reads_responsive_props(tmp_path: Path) -> None:
    web = _web_dir(tmp_path, 'import { IconButton as RadixThemesIconButton } from "@radix-ui/themes";\n'
                             'jsx(RadixThemesIconButton,{size:({ ["initial"] : "1", ["sm"] : "2" })})')
    usage = css_purge.radix_usage(web)
    assert usage.uses("rt-IconButton") and usage.uses("rt-r-size-2") and usage.uses("sm:rt-r-size-2")
    assert not usage.uses("rt-SliderRoot")
    assert not usage.uses("md:rt-r-size-2") and not usage.uses("sm:rt-r-gtc-2")
    assert usage.uses("store-card")  # the store's own classes are never judged


def test_usage_counts_the_words_of_extra_sources(tmp_path: Path) -> None:
    web = _web_dir(tmp_path, 'import { IconButton } from "@radix-ui/themes";')
    extra = tmp_path / "island.py"
    extra.write_text('CLASSES = "rt-SliderRoot xl:rt-r-gtc-2"')
    usage = css_purge.radix_usage(web, [extra])
    assert usage.uses("rt-SliderRoot")
    # A breakpoint's class written out whole (the server's card markup) is in use; another is not.
    assert usage.uses("xl:rt-r-gtc-2") and not usage.uses("lg:rt-r-gtc-2")


def test_an_import_it_cannot_follow_stops_the_build(tmp_path: Path) -> None:
    web = _web_dir(tmp_path, 'import { Carousel } from "@radix-ui/themes";')
    with pytest.raises(css_purge.PurgeInputError, match="carousel.js"):
        css_purge.radix_usage(web)


COLOURS = """
:root, .light { --ruby-9: #e54666; --amber-9: #ffc53d; --mauve-9: #8e8c99; --accent-9: var(--ruby-9); }
@supports (color: color(display-p3 1 1 1)) { :root { --amber-9: color(display-p3 1 .77 .26); } }
[data-accent-color='ruby'] { --accent-9: var(--ruby-9); }
[data-accent-color=amber] { --accent-9: var(--amber-9); }
.radix-themes:where([data-gray-color=mauve]) { --gray-9: var(--mauve-9); }
.rt-Button { content: "--amber-9: x;"; }
"""


def test_colour_scales_stay_only_when_the_store_names_them() -> None:
    out = purge(COLOURS, RadixUsage(words={"rt-Button"}, colours=frozenset({"ruby"}))).css
    assert "--ruby-9: #e54666" in out and "[data-accent-color='ruby']" in out
    assert "--amber-9: #ffc53d" not in out and "color(display-p3" not in out
    assert "[data-accent-color=amber]" not in out
    # The grays stay (the theme may pick any of them in the browser); a string is not a declaration.
    assert "--mauve-9: #8e8c99" in out and "[data-gray-color=mauve]" in out
    assert '.rt-Button{ content: "--amber-9: x;"; }' in out
    # Without a colour list every scale stays.
    assert "[data-accent-color=amber]" in purge(COLOURS, RadixUsage(words={"rt-Button"})).css


def test_usage_reads_the_colours_the_pages_and_the_store_name(tmp_path: Path) -> None:
    web = _web_dir(tmp_path, 'import { IconButton } from "@radix-ui/themes";\n'
                             'jsx(IconButton,{color:"amber",css:{background:"var(--teal-3)"}})')
    extra = tmp_path / "tones.py"
    extra.write_text('TONES = ("green", "reddish")')
    usage = css_purge.radix_usage(web, [extra])
    assert usage.colours == {"amber", "teal", "green"}
    assert usage.keeps_colour("slate") and not usage.keeps_colour("red")
