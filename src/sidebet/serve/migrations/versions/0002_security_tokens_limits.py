"""Security and money: tokens that expire and belong to a
sign-in, the operators' log, the limits players set.

Revision ID: 0002_security
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_security"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the tokens' kind, sign-in and expiry (tokens of earlier versions expire now);
    create the operators' log and the players' limits."""
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("kind", sa.String(8), nullable=False,
                                   server_default="access"))
        batch.add_column(sa.Column("session", sa.String(32), nullable=False,
                                   server_default=""))
        batch.add_column(sa.Column("expires_at", sa.String(32), nullable=False,
                                   server_default=""))
    op.create_index("ix_tokens_session", "tokens", ["session"])
    op.create_table(
        "operator_actions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("operator_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("operator_name", sa.String(64), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
    )
    op.create_index("ix_operator_actions_at", "operator_actions", ["at"])
    op.create_table(
        "player_limits",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("limits", sa.Text(), nullable=False),
        sa.Column("pending", sa.Text(), nullable=True),
        sa.Column("pending_from", sa.String(32), nullable=True),
        sa.Column("excluded_until", sa.String(32), nullable=True),
    )


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_table("player_limits")
    op.drop_index("ix_operator_actions_at", "operator_actions")
    op.drop_table("operator_actions")
    op.drop_index("ix_tokens_session", "tokens")
    with op.batch_alter_table("tokens") as batch:
        batch.drop_column("expires_at")
        batch.drop_column("session")
        batch.drop_column("kind")
