"""search index: product title and description as trigrams (SQLite FTS5, PostgreSQL pg_trgm)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 10:00:00

SQLite: an external-content FTS5 table over catalog_product (keyed by its implicit rowid) kept in
step by triggers. A later revision that rebuilds catalog_product (batch_alter_table copies it to a
new table) drops these triggers and may renumber rowids: it must recreate the triggers and rebuild
the index. PostgreSQL: GIN trigram indexes on the two columns, which serve ILIKE '%text%'.
"""

from alembic import op


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

SEARCH_TABLE = 'catalog_product_search'
_TRIGGERS = ('catalog_product_search_insert', 'catalog_product_search_update', 'catalog_product_search_delete')
_PG_INDEXES = ('ix_catalog_product_title_trgm', 'ix_catalog_product_description_trgm')

_SQLITE_UPGRADE = (
    (
        f"CREATE VIRTUAL TABLE {SEARCH_TABLE} USING fts5("
        "title, description, content='catalog_product', content_rowid='rowid', tokenize='trigram')"
    ),
    f"""CREATE TRIGGER catalog_product_search_insert AFTER INSERT ON catalog_product BEGIN
        INSERT INTO {SEARCH_TABLE}(rowid, title, description) VALUES (new.rowid, new.title, new.description);
    END""",
    # An external-content index is told the old text to remove: it cannot read it back itself.
    f"""CREATE TRIGGER catalog_product_search_update AFTER UPDATE OF title, description ON catalog_product BEGIN
        INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, title, description)
            VALUES ('delete', old.rowid, old.title, old.description);
        INSERT INTO {SEARCH_TABLE}(rowid, title, description) VALUES (new.rowid, new.title, new.description);
    END""",
    f"""CREATE TRIGGER catalog_product_search_delete AFTER DELETE ON catalog_product BEGIN
        INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, title, description)
            VALUES ('delete', old.rowid, old.title, old.description);
    END""",
    f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}) VALUES ('rebuild')",
)

# fastupdate off: a catalogue sync would otherwise leave new rows in GIN's pending list, which every
# search scans in full (and which makes the planner skip the index) until the next vacuum.
_POSTGRES_UPGRADE = (
    'CREATE EXTENSION IF NOT EXISTS pg_trgm',
    (
        'CREATE INDEX IF NOT EXISTS ix_catalog_product_title_trgm '
        'ON catalog_product USING gin (title gin_trgm_ops) WITH (fastupdate = off)'
    ),
    (
        'CREATE INDEX IF NOT EXISTS ix_catalog_product_description_trgm '
        'ON catalog_product USING gin (description gin_trgm_ops) WITH (fastupdate = off)'
    ),
)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    statements = {'sqlite': _SQLITE_UPGRADE, 'postgresql': _POSTGRES_UPGRADE}.get(dialect, ())
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for trigger in _TRIGGERS:
            op.execute(f'DROP TRIGGER IF EXISTS {trigger}')
        op.execute(f'DROP TABLE IF EXISTS {SEARCH_TABLE}')
    elif dialect == 'postgresql':
        # The extension stays: it belongs to the whole database, and other objects may use it.
        for index in _PG_INDEXES:
            op.execute(f'DROP INDEX IF EXISTS {index}')
