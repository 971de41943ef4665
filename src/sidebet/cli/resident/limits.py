"""What bounds a command's process, taken on by the fork that runs it for a client.

A command run alone has its caller's niceness, processors, control groups and resource
limits (``nice``, ``taskset``, ``ulimit``, ``systemd-run``).  A fork of the resident
process starts with the resident process's.  So the client sends its own
(:func:`sidebet.cli.daemon.wire.limits`) and the fork takes them on (:meth:`Limits.apply`)
before it runs anything, or, when a fork cannot be bounded as the client was, the
resident process declines the command and the client runs it itself
(:meth:`Limits.refusal`):

* another control group (its CPU and memory quotas): a process cannot move itself;
* a lower niceness, processors the resident process may not use, or a hard limit above
  the resident process's: only raising them would need privileges;
* a different limit on CPU time, address space, data, stack or resident memory: these
  count what the process did and how it was laid out since it started (the fork's
  warm-up, the memory it shares with the resident process, its threads' stacks), so
  the same limit would not bound the fork as it bounds a fresh process.

>>> own = Limits.read(b"nice=0\\0cpus=0,1\\0cgroup=0::/\\0RLIMIT_NOFILE=1024,4096")
>>> own.refusal(own) is None
True
>>> Limits.read(b"nice=0\\0cpus=0,1\\0cgroup=0::/\\0RLIMIT_NOFILE=1024,8192").refusal(own)
'a higher hard limit RLIMIT_NOFILE than the resident process has'
>>> Limits.read(b"nice=-5\\0cpus=0\\0cgroup=0::/\\0RLIMIT_NOFILE=64,64").refusal(own)
'a higher priority (niceness -5) than the resident process has'
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["HISTORY", "Limits"]

HISTORY = frozenset({"RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_RSS"})
"""Limits that count or lay out what a process did since it started: a fork takes a
command only where the client's equal the resident process's."""

_UNLIMITED = -1


@dataclass(frozen=True, slots=True)
class Limits:
    """A process's niceness, processors (``None``: the system does not tell), control
    groups (the text of ``/proc/self/cgroup``) and resource limits (name → soft, hard;
    ``-1`` unlimited)."""

    nice: int
    cpus: frozenset[int] | None
    cgroup: str
    rlimits: dict[str, tuple[int, int]]

    @classmethod
    def read(cls, field: bytes) -> Limits:
        """The limits of a run request's field (``ValueError`` when it is not one)."""
        items: dict[str, str] = {}
        for item in field.split(b"\0"):
            name, sep, value = os.fsdecode(item).partition("=")
            if not sep or name in items:
                raise ValueError("a damaged list of limits")
            items[name] = value
        try:
            cpus = items.pop("cpus", None)
            rlimits = {}
            for name in [n for n in items if n.startswith("RLIMIT_")]:
                soft, hard = (int(v) for v in items.pop(name).split(","))
                if min(soft, hard) < _UNLIMITED:
                    raise ValueError("a negative limit")
                rlimits[name] = (soft, hard)
            limits = cls(int(items.pop("nice")),
                         None if cpus is None else frozenset(int(c) for c in cpus.split(",")),
                         items.pop("cgroup"), rlimits)
        except KeyError as exc:
            raise ValueError(f"limits without {exc}") from None
        if items:
            raise ValueError(f"an unknown limit {sorted(items)[0]!r}")
        return limits

    @classmethod
    def own(cls) -> Limits:
        """This process's limits."""
        from sidebet.cli.daemon.wire import limits

        return cls.read(limits())

    def refusal(self, own: Limits) -> str | None:
        """Why a fork of a process bounded by ``own`` cannot be bounded as this client is
        (``None``: it can)."""
        if self.cgroup != own.cgroup:
            return "another control group"
        if self.nice < own.nice:
            return f"a higher priority (niceness {self.nice}) than the resident process has"
        if self.cpus is not None and (own.cpus is None or not self.cpus <= own.cpus):
            return "processors the resident process may not use"
        for name, (soft, hard) in sorted(self.rlimits.items()):
            mine = own.rlimits.get(name)
            if mine is None:
                return f"a limit {name} the resident process does not know"
            if name in HISTORY and (soft, hard) != mine:
                return f"another limit {name}"
            if _above(hard, mine[1]):
                return f"a higher hard limit {name} than the resident process has"
        return None

    def apply(self) -> None:
        """Bound this process (a fork, one thread) as the client was; an :class:`OSError`
        or :class:`ValueError` when the system refuses (:meth:`refusal` says beforehand)."""
        import resource

        if os.getpriority(os.PRIO_PROCESS, 0) != self.nice:
            os.setpriority(os.PRIO_PROCESS, 0, self.nice)
        if self.cpus is not None and os.sched_getaffinity(0) != self.cpus:
            os.sched_setaffinity(0, self.cpus)
        for name, bound in self.rlimits.items():
            which = getattr(resource, name)
            if name not in HISTORY and resource.getrlimit(which) != bound:
                resource.setrlimit(which, bound)


def _above(limit: int, other: int) -> bool:
    """Whether ``limit`` allows more than ``other`` (``-1``: unlimited)."""
    if limit == _UNLIMITED:
        return other != _UNLIMITED
    return other != _UNLIMITED and limit > other
