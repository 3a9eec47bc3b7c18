"""Mail messages: customer emails queued with the change that causes them, sent by the mail outbox

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'mail_message',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_id', sqlmodel.sql.sqltypes.AutoString(length=250), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column('order_id', sa.Integer(), nullable=True),
        sa.Column('recipient', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column('subject', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column('text_body', sa.Text(), nullable=False),
        sa.Column('html_body', sa.Text(), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('last_error', sa.Text(), nullable=True),
        sa.Column('sent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('created_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['order_id'], ['orders.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('message_id'),
    )
    op.create_index('ix_mail_message_order_id', 'mail_message', ['order_id'], unique=False)
    op.create_index('ix_mail_message_next_attempt_at', 'mail_message', ['next_attempt_at'], unique=False)
    op.create_index('ix_mail_message_sent_at', 'mail_message', ['sent_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_mail_message_sent_at', table_name='mail_message')
    op.drop_index('ix_mail_message_next_attempt_at', table_name='mail_message')
    op.drop_index('ix_mail_message_order_id', table_name='mail_message')
    op.drop_table('mail_message')
