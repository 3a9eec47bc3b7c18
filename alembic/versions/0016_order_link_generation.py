"""Orders: the generation of their email links, which staff revoking the links moves on

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 00:00:00
"""

from alembic import op
import sqlalchemy as sa


revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('orders') as batch:
        batch.add_column(sa.Column('link_generation', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('orders') as batch:
        batch.drop_column('link_generation')
