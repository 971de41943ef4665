"""``sidebet simulate`` played again from its plan: no typer, no numpy.

The first run of a command line takes the normal path: typer parses it, the spec builds
its tables (numpy), the kernel plays the rounds, and the result is printed.  When that run
can be played again this way (complete rounds, one local worker, the table printed, no
``--config`` file, which could change), it also writes the command's *plan* to the disk
cache, keyed by the command line less the values of ``--rounds`` and ``--seed``
(:func:`plan_key`, :func:`save`): the spec's tables
(:class:`sidebet.sim.plan.Plan`) and the rest of what the answer needs, none of which
depends on the seed's draws (the seed as given or none, the rounds, the threads and the
chunk size as given, the exact values, the paytable flags).

A later run of the same command line, or of one with other rounds or another seed,
finds the plan before typer is imported (:func:`attempt`, called first by
:func:`sidebet.cli.run`), reads those two values as the command does
(:func:`with_values`; one it would refuse leaves the command to it), plays the rounds
through the plain kernel library (:mod:`sidebet.sim.plain_kernel`) on threads while the main
thread loads what prints the result, and makes and prints the result with the same code
as the normal path (:func:`sidebet.sim.schedule.simulate_chunks`,
:func:`sidebet.cli.sim_output.report`).
The rounds are played every time; the output is the normal path's, but for the seconds
taken (``tests/test_replay.py``).  Anything amiss (no plan, a damaged one, no library, a
progress bar to show, ``SIDEBET_REPLAY=off``) leaves the command to the normal path.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sidebet.sim.plan import Plan
    from sidebet.sim.results import SimResult

__all__ = ["KEEP", "VARYING", "Saved", "attempt", "command_line", "enabled", "plan_key",
           "plan_path", "save", "with_values"]

command_line: list[str] | None = None
"""The process's arguments after the program's name, when the console script runs the
command (:func:`sidebet.cli.run`); ``None`` when the command runs in another program (a
test's runner): only a whole process's command line is saved with its plan."""

KEEP = 32
"""Plans kept: the oldest beyond these are removed when one is saved."""

_MAGIC = b"sidebet-replay\0"


def enabled() -> bool:
    """Whether plans may be saved and replayed (``SIDEBET_REPLAY=off`` forbids it)."""
    return os.environ.get("SIDEBET_REPLAY", "").strip().lower() not in ("off", "0", "no",
                                                                        "false")


VARYING = ("--rounds", "--seed")
"""The options whose values a plan does not depend on: a command line that differs from a
saved one only in them is played from the same plan (:func:`plan_key`)."""

_GIVEN = "\0"
"""What stands for a value taken out of a command line (no argument holds a NUL byte)."""


def plan_key(args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """The command line ``args`` with the value of each option of :data:`VARYING` taken
    out, and those values.  A value is taken out only where its option appears once, as
    ``--rounds VALUE`` or ``--rounds=VALUE``, with a value that does not start with
    ``-`` (and, for ``--seed``, in plain digits), and the two forms stay apart: the
    command line parser then reads the same options from every command line of one key,
    whatever the values.

    >>> plan_key(["simulate", "--rounds", "1e6", "--seed=7", "--decks", "2"])[0]
    ['simulate', '--rounds', '\\x00', '--seed=\\x00', '--decks', '2']
    >>> plan_key(["simulate", "--seed", "x1", "--rounds", "-5"])[1]
    {}
    """
    out = list(args)
    values: dict[str, str] = {}
    for option in VARYING:
        at = [i for i, arg in enumerate(out)
              if arg == option or arg.startswith(option + "=")]
        if len(at) != 1 or "--" in out[:at[0]]:
            continue
        i = at[0]
        if out[i] == option:
            if i + 1 == len(out):
                continue
            value, end, stand_in = out[i + 1], i + 2, [option, _GIVEN]
        else:
            value, end, stand_in = out[i][len(option) + 1:], i + 1, [f"{option}={_GIVEN}"]
        if not value or value.startswith("-") or (
                option == "--seed" and not (value.isascii() and value.isdigit())):
            continue
        out[i:end] = stand_in
        values[option] = value
    return out, values


def plan_path(args: Sequence[str]) -> Path | None:
    """Where the plan of the command line ``args`` (the arguments after the program's
    name) is kept, beside the plain kernel library (``None``: the disk cache is off):
    named by :func:`plan_key`'s command line."""
    from sidebet.native.cabi import library_path

    where = library_path()
    if where is None:
        return None
    key = hashlib.sha256(json.dumps(plan_key(args)[0]).encode()).hexdigest()[:32]
    return where.parent / "plans" / f"{key}.plan"


@dataclass(frozen=True, slots=True)
class Saved:
    """A command's plan and its options: ``rounds``, ``seed`` (``None``: a fresh one each
    run), ``threads`` and ``chunk_shoes`` as given (``None``: chosen at each run),
    ``progress`` (whether the command may show a progress bar: only without
    ``--no-progress``), the exact values and the paytable flags it prints, and the
    values of :data:`VARYING` as written (``given``: :func:`save` fills it in)."""

    plan: Plan
    rounds: int
    seed: int | None
    threads: int | None
    chunk_shoes: int | None
    progress: bool
    exact: dict[str, float]
    flags: tuple[str, ...]
    given: dict[str, str] = field(default_factory=dict)

    def dump(self) -> bytes:
        """The saved command as one file's bytes (:func:`sidebet.sim.plan.framed`)."""
        from sidebet.sim.plan import framed

        return framed(_MAGIC, {"rounds": self.rounds, "seed": self.seed,
                               "threads": self.threads, "chunk_shoes": self.chunk_shoes,
                               "progress": self.progress, "exact": self.exact,
                               "flags": list(self.flags), "given": self.given},
                      self.plan.dump())

    @staticmethod
    def load(data: bytes) -> Saved:
        """The inverse of :meth:`dump`; a :class:`ValueError` for any other bytes."""
        from sidebet.sim.plan import Plan, unframed
        from sidebet.sim.shape import json_int

        head, at = unframed(_MAGIC, data, "saved sidebet command")
        try:
            saved = Saved(plan=Plan.load(data[at:]), rounds=json_int(head["rounds"]),
                          seed=_maybe_int(head["seed"]), threads=_maybe_int(head["threads"]),
                          chunk_shoes=_maybe_int(head["chunk_shoes"]),
                          progress=bool(head["progress"]),
                          exact={str(k): float(v) for k, v in head["exact"].items()},
                          flags=tuple(str(f) for f in head["flags"]),
                          given={str(k): str(v) for k, v in head["given"].items()})
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"a damaged saved command ({type(exc).__name__})") from None
        return saved


