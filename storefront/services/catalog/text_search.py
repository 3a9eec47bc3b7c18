"""Product text search: the one rule "the title (or the title or description) contains this text,
case-insensitively", answered from each database's text index (migration 0007).

The condition is one SQL element that compiles to the form of the database it runs on, so callers
build their query once without knowing the backend:

- SQLite: the FTS5 table `catalog_product_search` (trigram tokenizer) matched with the text as
  one quoted phrase; a phrase of trigrams at consecutive positions is exactly a substring.
- PostgreSQL: `ILIKE '%text%'`, served by the GIN `gin_trgm_ops` indexes on the two columns.
- Anything else: the plain case-insensitive LIKE.

Case folding is Unicode on both ("Ä" finds "ä"), as PostgreSQL's ILIKE and the trigram tokenizer do.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Boolean, Integer, column, func, literal_column, or_, select, table
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Mapped
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal
from sqlmodel import col

from storefront.models import CatalogProduct

#: The FTS5 table of migration 0007 (SQLite).
SEARCH_TABLE = "catalog_product_search"
#: Trigram indexes answer only texts of at least this many characters.
MIN_INDEXED_CHARS = 3
#: The longest search looked for: longer input is cut to this (no title is longer, and the work
#: of a match grows with the text's length).
MAX_SEARCH_CHARS = 200

# Control characters (NUL breaks FTS5 and is an error in a PostgreSQL string) and lone surrogates
# (which no database encodes); whitespace controls become spaces, the rest go.
_WHITESPACE_CONTROLS = re.compile(r"[\t\n\v\f\r\x1c-\x1f\x85]")
_OTHER_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")

_LIKE_ESCAPE = "/"
_search_table = table(SEARCH_TABLE, column("rowid", Integer))
_product_rowid = column("rowid", Integer, _selectable=CatalogProduct.__table__)  # type: ignore[attr-defined]


class _PerDialect(ColumnElement[bool]):
    """A boolean condition written once per dialect and chosen when the statement is compiled."""

    __visit_name__ = "text_search_per_dialect"
    inherit_cache = True
    _is_implicitly_boolean = True  # a condition already: SQLite must not compare it with 1
    # Every form is a child, so its bound texts take part in statement caching like any other.
    _traverse_internals: list[tuple[str, InternalTraversal]] = [
        ("sqlite", InternalTraversal.dp_clauseelement),
        ("postgresql", InternalTraversal.dp_clauseelement),
        ("default", InternalTraversal.dp_clauseelement),
    ]
    type = Boolean()

    def __init__(
        self, *, sqlite: ColumnElement[bool], postgresql: ColumnElement[bool], default: ColumnElement[bool]
    ) -> None:
        self.sqlite = sqlite
        self.postgresql = postgresql
        self.default = default


# Each form is parenthesised: an OR inside must not bind to the conditions around it.
@compiles(_PerDialect)
def _compile_default(element: _PerDialect, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.default, **kw)})"


@compiles(_PerDialect, "sqlite")
def _compile_sqlite(element: _PerDialect, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.sqlite, **kw)})"


@compiles(_PerDialect, "postgresql")
def _compile_postgresql(element: _PerDialect, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.postgresql, **kw)})"


def like_pattern(text: str) -> str:
    """'%text%' with LIKE's wildcards in `text` escaped (with '/'), so they match themselves."""
    escaped = text.replace(_LIKE_ESCAPE, _LIKE_ESCAPE * 2).replace("%", "/%").replace("_", "/_")
    return f"%{escaped}%"


def fts_phrase(text: str) -> str:
    """`text` as one FTS5 phrase: quoted, inner quotes doubled, so no character is query syntax."""
    return '"' + text.replace('"', '""') + '"'


def case_variants(text: str) -> list[str]:
    """Every spelling of `text` in lower and upper case, character by character ('ab', 'aB', ...)."""
    variants = [""]
    for char in text:
        spellings = dict.fromkeys(c for c in (char, char.lower(), char.upper()) if len(c) == 1)
        variants = [start + spelling for start in variants for spelling in spellings]
    return variants


def _sqlite_condition(text: str, in_description: bool) -> ColumnElement[bool]:
    """The FTS5 match; for texts shorter than a trigram, a scan for each case spelling."""
    columns = _columns(in_description)
    if len(text) < MIN_INDEXED_CHARS:
        # The trigram index holds nothing shorter than 3 characters, so short texts are scanned.
        # SQLite's lower() and LIKE fold ASCII only; trying each spelling (at most 9 for two
        # characters) folds as the index and PostgreSQL do, and instr() has no wildcards at all.
        return or_(*(func.instr(column_, spelling) > 0 for column_ in columns for spelling in case_variants(text)))
    query = fts_phrase(text) if in_description else "{title} : " + fts_phrase(text)
    matching = select(_search_table.c.rowid).where(literal_column(SEARCH_TABLE).match(query))
    return _product_rowid.in_(matching.scalar_subquery())


def _columns(in_description: bool) -> list[Mapped[str]]:
    title = col(CatalogProduct.title)
    return [title, col(CatalogProduct.description)] if in_description else [title]


def _postgresql_condition(text: str, in_description: bool) -> ColumnElement[bool]:
    """ILIKE, which pg_trgm serves from the columns' trigram indexes; for texts shorter than a
    trigram, the same test written so that no index applies."""
    pattern = like_pattern(text)
    columns = _columns(in_description)
    if len(text) < MIN_INDEXED_CHARS:
        # The index holds no trigram of a short text, so it would be read whole. A different
        # statement also keeps a cached generic plan of long texts (an index scan) away from it.
        # ILIKE on UTF-8 is lower() on both sides, so the answer is the same.
        return or_(*(func.lower(column_).like(func.lower(pattern), escape=_LIKE_ESCAPE) for column_ in columns))
    return or_(*(column_.ilike(pattern, escape=_LIKE_ESCAPE) for column_ in columns))


def search_text(raw: object) -> str:
    """What a search box's input searches for: control characters out, surrounding spaces off, at
    most MAX_SEARCH_CHARS characters; "" for no search (or input that is not text). Every search
    goes through here (contains_text applies it), whatever sent the text."""
    if not isinstance(raw, str):
        return ""
    # Cut first, so an enormous input costs no more than a long one.
    text = _WHITESPACE_CONTROLS.sub(" ", raw[: MAX_SEARCH_CHARS * 4])
    text = _OTHER_CONTROLS.sub("", text).strip()
    return text[:MAX_SEARCH_CHARS].rstrip()


def search_condition(query: object, *, in_description: bool = False) -> ColumnElement[bool] | None:
    """contains_text of the query as search_text reads it; None when that leaves nothing to search."""
    text = search_text(query)
    return contains_text(text, in_description=in_description) if text else None


def contains_text(text: str, *, in_description: bool = False) -> ColumnElement[bool]:
    """SQL condition: the product's title (or, with `in_description`, its title or description)
    contains `text` (as search_text reads it), case-insensitively, from the database's text index."""
    text = search_text(text)
    columns = _columns(in_description)
    return _PerDialect(
        sqlite=_sqlite_condition(text, in_description),
        postgresql=_postgresql_condition(text, in_description),
        default=or_(*(column_.icontains(text, autoescape=True) for column_ in columns)),
    )
