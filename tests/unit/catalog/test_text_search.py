"""Product search from the database's text index (FTS5 trigram on SQLite, pg_trgm on PostgreSQL):
the same answers as a case-insensitive substring match, on both backends, kept in step with the
catalogue, and really answered from the index."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, delete, select, update

from storefront.models import CatalogProduct, CatalogVariant
from storefront.services.admin import product_rows
from storefront.services.catalog import catalog, listing
from storefront.services.catalog.text_search import (
    MAX_SEARCH_CHARS,
    SEARCH_TABLE,
    case_variants,
    contains_text,
    fts_phrase,
    like_pattern,
    search_text,
)
from tests.unit.catalog.test_catalog import SHOP_ID, add, printify_product

#: id -> (title, description HTML): the texts every tricky query below is tried against.
PRODUCTS: dict[str, tuple[str, str]] = {
    "cafe": ("Café Crème Tee", "<p>Soft cotton, 100% organic.</p>"),
    "arger": ("ÄRGER HOODIE", "<p>Über warm, with a kangaroo pocket.</p>"),
    "sale": ("50% Off_Sale Tee", "<p>back\\slash and under_score</p>"),
    "quoted": ('The "Quoted" Cap', "<p>it's a 'single' quote</p>"),
    "syntax": ("Star*Power - NEAR AND OR Tee", "<p>NOT (x) ^col: {title} title:tee</p>"),
    "mug": ("Plain Mug", "<p>Ceramic mug with a handle.</p>"),
    "kappa": ("Kappa Tee", "<p>Pocket square print.</p>"),
}

QUERIES: tuple[str, ...] = (
    "tee", "TEE", "tEe", "cAfÉ", "café", "CAFÉ", "crème", "é", "É", "ä", "Ä", "äR", "über", "ÜBER",
    "a", "A", "ab", "ee", "50%", "%", "%%", "_", "f_S", "%_", "0%", "\\", "back\\slash", "/", "'", "''",
    "it's", '"', '""', '"Quoted"', '"quoted', "*", "star*", "r*P", "-", " - ", "NEAR", "near",
    "AND", "and or", "NOT", "not (x)", "^", "{title}", "title:", "title:tee", "(x)", ":",
    "mug", "Ceramic", "tee pocket", "Tee Pocket", "Tee<p>", "</p>", "xyz", "zz",
)


def contains(haystack: str, needle: str) -> bool:
    return needle.lower() in haystack.lower()


def expected(query: str, *, in_description: bool) -> set[str]:
    """The ids a case-insensitive substring match finds: the rule both backends must follow."""
    needle = query.strip()
    return {
        pid
        for pid, (title, description) in PRODUCTS.items()
        if contains(title, needle) or (in_description and contains(description, needle))
    }


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as session:
        for pid, (title, description) in PRODUCTS.items():
            add(session, printify_product(pid, title, description=description))
        yield session


def storefront_ids(session: Session, query: str, *, in_description: bool = False) -> set[str]:
    return {p.id for p in catalog.search_products(session, query=query, match_description=in_description)}


def page_ids(session: Session, query: str, *, in_description: bool = False) -> set[str]:
    page = listing.product_page(session, query=query, match_description=in_description, limit=100)
    assert page.total == len(page.cards)
    return {card.id for card in page.cards}


def admin_ids(session: Session, query: str) -> set[str]:
    page = product_rows.product_page(session, shop_id=SHOP_ID, query=query, limit=100)
    assert page.total == len(page.rows)
    return {row.id for row in page.rows}


def mismatches(found: Any, *, in_description: bool) -> dict[str, tuple[set[str], set[str]]]:
    """query -> (found, expected) for every query the search answers wrongly."""
    answers = {query: (found(query), expected(query, in_description=in_description)) for query in QUERIES}
    return {query: pair for query, pair in answers.items() if pair[0] != pair[1]}


# --------------------------------------------------------------------------- the rule


def test_search_by_title_is_a_case_insensitive_substring_for_tricky_queries(session: Session) -> None:
    assert mismatches(lambda q: storefront_ids(session, q), in_description=False) == {}


def test_search_by_title_or_description_is_a_case_insensitive_substring_for_tricky_queries(
    session: Session,
) -> None:
    assert mismatches(lambda q: storefront_ids(session, q, in_description=True), in_description=True) == {}


def test_listing_pages_search_like_search_products(session: Session) -> None:
    assert mismatches(lambda q: page_ids(session, q), in_description=False) == {}
    assert mismatches(lambda q: page_ids(session, q, in_description=True), in_description=True) == {}


def test_admin_search_matches_title_or_description_for_tricky_queries(session: Session) -> None:
    assert mismatches(lambda q: admin_ids(session, q), in_description=True) == {}


def test_unicode_case_folds_both_ways(session: Session) -> None:
    assert (storefront_ids(session, "CAFÉ CRÈME"), storefront_ids(session, "ärger hoodie")) == ({"cafe"}, {"arger"})
    assert (storefront_ids(session, "é"), storefront_ids(session, "ä")) == ({"cafe"}, {"arger"})


def test_text_spanning_title_and_description_matches_neither(session: Session) -> None:
    assert storefront_ids(session, "Kappa Tee Pocket", in_description=True) == set()


def test_search_combines_with_the_collection_and_shown_conditions(session: Session) -> None:
    session.exec(update(CatalogProduct).where(CatalogProduct.id == "kappa").values(is_active=False))  # type: ignore[arg-type]
    session.commit()
    assert storefront_ids(session, "tee") == {"cafe", "sale", "syntax"}
    assert {p.id for p in catalog.search_products(session, query="tee", collection_key="nosuch")} == set()


# --------------------------------------------------------------------------- the pieces


def test_like_wildcards_in_the_text_are_escaped() -> None:
    assert like_pattern("50%_a/b\\") == "%50/%/_a//b\\%"


def test_a_phrase_quotes_fts_syntax_and_doubles_quotes() -> None:
    assert fts_phrase('say "hi" NEAR x*') == '"say ""hi"" NEAR x*"'


def test_case_variants_spell_each_character_both_ways() -> None:
    assert sorted(case_variants("aÄ1")) == sorted(["aä1", "aÄ1", "Aä1", "AÄ1"])


# --------------------------------------------------------------------------- kept in step


def _fts_integrity_check(session: Session) -> None:
    """On SQLite, FTS5 compares its index with catalog_product and raises when they differ."""
    if session.get_bind().dialect.name == "sqlite":
        session.exec(text(f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}) VALUES ('integrity-check')"))  # type: ignore[call-overload]


def test_a_new_product_is_found_at_once(session: Session) -> None:
    add(session, printify_product("new", "Zebra Stripe Hoodie", description="<p>Zigzag lines.</p>"))
    assert storefront_ids(session, "zebra stripe") == {"new"}
    assert admin_ids(session, "ZIGZAG") == {"new"}
    _fts_integrity_check(session)


def test_a_renamed_product_is_found_by_its_new_title_only(session: Session) -> None:
    add(session, printify_product("mug", "Enamel Camp Cup", description="<p>Tin cup.</p>"))
    assert storefront_ids(session, "plain mug") == set()
    assert storefront_ids(session, "Ceramic", in_description=True) == set()
    assert storefront_ids(session, "camp cup") == {"mug"}
    assert storefront_ids(session, "tin cup", in_description=True) == {"mug"}
    _fts_integrity_check(session)


def test_a_description_changed_in_sql_is_searched_by_its_new_text(session: Session) -> None:
    session.exec(update(CatalogProduct).where(CatalogProduct.id == "mug").values(description="Stoneware"))  # type: ignore[arg-type]
    session.commit()
    assert storefront_ids(session, "stonew", in_description=True) == {"mug"}
    assert storefront_ids(session, "ceramic", in_description=True) == set()
    _fts_integrity_check(session)


def test_a_deleted_product_is_no_longer_found(session: Session) -> None:
    session.exec(delete(CatalogVariant).where(CatalogVariant.product_id == "mug"))  # type: ignore[arg-type]
    session.exec(delete(CatalogProduct).where(CatalogProduct.id == "mug"))  # type: ignore[arg-type]
    session.commit()
    assert storefront_ids(session, "plain mug") == set()
    assert admin_ids(session, "ceramic") == set()
    _fts_integrity_check(session)


# --------------------------------------------------------------------------- answered from the index


def _plan(session: Session, query: str, *, in_description: bool) -> str:
    """The database's plan of the search condition alone, with the parameters it was sent."""
    connection = session.connection()
    sent: list[tuple[str, Any]] = []

    def record(_conn: Connection, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        sent.append((statement, parameters))

    event.listen(connection, "before_cursor_execute", record)
    try:
        session.exec(select(CatalogProduct.id).where(contains_text(query, in_description=in_description))).all()
    finally:
        event.remove(connection, "before_cursor_execute", record)
    [(statement, parameters)] = sent
    explain = "EXPLAIN QUERY PLAN " if connection.dialect.name == "sqlite" else "EXPLAIN "
    return "\n".join(str(row[-1]) for row in connection.exec_driver_sql(explain + statement, parameters).all())


@pytest.mark.parametrize("in_description", [False, True])
def test_searches_are_answered_from_the_text_index(session: Session, in_description: bool) -> None:
    if session.get_bind().dialect.name == "sqlite":
        plan = _plan(session, "Crème Tee", in_description=in_description)
        assert f"SCAN {SEARCH_TABLE} VIRTUAL TABLE INDEX" in plan, plan
        return
    # On a handful of rows a scan is cheaper; forbidding it shows whether the index can serve.
    session.exec(text("SET enable_seqscan = off"))  # type: ignore[call-overload]
    plan = _plan(session, "Crème Tee", in_description=in_description)
    indexes = ["ix_catalog_product_title_trgm"] + (["ix_catalog_product_description_trgm"] if in_description else [])
    assert all(f"Bitmap Index Scan on {index}" in plan for index in indexes), plan


def test_the_condition_is_written_for_the_database_in_use(engine: Engine) -> None:
    statement = select(CatalogProduct.id).where(contains_text("tee"))
    sql = str(statement.compile(engine))
    assert (SEARCH_TABLE in sql and "MATCH" in sql) if engine.dialect.name == "sqlite" else "ILIKE" in sql


# --------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        ("kappa\x00", "kappa"),
        ("\x00\x01kap\x7fpa\x9f", "kappa"),
        ("kappa\ttee\n", "kappa tee"),
        ("\ud800kappa", "kappa"),
        ("  ", ""),
        (None, ""),
    ],
)
def test_control_characters_are_taken_out_of_a_search(raw: object, read: str) -> None:
    assert search_text(raw) == read


