"""job leases: one process at a time runs the catalogue sync, the order poll and the image preparer

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'job_lease',
        sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('holder', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column('held_until', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('finished_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint('name'),
    )


def downgrade() -> None:
    op.drop_table('job_lease')
