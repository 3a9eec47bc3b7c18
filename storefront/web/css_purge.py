"""Purge the Radix Themes stylesheet of the rules the compiled store cannot use (plain Python, no reflex).

Radix Themes ships one stylesheet (about 800 KB) for every component it has. A rule is dropped only
when one of its selectors' Radix class names (`rt-...`, or a breakpoint's `md:rt-...`) can appear
on no page:

- a Radix class is in use when it is a word of the compiled pages in `.web`, of the Radix modules
  they import (following those modules' own imports) or of the store's Python; a class Radix
  composes at run time (`rt-r-size-2` from the prop definition's `rt-r-size` and the value) is in
  use when its prefix is, whatever the value;
- a breakpoint's class (`md:rt-r-gtc-2`) is in use when a page passes that prop responsively with
  that breakpoint (`columns:({ ["initial"] : "1", ["md"] : "2" })`);
- a colour scale (`--amber-9`, `[data-accent-color=amber]`) stays when the compiled pages or the
  store's Python name it (a prop's value, `var(--amber-9)`, a status's colour in a constant); the
  grays always stay (the theme picks the gray that goes with the accent at run time);
- every other selector (the reset, `.radix-themes`, `.light`/`.dark`, `:root`, the store's own
  classes, keyframes, fonts) is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

#: Radix's breakpoint prefixes of responsive classes (`md:rt-r-size-2`).
BREAKPOINTS = ("initial", "xs", "sm", "md", "lg", "xl")
_RADIX_CLASS = re.compile(r"^(?:(?:" + "|".join(BREAKPOINTS) + r"):)?-?rt-")
#: Words of the built files: class names (with a breakpoint prefix) are made of these characters.
_WORD = re.compile(r"[A-Za-z0-9_:-]+")
#: At-rules whose blocks hold rules to judge; every other block (keyframes, font-face) is kept whole.
_GROUPING = ("@media", "@supports", "@layer", "@container", "@scope", "@document")


#: Radix Themes' colour scales, each a set of custom properties (`--amber-1` ... `--amber-a12`,
#: `--amber-contrast`, ...) in light and dark, sRGB and P3, and an accent rule.
COLOUR_SCALES = (
    "tomato", "red", "ruby", "crimson", "pink", "plum", "purple", "violet", "iris", "indigo", "blue", "cyan",
    "teal", "jade", "green", "grass", "brown", "orange", "sky", "mint", "lime", "yellow", "amber", "gold",
    "bronze", "gray", "mauve", "slate", "sage", "olive", "sand",
)
#: Kept whatever the pages name: Radix's Theme resolves `grayColor="auto"` to one of these in the browser.
GRAY_SCALES = frozenset({"gray", "mauve", "slate", "sage", "olive", "sand"})
_SCALE_PROPERTY = re.compile(r"--(" + "|".join(COLOUR_SCALES) + r")-[a-z0-9-]+")
_ACCENT_SELECTOR = re.compile(r"""\[data-(?:accent|gray)-color=["']?([a-z]+)["']?\]""")


def colours_named(text: str) -> set[str]:
    """The colour scales `text` names as a word of its own (`"amber"`, `var(--amber-9)`, not `amberish`)."""
    return {name for name in COLOUR_SCALES if re.search(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", text)}


class CssSyntaxError(ValueError):
    """The stylesheet could not be read (unbalanced braces or an unterminated string or comment)."""


@dataclass
class Node:
    """One statement: a rule (`prelude{body}`), a grouping at-rule with children, or `@...;`."""

    prelude: str
    body: str | None = None
    children: list[Node] | None = None
    kept: bool = True

    def css(self) -> str:
        if self.children is not None:
            inner = "".join(child.css() for child in self.children)
            return f"{self.prelude}{{{inner}}}" if inner else ""
        if self.body is None:
            return f"{self.prelude};"
        return f"{self.prelude}{{{self.body}}}" if self.kept else ""


def _skip_string(text: str, i: int) -> int:
    """The index after the string starting at text[i]."""
    quote, i = text[i], i + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    raise CssSyntaxError("unterminated string")


def _skip_comment(text: str, i: int) -> int:
    end = text.find("*/", i + 2)
    if end < 0:
        raise CssSyntaxError("unterminated comment")
    return end + 2


def _block_end(text: str, i: int) -> int:
    """The index of the `}` closing the block whose body starts at text[i]."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_string(text, i)
            continue
        if text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    raise CssSyntaxError("unbalanced braces")


def parse(text: str) -> list[Node]:
    """The stylesheet's statements (comments dropped)."""
    nodes: list[Node] = []
    i, n = 0, len(text)
    prelude: list[str] = []
    while i < n:
        c = text[i]
        if c in "\"'":
            j = _skip_string(text, i)
            prelude.append(text[i:j])
            i = j
            continue
        if text.startswith("/*", i):
            i = _skip_comment(text, i)
            continue
        if c == "\\":
            prelude.append(text[i:i + 2])
            i += 2
            continue
        if c == ";":
            head = "".join(prelude).strip()
            if head:
                nodes.append(Node(head))
            prelude, i = [], i + 1
            continue
        if c == "{":
            head = "".join(prelude).strip()
            end = _block_end(text, i + 1)
            body = text[i + 1:end]
            if head.lower().startswith(_GROUPING):
                nodes.append(Node(head, children=parse(body)))
            else:
                nodes.append(Node(head, body=body))
            prelude, i = [], end + 1
            continue
        if c == "}":
            raise CssSyntaxError("unbalanced braces")
        prelude.append(c)
        i += 1
    if "".join(prelude).strip():
        raise CssSyntaxError("a statement without its end")
    return nodes


def _split_top_level(text: str, separator: str = ",") -> list[str]:
    """`text` split on `separator` outside parentheses, brackets and strings: a selector list's
    selectors (commas), or a rule body's declarations (semicolons)."""
    parts, depth, current, i = [], 0, [], 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            j = _skip_string(text, i)
            current.append(text[i:j])
            i = j
            continue
        if c == "\\":
            current.append(text[i:i + 2])
            i += 2
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == separator and depth == 0:
            parts.append("".join(current))
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    parts.append("".join(current))
    return parts


_CLASS = re.compile(r"\.((?:[A-Za-z0-9_-]|\\.)+)")
_UNESCAPE = re.compile(r"\\(.)")


def required_classes(selector: str) -> set[str]:
    """The class names a selector needs on the page: those outside `:is()`, `:not()`, ... and strings."""
    plain, depth, i = [], 0, 0
    while i < len(selector):
        c = selector[i]
        if c in "\"'":
            i = _skip_string(selector, i)
            continue
        if c == "\\":
            if depth == 0:
                plain.append(selector[i:i + 2])
            i += 2
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0:
            plain.append(c)
        i += 1
    return {_UNESCAPE.sub(r"\1", name) for name in _CLASS.findall("".join(plain))}


def selector_classes(css: str) -> set[str]:
    """Every class name any rule's selector of a stylesheet names (inside `:is()` etc. too)."""
    names: set[str] = set()

    def walk(nodes: list[Node]) -> None:
        for node in nodes:
            if node.children is not None:
                walk(node.children)
            elif node.body is not None and not node.prelude.startswith("@"):
                stripped = re.sub(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", "", node.prelude)
                names.update(_UNESCAPE.sub(r"\1", name) for name in _CLASS.findall(stripped))

    walk(parse(css))
    return names


@dataclass
class RadixUsage:
    """What the store can put on a page: the words of its code and the Radix code it imports, and
    the responsive classes (`sm:rt-r-gtc`) its props ask for."""

    words: set[str] = field(default_factory=set)
    responsive: set[str] = field(default_factory=set)
    #: The colour scales a page can show; None keeps every scale.
    colours: frozenset[str] | None = None

    def keeps_colour(self, name: str) -> bool:
        return self.colours is None or name in self.colours or name in GRAY_SCALES

    def uses(self, class_name: str) -> bool:
        """Whether a rule needing `class_name` can match: every class but Radix's is kept."""
        if not _RADIX_CLASS.match(class_name) or class_name in self.words:
            return True  # written out whole (markup the server writes: components/markup.py)
        breakpoint, _, name = class_name.rpartition(":")
        name = name.lstrip("-")
        # `rt-r-size-2`, `rt-variant-soft`, `rt-r-m--2` are composed at run time from the prop
        # definition's `rt-r-size`, `rt-variant`, `rt-r-m` and the value the page passes.
        while len(name) > len("rt-"):
            if (f"{breakpoint}:{name}" in self.responsive) if breakpoint else (name in self.words):
                return True
            head, sep, _ = name.rpartition("-")
            if not sep:
                return False
            name = head.rstrip("-")
        return False


@dataclass
class PurgeResult:
    css: str
    rules_before: int
    rules_kept: int


def _without_unused_scales(body: str, usage: RadixUsage) -> str:
    """`body` without the custom properties of the colour scales `usage` does not keep."""
    declarations = [part for part in _split_top_level(body, ";") if part.strip()]
    kept = [
        declaration for declaration in declarations
        if (match := _SCALE_PROPERTY.fullmatch(declaration.split(":", 1)[0].strip())) is None
        or usage.keeps_colour(match.group(1))
    ]
    return body if len(kept) == len(declarations) else ";".join(kept)


def _selector_in_use(selector: str, usage: RadixUsage) -> bool:
    return all(usage.uses(name) for name in required_classes(selector)) and all(
        usage.keeps_colour(colour) for colour in _ACCENT_SELECTOR.findall(selector)
    )


def purge(css: str, usage: RadixUsage) -> PurgeResult:
    """`css` without the selectors naming a Radix class or a colour scale `usage` does not use (and
    rules left empty)."""
    nodes = parse(css)
    counts = [0, 0]

    def judge(items: list[Node]) -> None:
        for node in items:
            if node.children is not None:
                judge(node.children)
            elif node.body is not None and not node.prelude.startswith("@"):
                counts[0] += 1
                selectors = [s for s in _split_top_level(node.prelude) if _selector_in_use(s, usage)]
                if selectors and usage.colours is not None:
                    node.body = _without_unused_scales(node.body, usage)
                node.kept = bool(selectors) and bool(node.body.strip())
                if node.kept:
                    counts[1] += 1
                    node.prelude = ",".join(s.strip() for s in selectors)

    judge(nodes)
    return PurgeResult("".join(node.css() for node in nodes), counts[0], counts[1])


# --- What the compiled store uses -------------------------------------------------------------

#: The folders of `.web` that are not the compiled store: the packages and the build's output.
NOT_COMPILED = ("node_modules", "build", "public")
_SOURCE_SUFFIXES = (".js", ".jsx", ".mjs")
_THEMES_IMPORT = re.compile(r"import\s*\{([^}]*)\}\s*from\s*[\"']@radix-ui/themes[\"']")
_RELATIVE_IMPORT = re.compile(r"""(?:from|import)\s*["'](\.{1,2}/[^"']+\.js)["']""")
#: A responsive prop in the compiled JSX: `columns:({ ["initial"] : "1", ["sm"] : "2" })`.
_RESPONSIVE_PROP = re.compile(r"([A-Za-z_$][\w$]*)\s*:\s*\(?\{([^{}()]*)\}")
_BREAKPOINT_KEY = re.compile(r"""\[?\s*["']?(xs|sm|md|lg|xl)["']?\s*\]?\s*:""")
#: A prop definition in Radix's `*.props.js`: `columns:{type:"enum | string",className:"rt-r-gtc",...}`.
_PROP_DEF = re.compile(r"([A-Za-z_$][\w$]*)\s*:\s*\{([^{}]*)\}")
_CLASS_NAME = re.compile(r"""className\s*:\s*["'`](rt-[\w-]+)["'`]""")


_THIS_MODULE = Path(__file__).resolve()


class PurgeInputError(RuntimeError):
    """The build does not look as the purger expects: the build stops rather than guess."""


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _words(text: str) -> set[str]:
    words: set[str] = set()
    for word in _WORD.findall(text):
        words.add(word)
        if ":" in word:
            words.update(word.split(":"))
    return words


def compiled_sources(web_dir: Path) -> list[Path]:
    """The compiled store's own JavaScript under `web_dir` (pages, memo components, Reflex's utils)."""
    return sorted(
        path
        for path in web_dir.rglob("*")
        if path.suffix in _SOURCE_SUFFIXES and path.relative_to(web_dir).parts[0] not in NOT_COMPILED
        and path.is_file()
    )


def radix_files_used(themes_dir: Path, names: Iterable[str]) -> list[Path]:
    """The Radix Themes modules the imported `names` load, following their relative imports."""
    components = themes_dir / "dist" / "esm" / "components"
    pending = []
    for name in names:
        path = components / f"{_kebab(name)}.js"
        if not path.is_file():
            raise PurgeInputError(f"Radix Themes has no module {path.name} for the imported {name!r}")
        pending.append(path)
    seen: set[Path] = set()
    while pending:
        path = pending.pop().resolve()
        if path in seen:
            continue
        seen.add(path)
        for relative in _RELATIVE_IMPORT.findall(path.read_text(encoding="utf-8")):
            target = (path.parent / relative).resolve()
            if target.is_file():
                pending.append(target)
    return sorted(seen)


def radix_usage(web_dir: Path, extra_sources: Iterable[Path] = ()) -> RadixUsage:
    """What the compiled store in `web_dir` uses of Radix Themes; `extra_sources` (the store's
    Python, which writes server-side HTML) count as used words too."""
    sources = compiled_sources(web_dir)
    if not sources:
        raise PurgeInputError(f"no compiled pages under {web_dir}: compile the app first")
    texts = [path.read_text(encoding="utf-8", errors="replace") for path in sources]
    names = {
        part.split(" as ")[0].strip()
        for text in texts
        for match in _THEMES_IMPORT.finditer(text)
        for part in match.group(1).split(",")
        if part.strip()
    }
    if not names:
        raise PurgeInputError("the compiled pages import nothing from @radix-ui/themes")
    radix_texts = [path.read_text(encoding="utf-8") for path in
                   radix_files_used(web_dir / "node_modules" / "@radix-ui" / "themes", names)]
    extra = list(extra_sources)
    own_texts = [*texts, *(p.read_text(encoding="utf-8") for p in extra)]
    # Radix's own modules and this one name every scale, so only the store's other code counts.
    colour_texts = [*texts, *(p.read_text(encoding="utf-8") for p in extra if p.resolve() != _THIS_MODULE)]
    usage = RadixUsage(colours=frozenset().union(*(colours_named(text) for text in colour_texts)))
    for text in [*own_texts, *radix_texts]:
        usage.words |= _words(text)
    class_names_of: dict[str, set[str]] = {}
    for text in radix_texts:
        for prop, definition in _PROP_DEF.findall(text):
            class_names_of.setdefault(prop, set()).update(_CLASS_NAME.findall(definition))
    for text in texts:
        for prop, value in _RESPONSIVE_PROP.findall(text):
            for breakpoint in _BREAKPOINT_KEY.findall(value):
                usage.responsive.update(f"{breakpoint}:{name}" for name in class_names_of.get(prop, ()))
    return usage
