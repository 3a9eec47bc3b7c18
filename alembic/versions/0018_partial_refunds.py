"""Partial refunds: what an order has had refunded so far, and each refund staff asked for; whether an archived product was shown

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('orders') as batch:
        batch.add_column(sa.Column('refunded_cents', sa.Integer(), nullable=False, server_default='0'))
    # Orders refunded before partial refunds existed were refunded in full.
    op.execute("UPDATE orders SET refunded_cents = total_cents WHERE payment_status = 'refunded'")
    op.create_table(
        'order_refund',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('order_id', sa.Integer(), nullable=False),
        sa.Column('request_key', sqlmodel.sql.sqltypes.AutoString(length=160), nullable=False),
        sa.Column('amount_cents', sa.Integer(), nullable=False),
        sa.Column('lines_json', sa.Text(), nullable=True),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('refund_id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['order_id'], ['orders.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('request_key'),
    )
    op.create_index('ix_order_refund_order_id', 'order_refund', ['order_id'], unique=False)
    with op.batch_alter_table('catalog_product') as batch:
        batch.add_column(sa.Column('shown_before_archive', sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('catalog_product') as batch:
        batch.drop_column('shown_before_archive')
    op.drop_index('ix_order_refund_order_id', table_name='order_refund')
    op.drop_table('order_refund')
    with op.batch_alter_table('orders') as batch:
        batch.drop_column('refunded_cents')
