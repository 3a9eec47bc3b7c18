"""Product descriptions from the store platform are shown only after sanitising."""

from __future__ import annotations

import pytest

from storefront.services.shopify.sanitize import sanitize_html


def test_plain_formatting_survives() -> None:
    html = (
        "<h2>Details</h2><p>Soft <strong>cotton</strong>, <em>light</em> and <u>easy</u>.<br>New line</p>"
        "<ul><li>One</li><li>Two</li></ul><ol><li>First</li></ol><blockquote>Quote</blockquote>"
        "<table><thead><tr><th>Size</th></tr></thead><tbody><tr><td>M</td></tr></tbody></table>"
    )
    assert sanitize_html(html) == html


def test_empty_or_missing_description_is_empty() -> None:
    assert sanitize_html("") == ""
    assert sanitize_html(None) == ""


def test_script_tags_are_removed_with_their_content() -> None:
    assert sanitize_html("<p>Hi</p><script>alert('x')</script><p>there</p>") == "<p>Hi</p><p>there</p>"
    assert sanitize_html("<SCRIPT type='text/javascript'>steal()</SCRIPT>ok") == "ok"


@pytest.mark.parametrize("tag", ["style", "iframe", "object", "form", "noscript", "svg", "template"])
def test_dangerous_containers_are_removed_with_their_content(tag: str) -> None:
    assert sanitize_html(f"<p>a</p><{tag}><p>hidden</p><b>x</b></{tag}><p>b</p>") == "<p>a</p><p>b</p>"


def test_embed_is_dropped_and_what_follows_is_kept() -> None:
    assert sanitize_html('<embed src="https://x.example/a.swf">after') == "after"


def test_event_handler_attributes_are_removed() -> None:
    assert sanitize_html('<img src="https://cdn.example/a.png" onerror="alert(1)">') == '<img src="https://cdn.example/a.png">'
    assert sanitize_html("<p onclick=alert(1) ONMOUSEOVER='x'>t</p>") == "<p>t</p>"


def test_an_image_without_a_safe_source_is_dropped() -> None:
    assert sanitize_html("<img src=x onerror=alert(1)>") == ""
    assert sanitize_html('<img src="data:image/svg+xml;base64,PHN2Zz4=">') == ""


def test_style_class_and_id_attributes_are_removed() -> None:
    assert sanitize_html('<span style="position:fixed" class="c" id="i">t</span>') == "<span>t</span>"


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java&#x09;script:alert(1)",
        "java\tscript:alert(1)",
        "  javascript:alert(1)",
        "&#106;avascript:alert(1)",
        "javascript&colon;alert(1)",
        "&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;:alert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "vbscript:msgbox(1)",
        "VBScript:msgbox(1)",
    ],
)
def test_unsafe_link_targets_are_removed(href: str) -> None:
    assert sanitize_html(f'<a href="{href}">click</a>') == "click"


def test_safe_links_keep_their_target_and_open_without_referrer() -> None:
    assert sanitize_html('<a href="https://example.com/a?x=1&amp;y=2" target="_top">go</a>') == (
        '<a href="https://example.com/a?x=1&amp;y=2" rel="noopener noreferrer">go</a>'
    )
    assert sanitize_html('<a href="mailto:help@example.com" rel="opener">mail</a>') == (
        '<a href="mailto:help@example.com" rel="noopener noreferrer">mail</a>'
    )


def test_unclosed_tags_are_closed_and_stray_end_tags_ignored() -> None:
    assert sanitize_html("<p><b>bold<i>both</p>after</b></div>") == "<p><b>bold<i>both</i></b></p>after"
    assert sanitize_html("<ul><li>a<li>b</ul>") == "<ul><li>a</li><li>b</li></ul>"


def test_unknown_tags_are_dropped_but_their_text_kept() -> None:
    assert sanitize_html("<marquee>hello</marquee> <custom-tag>world</custom-tag>") == "hello world"


def test_text_is_escaped() -> None:
    assert sanitize_html("<p>1 < 2 & &lt;script&gt;</p>") == "<p>1 &lt; 2 &amp; &lt;script&gt;</p>"


def test_attribute_values_cannot_break_out() -> None:
    out = sanitize_html('<span title="&quot;><script>alert(1)</script>">x</span>')
    assert out == '<span title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">x</span>'


def test_comments_and_truncated_markup_hold_no_tags() -> None:
    assert sanitize_html("<!-- <script>x</script> --><p>a</p><script") == "<p>a</p>&lt;script"


def test_nested_noscript_trick_yields_no_markup() -> None:
    assert "<img" not in sanitize_html('<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p>')


def test_h1_becomes_h2() -> None:
    assert sanitize_html("<h1>Title</h1>") == "<h2>Title</h2>"
