"""product cards: each catalogue product keeps its ready listing card

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-22 23:40:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Products cached before this revision get "" (no card): listings derive theirs on the spot
    # until `manage prepare` (or the next sync) writes them.
    with op.batch_alter_table('catalog_product', schema=None) as batch_op:
        batch_op.add_column(sa.Column('card_json', sa.Text(), nullable=False, server_default=''))


def downgrade() -> None:
    with op.batch_alter_table('catalog_product', schema=None) as batch_op:
        batch_op.drop_column('card_json')
