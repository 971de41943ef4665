"""A whole set-up as TOML (``sidebet advantage SETUP.toml``), and the one builder that
turns settings, from the file or the command line, into an :class:`AdvantageSpec`::

    table = "examples/table-6deck.toml"  # a Rules Submission: decks, rules, paytables
    penetration = 0.75
    burn = 1                             # cards burned after the shuffle (default 0)
    cut_spread = 26                      # each shoe's cut card within ±26 cards (default 0)
    spots = 1                            # the counter's hands (with spots_by: the most)
    # spots_by = "3:2"                   # optional: spots by index, 2 from +3, else 1
    others = 4                           # other players, basic strategy (default 4)
    rounds = "1e7"
    seed = 1

    [count]
    system = "hi-lo"                     # or tags = "2:1,3:1,...", irc = -20
    resolution = "half"                  # exact, half or whole decks
    rounding = "floor"                   # truncate, floor or round
    ace_bet = 0                          # ace side count: points per extra ace unseen,
    ace_insurance = 0                    # for the bets and for insurance (default 0)

    [play]
    indices = "i18+fab4"                 # or a list: ["16vT:S@0", "ins@3"], or
                                         # "generated:i18+fab4" (the exact analyser's)

    [bet]
    ramp = "1-12"                        # or "2:2,3:4,4:8"
    min = 1
    max = 12
    wong_in = 1                          # optional: back-count, enter at +1
    wong_out = -1                        # optional: leave below -1
    cover = "none"                       # or "jump:2" (at most double or halve the
                                         # last bet), "parlay" (raise after a win), both

    [side.blazing7s]
    mode = "count"                       # never, flat, ev or count
    count = "linear-3"                   # a count of `sidebet vulnerability`, or tags
    ramp = "3:1"

    [money]
    bankroll = 1000
    trip_rounds = 1000
    goal = 1000
    rounds_per_hour = 100
    kelly = 0.5
    chip = 1
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sidebet.advantage.counts import (
    CountSystem,
    Resolution,
    Rounding,
    custom_system,
    named_system,
)
from sidebet.advantage.generate import Generated
from sidebet.advantage.indices import INDEX_LISTS, parse_plays
from sidebet.advantage.metrics import Bankroll
from sidebet.advantage.spec import (
    DEFAULT_OTHERS,
    RAMPS,
    SIDE_MODES,
    AdvantageSpec,
    Ramp,
    SidePlan,
    parse_cover,
    parse_ramp,
)
from sidebet.core.bounded import parse_penetration
from sidebet.core.errors import SidebetError
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.submission import load_table_config
from sidebet.regulation.wagers import get_wager
from sidebet.sim.spec import MAX_SEATS, default_sides, resolve_sides

__all__ = ["MAX_SETUP_BYTES", "Setup", "build", "load_setup"]

MAX_SETUP_BYTES = 64 * 1024
_SECTIONS = {"count", "play", "bet", "side", "money"}
_TOP = {"table", "decks", "penetration", "strategy", "spots", "spots_by", "others", "rounds",
        "seed", "burn", "cut_spread"}
_KEYS = {
    "count": {"system", "tags", "irc", "resolution", "rounding", "ace_bet", "ace_insurance"},
    "play": {"indices"},
    "bet": {"ramp", "min", "max", "wong_in", "wong_out", "cover"},
    "money": {"bankroll", "trip_rounds", "goal", "rounds_per_hour", "kelly", "chip"},
}
_SIDE_KEYS = {"mode", "units", "count", "tags", "ramp"}


@dataclass(frozen=True)
class Setup:
    """A built set-up: the spec, the money, the run's rounds and seed (``None``: not
    given)."""

    spec: AdvantageSpec
    money: Bankroll
    rounds: int | None
    seed: int | None
    generated: tuple[Generated, ...] = ()
    """The generated index rows, when the plays were generated."""


def load_setup(path: Path) -> dict[str, Any]:
    """The settings of a set-up file (checked for form, not built)."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_SETUP_BYTES + 1)
    except OSError as exc:
        raise SidebetError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_SETUP_BYTES:
        raise SidebetError(f"{path} is larger than {MAX_SETUP_BYTES >> 10} KiB: not a set-up")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise SidebetError(f"{path} is not a TOML set-up: {exc}") from None
    unknown = sorted(set(data) - _TOP - _SECTIONS)
    if unknown:
        raise SidebetError(f"{path}: unknown key(s) {', '.join(unknown)}")
    out: dict[str, Any] = {k: data[k] for k in _TOP if k in data}
    for section, keys in _KEYS.items():
        part = data.get(section, {})
        if not isinstance(part, Mapping):
            raise SidebetError(f"{path}: [{section}] must be a table")
        bad = sorted(set(part) - keys)
        if bad:
            raise SidebetError(f"{path}: unknown key(s) in [{section}]: {', '.join(bad)}")
        out.update({f"{section}.{k}": v for k, v in part.items()})
    sides = data.get("side", {})
    if not isinstance(sides, Mapping):
        raise SidebetError(f"{path}: [side] must hold one table per wager")
    plans: dict[str, dict[str, Any]] = {}
    for wager, plan in sides.items():
        if not isinstance(plan, Mapping):
            raise SidebetError(f"{path}: [side.{wager}] must be a table")
        bad = sorted(set(plan) - _SIDE_KEYS)
        if bad:
            raise SidebetError(f"{path}: unknown key(s) in [side.{wager}]: {', '.join(bad)}")
        plans[str(wager)] = dict(plan)
    out["side"] = plans
    if "table" in out:
        out["table"] = str((path.parent / str(out["table"])).resolve()) if not Path(
            str(out["table"])).is_absolute() else str(out["table"])
    return out


