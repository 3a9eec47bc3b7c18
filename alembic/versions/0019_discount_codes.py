"""Discount codes: the codes staff make, the uses each email address holds, and an order's discount

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-29 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'discount_code',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('code', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('code_key', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('percent', sa.Integer(), nullable=False, server_default='0'),
        sa.Column('amount_cents', sa.Integer(), nullable=False, server_default='0'),
        sa.Column('starts_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('ends_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('min_subtotal_cents', sa.Integer(), nullable=False, server_default='0'),
        sa.Column('usage_limit', sa.Integer(), nullable=True),
        sa.Column('per_customer_limit', sa.Integer(), nullable=True),
        sa.Column('scope', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False, server_default='all'),
        sa.Column('scope_values_json', sa.Text(), nullable=False, server_default='[]'),
        sa.Column('active', sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column('used_count', sa.Integer(), nullable=False, server_default='0'),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('code_key'),
    )
    op.create_table(
        'discount_email_use',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('discount_id', sa.Integer(), nullable=False),
        sa.Column('email_key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column('used_count', sa.Integer(), nullable=False, server_default='0'),
        sa.ForeignKeyConstraint(['discount_id'], ['discount_code.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('discount_id', 'email_key'),
    )
    with op.batch_alter_table('orders') as batch:
        batch.add_column(sa.Column('discount_id', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('discount_code', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True))
        batch.add_column(sa.Column('discount_cents', sa.Integer(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('discount_claimed', sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.create_index('ix_orders_discount_id', ['discount_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('orders') as batch:
        batch.drop_index('ix_orders_discount_id')
        batch.drop_column('discount_claimed')
        batch.drop_column('discount_cents')
        batch.drop_column('discount_code')
        batch.drop_column('discount_id')
    op.drop_table('discount_email_use')
    op.drop_table('discount_code')
