"""Several server processes on one PostgreSQL: who owns each table (``table_owners``, with
its fencing number), the processes (``cluster_members``), the fencing number of every
event (``events.epoch``) and, on PostgreSQL, the trigger that refuses an event written
under a stale fencing number and tells the other processes of every new event
(``NOTIFY sidebet_events``).

Revision ID: 0004_cluster
Revises: 0003_scale
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_cluster"
down_revision = "0003_scale"
branch_labels = None
depends_on = None

FENCE = """
CREATE FUNCTION sidebet_fence() RETURNS trigger AS $$
DECLARE current integer;
BEGIN
    SELECT epoch INTO current FROM table_owners WHERE table_id = NEW.table_id FOR SHARE;
    IF FOUND AND NEW.epoch IS DISTINCT FROM current THEN
        RAISE EXCEPTION 'sidebet-fence: table % is owned under epoch %, not %',
            NEW.table_id, current, NEW.epoch USING ERRCODE = 'SB001';
    END IF;
    PERFORM pg_notify('sidebet_events', NEW.table_id || ':' || NEW.seq);
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER sidebet_fence BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION sidebet_fence();
"""
"""The fence: once a process owns a table, an event's epoch must be its owner's (a new
table's first events, and a process outside any cluster, write tables nobody owns); the
owner's row is share-locked until the commit, so a
takeover (which raises the epoch) waits for the write in flight and refuses every later
write of the old owner."""


def upgrade() -> None:
    """Add the tables, the column and (PostgreSQL) the trigger."""
    op.add_column("events", sa.Column("epoch", sa.Integer(), nullable=True))
    op.create_table(
        "table_owners",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("address", sa.String(200), nullable=True),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_table(
        "cluster_members",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("address", sa.String(200), nullable=False),
        sa.Column("seen_at", sa.String(32), nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FENCE)


def downgrade() -> None:
    """Drop them."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER sidebet_fence ON events")
        op.execute("DROP FUNCTION sidebet_fence()")
    op.drop_table("cluster_members")
    op.drop_table("table_owners")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("epoch")
