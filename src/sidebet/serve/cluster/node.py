"""One server process of several on one PostgreSQL: its tables' ownership, the view of
the others' tables kept current by the log, and the writes it forwards."""

from __future__ import annotations

from sidebet.serve.cluster.listen import Listener
from sidebet.serve.cluster.member import Member
from sidebet.serve.cluster.ownership import Ownership
from sidebet.serve.service.core import Core

__all__ = ["Node"]


class Node:
    """This process as a member: ``address`` is where the others forward its tables'
    writes (a URL this process listens on)."""

    def __init__(self, core: Core, address: str) -> None:
        self.core = core
        self.member = Member(core)
        self.ownership = Ownership(self.member, address)
        self.listener = Listener(self.member)

    def start(self) -> None:
        """Follow the log, then claim this process's share of the tables."""
        self.listener.start()
        self.ownership.start()

    def stop(self) -> None:
        """Hand the tables back, stop following."""
        self.ownership.stop()
        self.listener.stop()

    def owner_address(self, table_id: int) -> str | None:
        """Where the table's owner takes forwarded writes (``None``: nobody else now)."""
        return self.ownership.owner_address(table_id)

    def forwards(self, table_id: int) -> bool:
        """Whether the table is known here and owned by another process."""
        return self.member.forwards(table_id)

    def owns(self, table_id: int) -> bool:
        """Whether this process owns the table (now)."""
        return self.member.owns(table_id)
