"""Alembic environment: migrates the database named by storefront.db.alembic_config."""

from alembic import context
from sqlmodel import SQLModel

from storefront import models  # noqa: F401  (registers the tables on SQLModel.metadata)
from storefront.config import get_settings
from storefront.db import make_engine

target_metadata = SQLModel.metadata

# The search index of revision 0007 is raw SQL with no model (the FTS5 table and its shadow tables on
# SQLite, trigram indexes on PostgreSQL): autogenerate must not see it as something to drop.
_SEARCH_TABLE_PREFIX = "catalog_product_search"
_SEARCH_INDEXES = frozenset({"ix_catalog_product_title_trgm", "ix_catalog_product_description_trgm"})


def include_name(name: str | None, type_: str, parent_names: dict[str, str | None]) -> bool:
    """Whether autogenerate compares this database object with the models."""
    if type_ == "table":
        return not (name or "").startswith(_SEARCH_TABLE_PREFIX)
    return not (type_ == "index" and name in _SEARCH_INDEXES)


def run_migrations() -> None:
    url = context.config.get_main_option("sqlalchemy.url") or get_settings().db_url
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
            include_name=include_name,
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations()
