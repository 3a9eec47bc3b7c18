"""Archived products: hidden from the store and the back office's lists, kept for their orders

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('catalog_product') as batch:
        batch.add_column(sa.Column('archived_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch.create_index('ix_catalog_product_archived_at', ['archived_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('catalog_product') as batch:
        batch.drop_index('ix_catalog_product_archived_at')
        batch.drop_column('archived_at')
