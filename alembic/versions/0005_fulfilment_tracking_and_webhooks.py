"""provider fulfilment: shipment tracking on orders, line colours, unknown send outcomes, webhook deliveries

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 19:40:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tracking_carrier', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch_op.add_column(sa.Column('tracking_url', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('shipped_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('delivered_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('provider_checked_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.create_index(batch_op.f('ix_orders_provider_checked_at'), ['provider_checked_at'], unique=False)

    with op.batch_alter_table('order_item', schema=None) as batch_op:
        batch_op.add_column(sa.Column('color', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False, server_default=''))

    with op.batch_alter_table('outbox_job', schema=None) as batch_op:
        batch_op.add_column(sa.Column('outcome_unknown', sa.Boolean(), nullable=False, server_default=sa.false()))

    op.create_table('webhook_delivery',
    sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
    sa.Column('topic', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('resource_id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('received_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('webhook_delivery', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_delivery_received_at'), ['received_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('webhook_delivery', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_delivery_received_at'))
    op.drop_table('webhook_delivery')
    with op.batch_alter_table('outbox_job', schema=None) as batch_op:
        batch_op.drop_column('outcome_unknown')
    with op.batch_alter_table('order_item', schema=None) as batch_op:
        batch_op.drop_column('color')
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_orders_provider_checked_at'))
        batch_op.drop_column('provider_checked_at')
        batch_op.drop_column('delivered_at')
        batch_op.drop_column('shipped_at')
        batch_op.drop_column('tracking_url')
        batch_op.drop_column('tracking_carrier')
