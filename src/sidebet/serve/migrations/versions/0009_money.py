"""Money applied once for good: the payment provider's transaction id kept with its
deposit or withdrawal (``wallet_txs.provider_id``) under a unique index; the house's
signing keys (``house_keys``), which every process must present; the name every account
is compared by (``accounts.name_key``, unique; the first of several look-alikes keeps it);
the operator's account controls (``accounts.status``, ``status_reason``) and a regulator's
self-exclusion list (``exclusion_list``).

Revision ID: 0009_money
Revises: 0008_cluster2
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from sidebet.serve.names import name_key

revision = "0009_money"
down_revision = "0008_cluster2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``wallet_txs.provider_id``, ``house_keys``, ``accounts.name_key``,
    ``accounts.status`` and ``status_reason``, and ``exclusion_list``."""
    op.add_column("wallet_txs", sa.Column("provider_id", sa.String(100), nullable=True))
    # the callbacks applied before: the first row under each ``payment:<id>`` key
    op.execute("UPDATE wallet_txs SET provider_id = substr(idempotency_key, 9) WHERE id IN "
               "(SELECT min(id) FROM wallet_txs WHERE idempotency_key LIKE 'payment:%' "
               "GROUP BY idempotency_key)")
    op.create_index("uq_wallet_txs_provider_id", "wallet_txs", ["provider_id"], unique=True)
    op.create_table(
        "house_keys",
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("public", sa.String(64), nullable=False, unique=True),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.add_column("accounts", sa.Column("name_key", sa.String(255), nullable=True))
    bind = op.get_bind()
    seen: set[str] = set()
    for account, name in bind.execute(sa.text("SELECT id, name FROM accounts ORDER BY id")):
        key = name_key(str(name))
        if key not in seen:
            seen.add(key)
            bind.execute(sa.text("UPDATE accounts SET name_key = :key WHERE id = :id"),
                         {"key": key, "id": account})
    op.create_index("uq_accounts_name_key", "accounts", ["name_key"], unique=True)
    op.add_column("accounts", sa.Column("status", sa.String(16), nullable=False,
                                        server_default="active"))
    op.add_column("accounts", sa.Column("status_reason", sa.Text(), nullable=True))
    op.create_table(
        "exclusion_list",
        sa.Column("name_key", sa.String(255), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("since", sa.String(32), nullable=False),
        sa.Column("until", sa.String(32), nullable=True),
        sa.Column("imported_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    """Drop what :func:`upgrade` added."""
    op.drop_table("exclusion_list")
    op.drop_index("uq_accounts_name_key", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("status_reason")
        batch.drop_column("status")
        batch.drop_column("name_key")
    op.drop_table("house_keys")
    op.drop_index("uq_wallet_txs_provider_id", table_name="wallet_txs")
    with op.batch_alter_table("wallet_txs") as batch:
        batch.drop_column("provider_id")
