"""Staff accounts (Argon2id passwords, invitation and reset links, TOTP), the staff policy and the activity log

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'staff_account',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('username', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=True),
        sa.Column('role', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('password_hash', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column('password_from_settings', sa.Boolean(), nullable=False),
        sa.Column('password_changed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('link_nonce', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column('disabled_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('totp_secret', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column('totp_enabled_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('totp_last_step', sa.Integer(), nullable=True),
        sa.Column('recovery_codes_json', sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('username'),
        sa.UniqueConstraint('email'),
    )
    op.create_table(
        'staff_policy',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('require_two_factor', sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_table(
        'activity_entry',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('action', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('target', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column('before_json', sa.Text(), nullable=True),
        sa.Column('after_json', sa.Text(), nullable=True),
        sa.Column('client', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('activity_entry', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_activity_entry_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_activity_entry_actor'), ['actor'], unique=False)
        batch_op.create_index(batch_op.f('ix_activity_entry_action'), ['action'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('activity_entry', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_activity_entry_action'))
        batch_op.drop_index(batch_op.f('ix_activity_entry_actor'))
        batch_op.drop_index(batch_op.f('ix_activity_entry_created_at'))
    op.drop_table('activity_entry')
    op.drop_table('staff_policy')
    op.drop_table('staff_account')