def test_a_search_is_cut_to_200_characters() -> None:
    assert MAX_SEARCH_CHARS == 200
    assert search_text("k" * 1_000_000) == "k" * 200


def test_a_nul_in_the_search_finds_what_the_text_without_it_finds(session: Session) -> None:
    """NUL broke the FTS5 query (and is an error in a PostgreSQL string): it is dropped instead."""
    assert {p.id for p in catalog.search_products(session, query="Kap\x00pa")} == {"kappa"}
    assert [c.id for c in listing.product_page(session, query="\x00kappa\x00").cards] == ["kappa"]
    page = product_rows.product_page(session, shop_id=SHOP_ID, query="pocket\x00")
    assert {row.id for row in page.rows} == {"arger", "kappa"}


def test_a_megabyte_search_sends_the_database_at_most_200_characters(session: Session) -> None:
    sent: list[Any] = []

    def record(_conn: Connection, _cursor: Any, _statement: str, parameters: Any, *_: Any) -> None:
        sent.append(parameters)

    connection = session.connection()
    event.listen(connection, "before_cursor_execute", record)
    try:
        found = listing.product_page(session, query="Kappa Tee" + "z" * 1_000_000).cards
        rows = product_rows.product_page(session, shop_id=SHOP_ID, query="q" * 1_000_000).rows
    finally:
        event.remove(connection, "before_cursor_execute", record)
    assert not found and not rows
    texts = [value for parameters in sent for value in _values(parameters) if isinstance(value, str)]
    assert texts and max(len(value) for value in texts) <= MAX_SEARCH_CHARS + 20


def _values(parameters: Any) -> list[Any]:
    if isinstance(parameters, dict):
        return list(parameters.values())
    if isinstance(parameters, (list, tuple)):
        return list(parameters)
    return [parameters]
