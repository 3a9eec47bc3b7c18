"""A product description as staff edit it: plain text (paragraphs split by a blank line, '- ' for
a list item), turned into the HTML the provider keeps and sanitised before it is saved."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from storefront.services.shopify.sanitize import sanitize_html

_BLOCKS = frozenset({"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "tr", "blockquote", "pre"})
_SPACES = re.compile(r"[ \t\r\f\v]+")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.parts.append("\n")
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in _BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCKS or tag == "li":
            self.parts.append("\n\n" if tag in _BLOCKS else "")

    def handle_data(self, data: str) -> None:
        self.parts.append(_SPACES.sub(" ", data.replace("\n", " ")))


def description_text(description_html: str) -> str:
    """The provider's HTML as editable text: paragraphs and list items on lines of their own."""
    parser = _Text()
    parser.feed(description_html or "")
    parser.close()
    lines = [line.strip() for line in "".join(parser.parts).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def description_html(text: str) -> str:
    """Staff's text as sanitised HTML: a paragraph per blank-line-separated block, '- ' lines as a
    list, single line breaks kept; every character escaped, so typed markup shows as text."""
    blocks = [block.strip("\n") for block in re.split(r"\n\s*\n", (text or "").replace("\r\n", "\n").strip())]
    written: list[str] = []
    for block in filter(None, blocks):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        if lines and all(line.startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{html.escape(line[2:].strip())}</li>" for line in lines)
            written.append(f"<ul>{items}</ul>")
        else:
            written.append("<p>" + "<br>".join(html.escape(line) for line in lines) + "</p>")
    return sanitize_html("".join(written))
