"""Lighthouse on a page (the npm package in tools/, run on Debian's Chromium): scores, paint metrics, console
errors and the kind of the largest contentful paint's element, in the mobile or the desktop preset."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import httpx

from storefront.config import PROJECT_ROOT

LIGHTHOUSE = PROJECT_ROOT / "tools" / "node_modules" / ".bin" / "lighthouse"


def node_bin() -> Path:
    """The folder of the Node the Makefile installed for this platform (`make node-package` names it)."""
    package = subprocess.run(
        ["make", "-s", "--no-print-directory", "node-package"], cwd=PROJECT_ROOT, capture_output=True, text=True,
        check=True,
    ).stdout.strip()
    return PROJECT_ROOT / "tools" / "node_modules" / package / "bin"

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
#: Lighthouse's default (no --preset): a mid-range phone with simulated slow 4G and a 4x slower CPU.
MOBILE = "mobile"
DESKTOP = "desktop"
PRESETS = (MOBILE, DESKTOP)
TIMEOUT_S = 240
#: The element around the server-filled first view (the cards or the product put into the first HTML).
ISLAND_ATTRIBUTE = "data-first-view"
ISLAND_IMAGE, REACT_IMAGE, TEXT, UNKNOWN = "island image", "React image", "text", "unknown"
#: A CSS background image of an element that is not an <img> (the home page's hero).
BACKGROUND_IMAGE = "background image"


@dataclass(frozen=True)
class LcpElement:
    """The largest contentful paint's element as Lighthouse names it, and its kind (island/React image, text)."""

    kind: str = UNKNOWN
    selector: str = ""
    snippet: str = ""
    path: str = ""
    #: Whether Lighthouse's path leads to an element of the served HTML (False: made by the JavaScript).
    in_first_html: bool = False


@dataclass(frozen=True)
class LighthouseRun:
    """One Lighthouse run of one page: scores 0-100 per category and metrics, or the reason there are none."""

    preset: str = MOBILE
    scores: dict[str, float] = field(default_factory=dict)
    fcp_ms: float = float("nan")
    lcp_ms: float = float("nan")
    cls: float = float("nan")
    tbt_ms: float = float("nan")
    console_errors: list[str] = field(default_factory=list)
    lcp_element: LcpElement = LcpElement()
    error: str = ""


