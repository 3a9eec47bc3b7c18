"""Newsletter subscribers: addresses given to the home page's form, counted once confirmed

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'newsletter_subscriber',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('confirmed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('unsubscribed_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('last_confirmation_sent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('email'),
    )
    op.create_index('ix_newsletter_subscriber_confirmed_at', 'newsletter_subscriber', ['confirmed_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_newsletter_subscriber_confirmed_at', table_name='newsletter_subscriber')
    op.drop_table('newsletter_subscriber')
