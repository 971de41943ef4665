"""Snapshots of the tables between rounds, and the idempotency answers indexed by time
(so that expired ones are purged without a scan).

Revision ID: 0003_scale
Revises: 0002_security
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_scale"
down_revision = "0002_security"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``table_snapshots`` and the index on ``idempotent_requests.at``."""
    op.create_table(
        "table_snapshots",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("head", sa.String(64), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
    )
    op.create_index("ix_idempotent_requests_at", "idempotent_requests", ["at"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_idempotent_requests_at", "idempotent_requests")
    op.drop_table("table_snapshots")
