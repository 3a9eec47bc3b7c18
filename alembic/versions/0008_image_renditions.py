"""image renditions: each catalogue image's prepared renditions and the image sources copied in

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 22:30:00
"""

from alembic import op
import sqlalchemy as sa
import sqlmodel


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'image_source',
        sa.Column('src_key', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('src', sa.Text(), nullable=False),
        sa.Column('digest', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False, server_default=''),
        sa.Column('width', sa.Integer(), nullable=False, server_default='0'),
        sa.Column('height', sa.Integer(), nullable=False, server_default='0'),
        sa.Column('attempts', sa.Integer(), nullable=False, server_default='0'),
        sa.Column('last_error', sa.Text(), nullable=False, server_default=''),
        sa.Column('retry_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('prepared_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint('src_key'),
    )
    # Images cached before this revision get "" (not prepared) until the image worker prepares them.
    with op.batch_alter_table('catalog_image', schema=None) as batch_op:
        batch_op.add_column(sa.Column('digest', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('width', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('height', sa.Integer(), nullable=False, server_default='0'))
        batch_op.create_index('ix_catalog_image_digest', ['digest'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('catalog_image', schema=None) as batch_op:
        batch_op.drop_index('ix_catalog_image_digest')
        batch_op.drop_column('height')
        batch_op.drop_column('width')
        batch_op.drop_column('digest')
    op.drop_table('image_source')
