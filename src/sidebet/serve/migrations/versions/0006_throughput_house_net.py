"""The house's net per table (``game_tables.house_net``), written once per round, so that
no single row is updated by every table's settlements.

Revision ID: 0006_throughput
Revises: 0005_dealer
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_throughput"
down_revision = "0005_dealer"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``game_tables.house_net`` (0 for every table: the house row keeps the past)."""
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("house_net", sa.BigInteger(), nullable=False,
                                   server_default="0"))


def downgrade() -> None:
    """Fold each table's net back into the house row, then drop the column."""
    op.execute("UPDATE accounts SET balance = balance + (SELECT COALESCE(SUM(house_net), 0) "
               "FROM game_tables) WHERE role = 'house'")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("house_net")
