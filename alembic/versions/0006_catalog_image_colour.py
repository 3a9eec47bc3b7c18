"""catalogue colours: the colour each mockup image shows and each variant's swatch colour

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 10:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Rows cached before this revision get "" (no colour known) until the next catalogue sync.
    with op.batch_alter_table('catalog_image', schema=None) as batch_op:
        batch_op.add_column(sa.Column('color', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False, server_default=''))

    with op.batch_alter_table('catalog_variant', schema=None) as batch_op:
        batch_op.add_column(sa.Column('color_hex', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('catalog_variant', schema=None) as batch_op:
        batch_op.drop_column('color_hex')
    with op.batch_alter_table('catalog_image', schema=None) as batch_op:
        batch_op.drop_column('color')
