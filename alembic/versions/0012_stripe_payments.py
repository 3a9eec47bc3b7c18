"""Stripe payments: the gateway and PaymentIntent of an order, its refund, and the order history

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('orders') as batch:
        batch.add_column(sa.Column('payment_provider', sqlmodel.sql.sqltypes.AutoString(length=16),
                                   nullable=False, server_default='test'))
        batch.add_column(sa.Column('payment_intent_id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch.add_column(sa.Column('refund_id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch.create_index('ix_orders_payment_intent_id', ['payment_intent_id'], unique=False)
    op.create_table(
        'order_history',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('order_id', sa.Integer(), nullable=False),
        sa.Column('at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('action', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column('detail', sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(['order_id'], ['orders.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_order_history_order_id', 'order_history', ['order_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_order_history_order_id', table_name='order_history')
    op.drop_table('order_history')
    with op.batch_alter_table('orders') as batch:
        batch.drop_index('ix_orders_payment_intent_id')
        batch.drop_column('refund_id')
        batch.drop_column('payment_intent_id')
        batch.drop_column('payment_provider')
