"""Alembic environment: migrates the database named by storefront.db.alembic_config."""

from alembic import context
from sqlmodel import SQLModel

from storefront import models  # noqa: F401  (registers the tables on SQLModel.metadata)
from storefront.config import get_settings
from storefront.db import make_engine

target_metadata = SQLModel.metadata


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
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run_migrations()
