"""Product descriptions from the store platform, made safe to show as HTML.

An allow-list sanitiser on the standard library's HTML parser: only the listed tags and
attributes are written out, every attribute value and every piece of text is escaped again, so
whatever the parser made of malformed markup, the output is well-formed and holds no script.
"""

from __future__ import annotations

import re
from html import escape
from html.parser import HTMLParser

#: Tags kept (with the attributes below); any other tag is dropped and its text kept.
ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "div", "span", "strong", "b", "em", "i", "u", "s", "small", "sub", "sup",
        "code", "pre", "ul", "ol", "li", "h2", "h3", "h4", "h5", "h6", "a", "blockquote", "img",
        "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
    }
)
#: Tags written without an end tag.
VOID_TAGS = frozenset({"br", "hr", "img"})
#: Tags dropped together with everything inside them.
DROPPED_WITH_CONTENT = frozenset(
    {
        "script", "style", "iframe", "object", "form", "applet", "noscript", "noembed", "noframes",
        "template", "svg", "math", "title", "textarea", "select", "frameset", "xmp",
    }
)
#: The page has its own h1; a description's h1 becomes an h2.
RENAMED_TAGS = {"h1": "h2"}
#: Attributes kept on any allowed tag, and per tag; everything else (on*, style, class, id) goes.
GLOBAL_ATTRIBUTES = frozenset({"title"})
TAG_ATTRIBUTES = {
    "a": frozenset({"href"}),
    "img": frozenset({"src", "alt", "width", "height"}),
    "ol": frozenset({"start"}),
    "td": frozenset({"colspan", "rowspan"}),
    "th": frozenset({"colspan", "rowspan"}),
}
#: A start tag that implies the end of an open one (list item after list item...), unless one of
#: the boundary tags lies between them.
IMPLIED_ENDS = {
    "li": (frozenset({"li"}), frozenset({"ul", "ol"})),
    "p": (frozenset({"p"}), frozenset({"div", "blockquote", "li", "td", "th"})),
    "tr": (frozenset({"tr"}), frozenset({"table", "thead", "tbody", "tfoot"})),
    "td": (frozenset({"td", "th"}), frozenset({"tr", "table"})),
    "th": (frozenset({"td", "th"}), frozenset({"tr", "table"})),
}
NUMERIC_ATTRIBUTES = frozenset({"width", "height", "start", "colspan", "rowspan"})
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
IMAGE_SCHEMES = frozenset({"http", "https"})
LINK_REL = "noopener noreferrer"

#: Characters browsers ignore inside a URL's scheme (controls and whitespace).
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f]+")
_CONTROLS = re.compile(r"[\x00-\x1f\x7f]+")
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")


def safe_url(value: str, schemes: frozenset[str]) -> str | None:
    """The URL when it is absolute with one of `schemes` (entities already decoded by the
    parser), with control characters removed; None otherwise (javascript:, data:, relative...)."""
    compact = _IGNORED_IN_URL.sub("", value).lower()
    match = _SCHEME.match(compact)
    if match is None or match.group(1) not in schemes:
        return None
    return _CONTROLS.sub("", value).strip()


class _Sanitizer(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        #: Open allowed tags: (name, written); a tag whose attributes failed is open but unwritten.
        self._open: list[tuple[str, bool]] = []
        #: Open tags whose content is being dropped (innermost last).
        self._dropping: list[str] = []

    # -------------------------------------------------------------- tags

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, self_closing=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, self_closing=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, self_closing: bool) -> None:
        if tag in DROPPED_WITH_CONTENT:
            if not self_closing:
                self._dropping.append(tag)
            return
        if self._dropping:
            return
        tag = RENAMED_TAGS.get(tag, tag)
        if tag not in ALLOWED_TAGS:
            return
        self._close_implied(tag)
        kept = self._attributes(tag, attrs)
        written = kept is not None
        if kept is not None:
            rendered = "".join(f' {name}="{escape(value)}"' for name, value in kept)
            self.out.append(f"<{tag}{rendered}>")
        if tag not in VOID_TAGS and not self_closing:
            self._open.append((tag, written))
        elif tag not in VOID_TAGS and written:
            self.out.append(f"</{tag}>")

    def _close_implied(self, tag: str) -> None:
        ends, boundaries = IMPLIED_ENDS.get(tag, (frozenset(), frozenset()))
        for name, _ in reversed(self._open):
            if name in boundaries:
                return
            if name in ends:
                self._close(name)
                return

    def _close(self, tag: str) -> None:
        """Close the innermost open `tag` and every tag opened inside it."""
        while self._open:
            name, written = self._open.pop()
            if written:
                self.out.append(f"</{name}>")
            if name == tag:
                break

    def handle_endtag(self, tag: str) -> None:
        if self._dropping:
            if tag in self._dropping:
                while self._dropping.pop() != tag:
                    pass
            return
        tag = RENAMED_TAGS.get(tag, tag)
        if tag not in VOID_TAGS and any(name == tag for name, _ in self._open):
            self._close(tag)

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]]) -> list[tuple[str, str]] | None:
        """The attributes to write; None when the tag itself must not be written (an img
        without a safe src, a link without a safe href)."""
        allowed = GLOBAL_ATTRIBUTES | TAG_ATTRIBUTES.get(tag, frozenset())
        kept: dict[str, str] = {}
        for name, raw in attrs:
            if name not in allowed or raw is None or name in kept:
                continue
            value: str | None = raw
            if name == "href":
                value = safe_url(raw, LINK_SCHEMES)
            elif name == "src":
                value = safe_url(raw, IMAGE_SCHEMES)
            elif name in NUMERIC_ATTRIBUTES:
                value = (
                    raw.strip() if raw.strip().isascii() and raw.strip().isdigit() and len(raw.strip()) <= 5 else None
                )
            if value is not None:
                kept[name] = value
        if tag == "img" and "src" not in kept:
            return None
        if tag == "a":
            if "href" not in kept:
                return None
            kept["rel"] = LINK_REL
        return list(kept.items())

    # -------------------------------------------------------------- text

    def handle_data(self, data: str) -> None:
        if not self._dropping:
            self.out.append(escape(data, quote=False))

    # Comments, doctypes, processing instructions and CDATA sections are dropped.
    def handle_comment(self, data: str) -> None:
        pass

    def handle_decl(self, decl: str) -> None:
        pass

    def handle_pi(self, data: str) -> None:
        pass

    def unknown_decl(self, data: str) -> None:
        pass

    def finish(self) -> str:
        self.close()
        while self._open:
            name, written = self._open.pop()
            if written:
                self.out.append(f"</{name}>")
        return "".join(self.out)


def sanitize_html(html: str | None) -> str:
    """The description's safe HTML: allowed formatting kept, scripts, handlers, styles and
    unsafe URLs removed, every tag closed, links given rel="noopener noreferrer"."""
    if not html:
        return ""
    parser = _Sanitizer()
    parser.feed(str(html))
    return parser.finish()
