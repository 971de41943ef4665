"""Money applied once for good: the payment provider's transaction id kept with its
deposit or withdrawal (``wallet_txs.provider_id``) under a unique index; the house's
signing keys (``house_keys``), which every process must present.

Revision ID: 0009_money
Revises: 0008_cluster2
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_money"
down_revision = "0008_cluster2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``wallet_txs.provider_id`` and its unique index."""
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


def downgrade() -> None:
    """Drop ``house_keys`` and ``wallet_txs.provider_id``."""
    op.drop_table("house_keys")
    op.drop_index("uq_wallet_txs_provider_id", table_name="wallet_txs")
    with op.batch_alter_table("wallet_txs") as batch:
        batch.drop_column("provider_id")
