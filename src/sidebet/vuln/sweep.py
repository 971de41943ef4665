"""Countermeasures: the counter's figures swept over one table setting, and the
continuous shuffler (every round from a full, freshly shuffled shoe).

``penetration=0.5:0.9:0.05`` (start:stop:step, stop included) or ``seats=1,3,7``.

>>> parse_sweep("penetration=0.5:0.6:0.05")
('penetration', (0.5, 0.55, 0.6))
>>> parse_sweep("decks=1,2,6")
('decks', (1.0, 2.0, 6.0))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

from sidebet.core.errors import SidebetError
from sidebet.vuln.counter import CounterSpec, Result, run_counter, with_setting

__all__ = ["SETTINGS", "SweepPoint", "SweepResult", "parse_sweep", "sweep"]

SETTINGS = ("penetration", "cut-cards", "decks", "seats")


def parse_sweep(text: str) -> tuple[str, tuple[float, ...]]:
    """``SETTING=START:STOP:STEP`` or ``SETTING=V1,V2,...``."""
    name, sep, values = text.partition("=")
    name = name.strip().lower()
    if not sep or name not in SETTINGS:
        raise SidebetError(f"--sweep takes SETTING=START:STOP:STEP or SETTING=V1,V2 with a "
                           f"setting of {', '.join(SETTINGS)}, not {text!r}")
    try:
        if ":" in values:
            parts = [float(p) for p in values.split(":")]
            if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
                raise ValueError
            count = math.floor((parts[1] - parts[0]) / parts[2] + 1e-9) + 1
            if count > 200:
                raise SidebetError(f"--sweep {text!r} has {count} points; at most 200")
            points = tuple(round(parts[0] + i * parts[2], 10) for i in range(count))
        else:
            points = tuple(float(p) for p in values.split(",") if p.strip())
    except ValueError:
        raise SidebetError(f"--sweep: {values!r} is not START:STOP:STEP or a list of numbers"
                           ) from None
    if not points or not all(math.isfinite(p) for p in points):
        raise SidebetError(f"--sweep: {values!r} gives no values")
    if name != "penetration" and any(p != int(p) for p in points):
        raise SidebetError(f"--sweep: {name} takes whole numbers, not {values!r}")
    return name, points


@dataclass(frozen=True)
class SweepPoint:
    """One point of a sweep: the setting's value (``None`` for the continuous shuffler)."""

    label: str
    value: float | None
    result: Result


@dataclass(frozen=True)
class SweepResult:
    """The sweep's points, then the continuous shuffler at the base settings."""

    setting: str
    points: tuple[SweepPoint, ...]


def sweep(spec: CounterSpec, setting: str, values: tuple[float, ...], rounds: int,
          seed: int, *, trigger: float | None = None, workers: int = 1,
          backend: str = "local", address: str | None = None,
          progress: Callable[[int], None] | None = None) -> SweepResult:
    """Run the counter at every value of ``setting`` and with a continuous shuffler."""
    specs: list[tuple[str, float | None, CounterSpec]] = []
    for v in values:
        if setting == "penetration" and not 0 < v < 1:
            raise SidebetError(f"--sweep: penetration {v:g} is not between 0 and 1")
        specs.append((f"{setting}={v:g}", v, with_setting(spec, setting, v)))
    for _, _, s in specs:
        s.sim.verify()
    csm = replace(spec, sim=replace(spec.sim, penetration=Fraction(1, 52 * spec.decks)))
    specs.append(("continuous shuffler", None, csm))
    out = []
    done = 0
    for label, value, s in specs:
        def step(k: int, base: int = done) -> None:
            if progress is not None:
                progress(base + k)

        res = run_counter(s, rounds, seed, trigger=trigger, workers=workers, backend=backend,
                          address=address, progress=step)
        out.append(SweepPoint(label, value, res))
        done += rounds
        if res.interrupted:
            break
    return SweepResult(setting, tuple(out))
