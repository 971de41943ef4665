"""The read rate per address in the database (``read_buckets``), so that on PostgreSQL
every process of the database takes its reads from one token bucket per address; an
unlogged table there (a crash forgets it; no write waits for the disk).

Revision ID: 0008_cluster2
Revises: 0007_signin_failures
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_cluster2"
down_revision = "0007_signin_failures"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``read_buckets``."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE UNLOGGED TABLE read_buckets (key VARCHAR(64) PRIMARY KEY, "
                   "tokens DOUBLE PRECISION NOT NULL, at DOUBLE PRECISION NOT NULL, "
                   "granted BOOLEAN NOT NULL)")
        return
    op.create_table(
        "read_buckets",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("tokens", sa.Double(), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
    )


def downgrade() -> None:
    """Drop ``read_buckets``."""
    op.drop_table("read_buckets")
