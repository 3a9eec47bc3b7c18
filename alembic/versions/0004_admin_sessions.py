"""admin sessions

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 18:30:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('admin_session',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('username', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('client', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('expires_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    sa.Column('revoked_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('token_hash')
    )
    with op.batch_alter_table('admin_session', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_admin_session_expires_at'), ['expires_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('admin_session', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_admin_session_expires_at'))
    op.drop_table('admin_session')