def lighthouse_run(url: str, chromium: str, preset: str = MOBILE) -> LighthouseRun:
    """Run Lighthouse once on `url` in `preset` and read its report, beside a plain GET of the page's HTML."""
    if not LIGHTHOUSE.exists():
        return LighthouseRun(preset, error=f"lighthouse not installed at {LIGHTHOUSE.relative_to(PROJECT_ROOT)}")
    try:
        first_html = httpx.get(url, timeout=30, follow_redirects=True).text
    except httpx.HTTPError as error:
        return LighthouseRun(preset, error=f"GET {url}: {type(error).__name__}: {error}"[:200])
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        env = {**os.environ, "PATH": f"{node_bin()}:{os.environ.get('PATH', '')}"}
        try:
            done = subprocess.run(
                [str(LIGHTHOUSE), url, f"--chrome-path={chromium}",
                 *(["--preset=desktop"] if preset == DESKTOP else []),
                 "--chrome-flags=--headless=new --no-sandbox --disable-gpu", "--output=json",
                 f"--output-path={report}", "--quiet", f"--only-categories={','.join(CATEGORIES)}"],
                env=env, capture_output=True, text=True, timeout=TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return LighthouseRun(preset, error=f"lighthouse timed out after {TIMEOUT_S} s")
        if done.returncode != 0 or not report.exists():
            output = (done.stderr or done.stdout).strip()
            return LighthouseRun(preset, error=output.splitlines()[-1][:200] if output else f"exit {done.returncode}")
        data = json.loads(report.read_text())
    return parse_report(data, first_html, preset)


def parse_report(data: dict, first_html: str, preset: str = MOBILE) -> LighthouseRun:
    """The figures of a Lighthouse JSON report; `first_html` is the page's served HTML (to place the LCP element)."""
    if data.get("runtimeError"):
        return LighthouseRun(preset, error=str(data["runtimeError"].get("message", ""))[:200])
    audits = data.get("audits", {})

    def numeric(audit: str) -> float:
        value = audits.get(audit, {}).get("numericValue")
        return float(value) if value is not None else float("nan")

    scores = {key: round((data["categories"][key].get("score") or 0) * 100) for key in CATEGORIES
              if key in data.get("categories", {})}
    errors = audits.get("errors-in-console", {}).get("details", {}).get("items", [])
    return LighthouseRun(
        preset, scores, numeric("first-contentful-paint"), numeric("largest-contentful-paint"),
        numeric("cumulative-layout-shift"), numeric("total-blocking-time"),
        [_console_error(item) for item in errors],
        lcp_element(audits.get("largest-contentful-paint-element", {}), first_html, _lcp_loads_a_resource(audits)),
    )


def _console_error(item: dict) -> str:
    """One `errors-in-console` item: its text and, when Lighthouse names one, the URL it came from."""
    url = (item.get("sourceLocation") or {}).get("url", "")
    return f"{str(item.get('description', ''))[:200]}{f' ({url})' if url else ''}"


def _lcp_loads_a_resource(audits: dict) -> bool:
    """Whether the largest paint waited for an image download (an image), or not (text).

    Lighthouse 12's `lcp-breakdown-insight` has resource load subparts only for an image; the element
    audit's own phases give a load time for one."""
    for table in audits.get("lcp-breakdown-insight", {}).get("details", {}).get("items", []):
        subparts = {item.get("subpart") for item in table.get("items", []) if isinstance(item, dict)}
        if subparts:
            return "resourceLoadDuration" in subparts
    for table in audits.get("largest-contentful-paint-element", {}).get("details", {}).get("items", []):
        for item in table.get("items", []):
            if item.get("phase") == "Load Time":
                return bool(item.get("timing"))
    return False


def lcp_element(audit: dict, first_html: str, loads_a_resource: bool = False) -> LcpElement:
    """The LCP element of Lighthouse 12's `largest-contentful-paint-element` audit, with its kind."""
    node = next((item["node"] for table in audit.get("details", {}).get("items", [])
                 for item in table.get("items", []) if isinstance(item.get("node"), dict)), None)
    if node is None:
        return LcpElement()
    path, snippet = node.get("path", ""), node.get("snippet", "")
    steps = _path_steps(path)
    document = parse_html(first_html)
    is_image = (steps[-1][1] == "IMG") if steps else snippet.lower().startswith("<img")
    if not is_image:
        kind = BACKGROUND_IMAGE if loads_a_resource else TEXT
    elif steps and _in_island(steps, document):
        kind = ISLAND_IMAGE
    else:
        kind = REACT_IMAGE
    served = kind == ISLAND_IMAGE or bool(steps and steps[0][1] == "HTML" and _walk(document, steps))
    return LcpElement(kind, node.get("selector", ""), snippet, path, served)


def _path_steps(path: str) -> list[tuple[int, str]]:
    """Lighthouse's node path "1,HTML,1,BODY,0,DIV" as (index among siblings, node name) pairs."""
    parts = path.split(",") if path else []
    try:
        return [(int(parts[i]), parts[i + 1].upper()) for i in range(0, len(parts) - 1, 2)]
    except ValueError:  # 'a' marks a shadow root: no such thing in the store's markup
        return []


@dataclass
class Node:
    """An element, comment or non-blank text node of the served HTML, as the DOM counts siblings."""

    name: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document")
        self.current = self.root

    def _add(self, node: Node) -> Node:
        node.parent = self.current
        self.current.children.append(node)
        return node

    def handle_decl(self, decl: str) -> None:
        self._add(Node("#doctype"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = self._add(Node(tag.upper(), dict(attrs)))
        if tag not in VOID:
            self.current = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._add(Node(tag.upper(), dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.current
        while node is not None and node.name != tag.upper():
            node = node.parent
        if node is not None and node.parent is not None:
            self.current = node.parent

    def handle_data(self, data: str) -> None:
        # The DOM's path skips blank text nodes; adjacent text is one node.
        if data.strip() and not (self.current.children and self.current.children[-1].name == "#text"):
            self._add(Node("#text"))

    def handle_comment(self, data: str) -> None:
        self._add(Node("#comment"))


def parse_html(html: str) -> Node:
    """The served HTML as a tree of the nodes Lighthouse's path counts (well-formed markup, as React renders)."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def _live_children(node: Node) -> list[Node]:
    """The children as the hydrated page has them: Emotion moves its server-rendered <style> tags into <head>."""
    return [child for child in node.children if not (child.name == "STYLE" and "data-emotion" in child.attrs)]


def _walk(start: Node, steps: list[tuple[int, str]]) -> Node | None:
    node = start
    for index, name in steps:
        children = _live_children(node)
        if index >= len(children) or children[index].name != name:
            return None
        node = children[index]
    return node


def _in_island(steps: list[tuple[int, str]], document: Node) -> bool:
    """Whether the path leads to an element inside `[data-first-view]` of the served HTML.

    A path from the document (the element still on the page) is followed from the top. A path that does not
    start at <html> belongs to an element removed after it painted (the page's own cards replaced the island):
    it starts below the removed subtree's root, which is the island element or one of its ancestors."""
    if steps[0][1] == "HTML":
        found = _walk(document, steps)
        return found is not None and _inside_island(found)
    for island in _islands(document):
        root: Node | None = island
        while root is not None:
            found = _walk(root, steps)
            if found is not None and _inside_island(found) and found is not island:
                return True
            root = root.parent
    return False


def _inside_island(node: Node) -> bool:
    ancestor = node.parent
    while ancestor is not None:
        if ISLAND_ATTRIBUTE in ancestor.attrs:
            return True
        ancestor = ancestor.parent
    return False


def _islands(node: Node) -> list[Node]:
    found = [node] if ISLAND_ATTRIBUTE in node.attrs else []
    for child in node.children:
        found += _islands(child)
    return found
