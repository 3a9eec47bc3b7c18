"""The schema comes from Alembic and round-trips on SQLite and PostgreSQL."""

from sqlalchemy import inspect
from sqlalchemy.engine import Engine

from alembic import command
from storefront.db import alembic_config, make_engine, migrate

CATALOGUE_TABLES = {"catalog_product", "catalog_variant", "catalog_image"}


def test_migrations_create_the_catalogue_tables(engine: Engine) -> None:
    assert set(inspect(engine).get_table_names()) >= CATALOGUE_TABLES


def test_migrations_downgrade_and_upgrade_again(database_url: str) -> None:
    migrate(database_url)
    command.downgrade(alembic_config(database_url), "base")
    engine = make_engine(database_url)
    assert not CATALOGUE_TABLES & set(inspect(engine).get_table_names())
    migrate(database_url)
    assert set(inspect(engine).get_table_names()) >= CATALOGUE_TABLES
    engine.dispose()


def test_migrating_twice_changes_nothing(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)
    engine = make_engine(database_url)
    assert set(inspect(engine).get_table_names()) >= CATALOGUE_TABLES
    engine.dispose()


ORDER_TABLES = {"orders", "order_item", "outbox_job"}


def test_migrations_create_the_order_tables(engine: Engine) -> None:
    assert set(inspect(engine).get_table_names()) >= ORDER_TABLES


def test_the_models_match_the_migrations(database_url: str) -> None:
    migrate(database_url)
    command.check(alembic_config(database_url))  # raises if autogenerate would find a difference
