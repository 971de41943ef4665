"""This process's tables as one process of several on one PostgreSQL: the tables it owns,
each with its fencing number (claimed and handed back by :mod:`.ownership`), and the view
of the others', followed from the log (:mod:`.listen`).  It is the
:class:`~sidebet.serve.service.core.Cluster` of the process's
:class:`~sidebet.serve.service.core.Core`, which a single process does not have."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.exc import DBAPIError

from sidebet.serve.chain import GENESIS
from sidebet.serve.errors import NotOwner
from sidebet.serve.models import GameTable
from sidebet.serve.service.core import Core, follow, public_event

__all__ = ["Member"]


class Member:
    """Which tables ``core`` writes (``epochs``: their fencing numbers) and the copies of
    the others' tables it serves reads from; ``offer`` is called with each table newly
    served here (the ownership may claim it)."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.epochs: dict[int, int] = {}
        self.offer: Callable[[int], None] = lambda _t: None
        core.cluster = self

    def owns(self, table_id: int) -> bool:
        """Whether this process writes the table's log (now)."""
        return table_id in self.epochs

    def forwards(self, table_id: int) -> bool:
        """Whether the table is known here and owned by another process."""
        return table_id in self.core.tables and not self.owns(table_id)

    def epoch(self, table_id: int) -> int:
        """The fencing number this process writes into the table's events (0: a new
        table's first events, before anyone owns it)."""
        return self.epochs.get(table_id, 0)

    def fenced(self, exc: BaseException, table_id: int) -> None:
        """Raise :class:`NotOwner` if the database refused the table's events as written
        under a stale fencing number (another process has taken the table over)."""
        if isinstance(exc, DBAPIError) and "sidebet-fence" in str(exc.orig):
            self.epochs.pop(table_id, None)
            raise NotOwner(table_id) from exc

    def added(self, table_id: int) -> None:
        """A table is served here now: offered to the ownership."""
        self.offer(table_id)

    def adopt(self, table_id: int) -> None:
        """Follow a table another process has created (when its log says it exists)."""
        if not 0 < table_id < 2**31:  # ids are 32-bit integers
            return
        core = self.core
        with core.sessions() as s:
            if s.get(GameTable, table_id) is None:
                return
        core.add_table(core.load(table_id), new_only=True)

    def catch_up(self, table_id: int) -> None:
        """Apply to a table this process does not own the events its owner has committed
        since, publish its view and broadcast them (rebuilt from the log on any doubt)."""
        core = self.core
        with core.lock(table_id):
            live = core.tables[table_id]
            try:
                with core.sessions() as s:
                    new = follow(s, live, live.head or GENESIS)
                live.sealed_now.clear()
            except Exception:
                core.reload(table_id)
                live = core.tables[table_id]
                new = []
            live.publish()
            for ev in new:
                core.broadcast(table_id, public_event(ev, live.hide_hole, live.round_no))

    def take(self, table_id: int, epoch: int) -> None:
        """Own a table under fencing number ``epoch``, its memory caught up with its log."""
        with self.core.lock(table_id):
            self.catch_up(table_id)
            self.epochs[table_id] = epoch

    def give_up(self, table_id: int) -> None:
        """Stop writing a table (another process may take it over)."""
        with self.core.lock(table_id):
            self.epochs.pop(table_id, None)