def _int(settings: Mapping[str, Any], key: str, default: int | None, lo: int, hi: int
         ) -> int | None:
    value = settings.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise SidebetError(f"{key}: a whole number, not {value!r}")
    if not lo <= value <= hi:
        raise SidebetError(f"{key} must be {lo} to {hi:,}, not {value}")
    return int(value)


def _num(settings: Mapping[str, Any], key: str, default: float) -> float:
    value = settings.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SidebetError(f"{key}: a number, not {value!r}")
    return float(value)


def _rounds(value: Any) -> int | None:
    if value is None:
        return None
    try:
        n = float(str(value).replace("_", ""))
    except ValueError:
        raise SidebetError(f"rounds: a number such as 1e7, not {value!r}") from None
    if not 1 <= n <= 1e13 or n != int(n):
        raise SidebetError(f"rounds must be a whole number from 1 to 1e13, not {value}")
    return int(n)


def _side_plan(wager: str, plan: Mapping[str, Any], decks: int, paytable: str,
               low: int, high: int) -> SidePlan:
    mode = str(plan.get("mode", "flat")).lower()
    if mode not in SIDE_MODES:
        raise SidebetError(f"side {wager}: mode is one of {', '.join(SIDE_MODES)}, not {mode!r}")
    units = _int(plan, "units", 1, 1, high) or 1
    if mode != "count":
        return SidePlan(wager, mode, units)
    from sidebet.vuln.eor import effects_of_removal  # the exact PAR kernel: only now
    from sidebet.vuln.tags import named_count, parse_tags

    eor = effects_of_removal(wager, decks, paytable)
    if "tags" in plan:
        tags = parse_tags(str(plan["tags"]), eor)
        name = "tags " + tags.describe()
    else:
        count = named_count(str(plan.get("count", "linear")), eor)
        if count.tags is None:
            raise SidebetError(f"side {wager}: betting by count needs a linear count "
                               "(linear, linear-2, linear-3, ...) or tags")
        tags, name = count.tags, count.name
    ramp = parse_ramp(str(plan.get("ramp", "")), low=1, high=high)
    if not ramp.steps:
        raise SidebetError(f"side {wager}: betting by count needs a ramp, e.g. '3:1'")
    return SidePlan(wager, "count", units, name, tags.values, ramp)


def _hilo_only(system: CountSystem, what: str, names: list[str], instead: str) -> None:
    """Refuse a published list or ramp (Hi-Lo's, on its true count) with another count."""
    if names and system.values != named_system("hi-lo").values:
        raise SidebetError(f"{what} {'+'.join(names)}: published for Hi-Lo's true count, not "
                           f"the {system.name} count; {instead}")


