"""Store pages (policies, contact) as staff edit them; a message's List-Unsubscribe and own Reply-To

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 00:00:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'store_page',
        sa.Column('slug', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column('markdown', sa.Text(), nullable=False),
        sa.Column('updated_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint('slug'),
    )
    with op.batch_alter_table('mail_message') as batch:
        batch.add_column(sa.Column('list_unsubscribe', sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=True))
        batch.add_column(sa.Column('reply_to', sqlmodel.sql.sqltypes.AutoString(length=320), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('mail_message') as batch:
        batch.drop_column('reply_to')
        batch.drop_column('list_unsubscribe')
    op.drop_table('store_page')
