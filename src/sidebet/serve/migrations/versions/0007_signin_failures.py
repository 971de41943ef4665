"""Failed sign-ins per name and per address in the database (``signin_failures``), so
that on PostgreSQL every process of the database counts them and honours one lockout.

Revision ID: 0007_signin_failures
Revises: 0006_throughput
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_signin_failures"
down_revision = "0006_throughput"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``signin_failures``."""
    op.create_table(
        "signin_failures",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", sa.Double(), nullable=False),
        sa.Column("locked_until", sa.Double(), nullable=False),
    )


def downgrade() -> None:
    """Drop ``signin_failures``."""
    op.drop_table("signin_failures")