def build(settings: Mapping[str, Any]) -> Setup:
    """The set-up of ``settings`` (keys as :func:`load_setup` returns them)."""
    rules = HouseRules()
    decks = 6
    paytables: dict[str, str] = {}
    if settings.get("table"):
        table = load_table_config(str(settings["table"]))
        table.verify()
        rules, decks, paytables = table.rules, table.decks, dict(table.side_wagers)
    decks = _int(settings, "decks", decks, 1, 8) or decks
    pen = settings.get("penetration")
    penetration = parse_penetration(str(pen), "penetration") if pen is not None else None
    system_text = settings.get("count.system")
    tags_text = settings.get("count.tags")
    irc = _int(settings, "count.irc", None, -10_000, 10_000)
    if tags_text is not None:
        system = custom_system(str(tags_text), irc=irc)
    else:
        system = named_system(str(system_text or "hi-lo"))
        if irc is not None:
            system = replace(system, irc=irc)
    try:
        resolution = Resolution(str(settings.get("count.resolution", "exact")).lower())
        rounding = Rounding(str(settings.get("count.rounding", "floor")).lower())
    except ValueError:
        raise SidebetError("resolution is exact, half or whole; rounding is truncate, floor "
                           "or round") from None
    indices = settings.get("play.indices", "none")
    generated: tuple[Generated, ...] = ()
    if isinstance(indices, str) and indices.strip().lower().startswith("generated"):
        from sidebet.advantage.generate import generated_plays
        from sidebet.sim.strategy_tables import strategy_arrays

        names = indices.partition(":")[2].strip() or "i18+fab4"
        plays, generated = generated_plays(names, system, rules, decks,
                                           strategy_arrays(rules, decks))
    elif isinstance(indices, str) or (isinstance(indices, list)
                                      and all(isinstance(x, str) for x in indices)):
        plays = parse_plays(indices)
        _hilo_only(system, "indices", [p.strip().lower() for p in (
            indices.replace("+", ",").split(",") if isinstance(indices, str) else indices)
            if p.strip().lower() in INDEX_LISTS and p.strip().lower() != "none"],
            "use generated indices (generated:LISTS) or write its own plays")
    else:
        raise SidebetError("indices: a list's name, plays such as '16vT:S@0', or a list of "
                           f"plays, not {indices!r}")
    low = _int(settings, "bet.min", 1, 1, 100_000) or 1
    high = _int(settings, "bet.max", 100_000, 1, 100_000) or 100_000
    ramp_text = str(settings.get("bet.ramp", "flat"))
    _hilo_only(system, "ramp", [ramp_text] if ramp_text.strip().lower() in RAMPS else [],
               "write its own ramp on its index (INDEX:UNITS,...)")
    ramp = parse_ramp(ramp_text, low, high)
    side_cfg: Mapping[str, Mapping[str, Any]] = settings.get("side", {})
    named = {get_wager(w).id: p for w, p in side_cfg.items()}
    wanted = list(named) if named else []
    if settings.get("side.all"):
        wanted = list(default_sides(decks))
    sides = resolve_sides(wanted, decks, paytables)
    pays = dict(sides)
    plans = tuple(_side_plan(w, named[w], decks, pays[w], low, high) for w in named)
    spots_text = str(settings.get("spots_by", "")).strip()
    spots_by = parse_ramp(spots_text, 1, MAX_SEATS) if spots_text else Ramp(())
    most = max([u for _, u in spots_by.steps] or [1])
    spots = _int(settings, "spots", most, 1, 7) or most
    spots_by = Ramp(spots_by.steps, 1, spots) if spots_by.steps else spots_by
    spec = AdvantageSpec(
        decks=decks, rules=rules, penetration=penetration,
        strategy=str(settings.get("strategy", "exact")), sides=sides, plans=plans,
        spots=spots,
        others=_int(settings, "others", min(DEFAULT_OTHERS, MAX_SEATS - spots), 0, 6) or 0,
        system=system, resolution=resolution, rounding=rounding, plays=plays, ramp=ramp,
        wong_in=_int(settings, "bet.wong_in", None, -99, 99),
        wong_out=_int(settings, "bet.wong_out", None, -99, 99), spots_by=spots_by,
        cover=parse_cover(str(settings.get("bet.cover", "none"))),
        burn=_int(settings, "burn", 0, 0, 52) or 0,
        ace_bet=_int(settings, "count.ace_bet", 0, -10, 10) or 0,
        ace_ins=_int(settings, "count.ace_insurance", 0, -10, 10) or 0,
        cut_spread=_int(settings, "cut_spread", 0, 0, 416) or 0)
    spec.verify()
    money = Bankroll(
        bank=_num(settings, "money.bankroll", 1000.0),
        trip_rounds=_int(settings, "money.trip_rounds", 1000, 1, 10**9) or 1000,
        goal=_num(settings, "money.goal", 1000.0),
        rounds_per_hour=_num(settings, "money.rounds_per_hour", 100.0),
        kelly=_num(settings, "money.kelly", 0.5),
        chip=_int(settings, "money.chip", 1, 1, 1_000_000) or 1)
    money.verify()
    seed = _int(settings, "seed", None, 0, 2**63 - 1)
    return Setup(spec, money, _rounds(settings.get("rounds")), seed, generated)
