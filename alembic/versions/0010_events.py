"""events: tours and events

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'event',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('title', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column('description', sa.Text(), nullable=False),
        sa.Column('location', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column('starts_at', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column('ends_at', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column('images_json', sa.Text(), nullable=False),
        sa.Column('videos_json', sa.Text(), nullable=False),
        sa.Column('links_json', sa.Text(), nullable=False),
        sa.Column('registrations_json', sa.Text(), nullable=False),
        sa.Column('is_active', sa.Boolean(), nullable=False),
        sa.Column('featured', sa.Boolean(), nullable=False),
        sa.Column('capacity', sa.Integer(), nullable=True),
        sa.Column('price_cents', sa.Integer(), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_event_starts_at', 'event', ['starts_at'], unique=False)
    op.create_index('ix_event_is_active', 'event', ['is_active'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_event_is_active', table_name='event')
    op.drop_index('ix_event_starts_at', table_name='event')
    op.drop_table('event')