def _maybe_int(value: Any) -> int | None:
    from sidebet.sim.shape import json_int

    return None if value is None else json_int(value)


def save(args: Sequence[str], saved: Saved) -> Path | None:
    """Keep ``saved`` as the plan of the command line ``args`` (see the module's text);
    the file, or ``None`` where plans are off or cannot be written (nothing else
    changes: a command never fails for its plan)."""
    from sidebet.native.atomic import replace_file

    path = plan_path(args) if enabled() else None
    if path is None:
        return None
    data = replace(saved, given=plan_key(args)[1]).dump()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, lambda f: f.write(data))
        _prune(path.parent)
    except OSError:
        return None
    return path


def _prune(folder: Path) -> None:
    """Remove the oldest plans beyond :data:`KEEP`."""
    plans = []
    for p in folder.glob("*.plan"):
        try:
            plans.append((p.stat().st_mtime_ns, p))
        except OSError:
            continue
    for _, p in sorted(plans, reverse=True)[KEEP:]:
        try:
            p.unlink()
        except OSError:
            continue


def attempt(argv: Sequence[str]) -> bool:
    """Run ``argv`` (the process's arguments, the program first) from its plan when it is
    ``simulate`` with a saved plan that applies here; ``False`` (nothing done) otherwise."""
    if len(argv) < 2 or argv[1] != "simulate" or not enabled():
        return False
    path = plan_path(argv[1:])
    if path is None or not path.is_file():
        return False
    from sidebet.native.cabi import library

    if library() is None:
        return False
    try:
        saved = with_values(Saved.load(path.read_bytes()), plan_key(argv[1:])[1])
    except (OSError, ValueError):
        return False  # a damaged plan, or a value the command line will refuse
    if saved.progress and (sys.stderr.isatty() or os.environ.get("FORCE_TERMINAL")
                           or os.environ.get("TTY_COMPATIBLE")):
        return False  # the normal path would show a progress bar (rich's terminal test)
    from sidebet.native.cabi import KernelFailed

    try:
        result = _play(saved)
    except (KernelFailed, ValueError, TypeError) as exc:  # nothing printed yet
        print(f"sidebet: the saved plan {path.name} could not be played ({exc}); "
              "running the command", file=sys.stderr)
        return False
    from sidebet.cli.sim_output import report

    report(result, saved.flags, "table")
    return True


def with_values(saved: Saved, values: dict[str, str]) -> Saved:
    """``saved`` with the rounds and the seed of this command line's ``values``
    (:func:`plan_key`), read as the command reads them (a value written as the saved
    command's was is not read again); a :class:`ValueError` for one it refuses (it then
    says why itself)."""
    rounds, seed = saved.rounds, saved.seed
    if "--rounds" in values and values["--rounds"] != saved.given.get("--rounds"):
        from sidebet.core.bounded import MAX_ROUNDS, parse_count
        from sidebet.core.errors import SidebetError

        try:
            rounds = parse_count(values["--rounds"], "--rounds", high=MAX_ROUNDS)
        except SidebetError as exc:
            raise ValueError(str(exc)) from None
    if "--seed" in values:
        from sidebet.sim.seeding import SEEDS

        seed = int(values["--seed"])
        if seed not in SEEDS:
            raise ValueError("--seed out of range")
    return replace(saved, rounds=rounds, seed=seed)


def _play(saved: Saved) -> SimResult:
    """Play the saved command's rounds (the normal path's result for the same seed)."""
    from sidebet.native.threads import idle_cores
    from sidebet.sim.plan import play_plan

    def load_output() -> None:  # on the main thread, while the first chunks play
        import sidebet.cli.sim_render  # noqa: F401  (rich's tables)

    return play_plan(saved.plan, saved.rounds, saved.seed,
                     threads=saved.threads or idle_cores(), chunk_shoes=saved.chunk_shoes,
                     exact=saved.exact, meanwhile=load_output)
