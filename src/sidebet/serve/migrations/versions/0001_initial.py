"""The initial schema of the table server.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create every table."""
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_tokens_account_id", "tokens", ["account_id"])
    op.create_table(
        "wallet_txs",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("idempotency_key", sa.String(128), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_index("ix_wallet_txs_account_id", "wallet_txs", ["account_id"])
    op.create_table(
        "idempotent_requests",
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("config", sa.Text(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("unit", sa.BigInteger(), nullable=False),
        sa.Column("time_limit", sa.Integer(), nullable=False),
        sa.Column("default_action", sa.String(16), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )
    op.create_table(
        "shoe_seeds",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("shoe", sa.Integer(), primary_key=True),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.UniqueConstraint("account_id", name="uq_seats_account"),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("round_no", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", sa.String(32), nullable=False),
        sa.Column("ended_at", sa.String(32), nullable=True),
        sa.Column("record", sa.Text(), nullable=True),
    )
    op.create_index("ix_games_table_id", "games", ["table_id"])
    op.create_index("ix_games_started_at", "games", ["started_at"])
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
    )
    op.create_index("ix_game_players_account_id", "game_players", ["account_id"])


def downgrade() -> None:
    """Drop every table."""
    for name in ("game_players", "games", "seats", "shoe_seeds", "events", "game_tables",
                 "idempotent_requests", "wallet_txs", "tokens", "accounts"):
        op.drop_table(name)
