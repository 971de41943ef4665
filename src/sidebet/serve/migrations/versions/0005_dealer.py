"""Dealer-assist staff bound to tables: the tables each dealer, supervisor or
card-reading shoe works at, or a house-wide supervisor.

Revision ID: 0005_dealer
Revises: 0003_scale
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_dealer"
down_revision = "0004_cluster"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``staff_tables`` (staff added before it work at no table until assigned)."""
    op.create_table(
        "staff_tables",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("tables", sa.Text(), nullable=False),
        sa.Column("house_wide", sa.Boolean(), nullable=False),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("staff_tables")
