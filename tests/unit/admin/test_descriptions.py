"""The Product Editor's description: shown as text, saved as sanitised HTML."""

from storefront.services.admin.descriptions import description_html, description_text


def test_the_providers_html_is_edited_as_text() -> None:
    html = "<p>Soft <b>cotton</b> tee.</p><ul><li>100% cotton</li><li>Unisex fit</li></ul><p>Line one<br>Line two</p>"
    assert description_text(html) == "Soft cotton tee.\n\n- 100% cotton\n- Unisex fit\n\nLine one\nLine two"


def test_text_is_saved_as_paragraphs_lists_and_line_breaks() -> None:
    text = "Soft cotton tee.\n\n- 100% cotton\n- Unisex fit\n\nLine one\nLine two"
    assert description_html(text) == (
        "<p>Soft cotton tee.</p><ul><li>100% cotton</li><li>Unisex fit</li></ul><p>Line one<br>Line two</p>"
    )
    assert description_html(description_text(description_html(text))) == description_html(text)


def test_typed_markup_is_saved_as_text() -> None:
    assert description_html('<script>alert(1)</script> <a href="javascript:x">a</a> & b') == (
        '<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;a href="javascript:x"&gt;a&lt;/a&gt; &amp; b</p>'
    )
