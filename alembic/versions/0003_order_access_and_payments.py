"""order access tokens, payment claims and attempts, rate counters, orders needing attention

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 18:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('orders', schema=None) as batch_op:
        # Orders placed before tokens existed get none: no token hashes to the empty string, so
        # only staff can reach them.
        batch_op.add_column(sa.Column('access_token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('payment_claimed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(sa.Column('attention_reason', sa.Text(), nullable=True))

    op.create_table('payment_attempt',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('order_id', sa.Integer(), nullable=False),
    sa.Column('gateway_key', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
    sa.Column('amount_cents', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('client', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('payment_id', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=True),
    sa.Column('card_brand', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
    sa.Column('card_last4', sqlmodel.sql.sqltypes.AutoString(length=4), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['order_id'], ['orders.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('payment_attempt', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_payment_attempt_order_id'), ['order_id'], unique=False)

    op.create_table('rate_counter',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('window_start', sa.Integer(), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('key', 'window_start')
    )
    with op.batch_alter_table('rate_counter', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rate_counter_window_start'), ['window_start'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('rate_counter', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rate_counter_window_start'))
    op.drop_table('rate_counter')
    with op.batch_alter_table('payment_attempt', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_payment_attempt_order_id'))
    op.drop_table('payment_attempt')
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.drop_column('attention_reason')
        batch_op.drop_column('payment_claimed_at')
        batch_op.drop_column('access_token_hash')
