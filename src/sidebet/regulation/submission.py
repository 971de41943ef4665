"""A table's configuration: its Rules Submission (§ 601a.2) and the checks it must pass.

A table names its deck count, its Blackjack house rules, its limits and the side wagers
it offers with their paytables.  :meth:`TableConfig.violations` returns every rule the
configuration breaks, each with its subsection; bet checks live in :func:`bet_violations`.

A Rules Submission file is TOML::

    name = "Pit 2, table 14"
    decks = 6

    [rules]                  # Blackjack house rules, all optional (interpretation 14)
    dealer_hits_soft_17 = false
    blackjack_pays = "3:2"   # or "6:5"
    double = "any"           # "any", "9-11" or "10-11"
    double_after_split = true
    max_split_hands = 3
    resplit_aces = false
    hit_split_aces = false
    late_surrender = true
    insurance = true
    hole_card = "peek"       # or "after-players"
    dealer_blackjack_takes_doubles = false
    penetration = 0.75

    [limits]                 # table minimum and maximum of the Blackjack wager
    min = "10.00"
    max = "1000.00"

    [side_wagers.trilux]     # one table per side wager offered
    paytable = "TLX-3"
    min = "5.00"             # optional limits of the side wager
    max = "200.00"

    [side_wagers.three-card-poker]   # a custom paytable: odds for every winning outcome
    pays = {straight_flush = 40, three_of_a_kind = 30, straight = 10, flush = 5}

    [payout_limits]          # optional: most paid on one wager, and on one round
    trilux = "25000.00"      # winnings of one TriLux Deluxe wager (any offered wager id)
    round = "100000.00"      # winnings of one round, every seat and wager together

>>> table = TableConfig(decks=2, side_wagers={"trilux": "TLX-3", "upcard-luck": "standard",
...                                          "top3": "A"})
>>> for v in table.violations(): print(v)
§ 633c.11(i): TriLux Deluxe paytable TLX-3 is not allowed with 2 decks; the regulation requires TLX-2
§ 633b.15(b): Upcard Luck may be offered only with 4, 6 or 8 decks, not 2
§ 633c.7(a): Top 3 may be offered only with the Three Card Poker wager
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Any

from sidebet.core.bounded import parse_fraction
from sidebet.core.errors import ConfigError, RuleError, SidebetError, Violation
from sidebet.core.money import Cents, format_money, parse_money
from sidebet.core.shoe import MAX_DECKS, MIN_DECKS
from sidebet.regulation.house_rules import BlackjackPays, DoubleRule, HoleCard, HouseRules
from sidebet.regulation.wagers import WAGERS, BetContext, Wager, get_wager
from sidebet.regulation.wagers.base import times_text

__all__ = [
    "ROUND",
    "CapCheck",
    "CapStatus",
    "Limits",
    "TableConfig",
    "bet_violations",
    "cap_checks",
    "limit_violations",
    "load_table_config",
    "table_config_from_dict",
    "verify_bet",
]

_SUBMISSION = "§ 601a.2"
MAX_CONFIG_BYTES = 64 * 1024
"""The largest Rules Submission file read."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Table minimum and maximum of one wager, in cents (``None``: no limit)."""

    min: Cents | None = None
    max: Cents | None = None


@dataclass(frozen=True, slots=True)
class TableConfig:
    """A table's Rules Submission: decks, house rules, limits and side wagers offered.

    ``side_wagers`` maps a wager identifier to the paytable offered; ``limits`` maps
    ``"blackjack"`` or a wager identifier to its :class:`Limits`.
    """

    decks: int = 6
    side_wagers: Mapping[str, str] = field(default_factory=dict)
    rules: HouseRules = field(default_factory=HouseRules)
    limits: Mapping[str, Limits] = field(default_factory=dict)
    name: str = ""
    payout_limits: Mapping[str, Cents] = field(default_factory=dict)
    """The most paid (winnings) on one wager, by wager id (``"blackjack"`` or a side
    wager), and on one round (:data:`ROUND`); a key not present: no limit posted."""

    def payout_limit(self, key: str) -> Cents | None:
        """The posted maximum payout of one ``key`` wager: its own limit or the round's,
        whichever is lower (``None``: no limit posted)."""
        found = [v for v in (self.payout_limits.get(key), self.payout_limits.get(ROUND))
                 if v is not None]
        return min(found) if found else None

    @staticmethod
    def for_wager(wager: str | Wager, decks: int, paytable: str | None = None) -> TableConfig:
        """A table offering one wager (and what it requires) with the given paytable."""
        w = get_wager(wager) if isinstance(wager, str) else wager
        offered = {w.id: w.paytable(paytable, decks).name}
        for req in w.requires:
            offered[req.id] = req.default_paytable
        return TableConfig(decks=decks, side_wagers=offered)

    def offers(self, wager: str) -> bool:
        """Whether the table offers this side wager."""
        return get_wager(wager).id in self.side_wagers

    def paytable_name(self, wager: str) -> str:
        """The paytable this table uses for ``wager`` (which it must offer)."""
        w = get_wager(wager)
        if w.id not in self.side_wagers:
            raise RuleError(
                Violation(_SUBMISSION, f"this table's Rules Submission does not offer {w.name}")
            )
        return w.paytable(self.side_wagers[w.id]).name

    def violations(self) -> list[Violation]:
        """Every rule this configuration breaks, with its subsection (empty: compliant)."""
        out: list[Violation] = []
        if not MIN_DECKS <= self.decks <= MAX_DECKS:
            out.append(
                Violation(
                    "interpretation 1",
                    f"a shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {self.decks}",
                )
            )
        out.extend(self.rules.violations())
        out.extend(self.paytable_flags())
        for wager_id, paytable in self.side_wagers.items():
            try:
                wager = get_wager(wager_id)
                table = wager.paytable(paytable)
            except SidebetError as exc:
                out.append(Violation(_SUBMISSION, str(exc)))
                continue
            out.extend(wager.table_rules(self.decks, table.name))
            for req in wager.requires:
                if req.id not in self.side_wagers:
                    out.append(
                        Violation(
                            wager.requires_rule,
                            f"{wager.name} may be offered only with the {req.name} wager",
                        )
                    )
        out.extend(payout_limit_violations(self))
        out.extend(c.violation for c in cap_checks(self) if c.violation is not None)
        for key, limit in self.limits.items():
            for which, value in (("minimum", limit.min), ("maximum", limit.max)):
                if value is not None and value < 0:
                    out.append(Violation(_SUBMISSION, f"{key} table {which} "
                                         f"{format_money(value)} is negative"))
            if limit.max is not None and limit.max == 0:
                out.append(Violation(_SUBMISSION, f"{key} table maximum is 0: no wager "
                                     "could be placed"))
            if limit.min is not None and limit.max is not None and limit.min > limit.max:
                out.append(
                    Violation(
                        _SUBMISSION,
                        f"{key} table minimum {format_money(limit.min)} exceeds its maximum "
                        f"{format_money(limit.max)}",
                    )
                )
        return out

    def verify(self) -> None:
        """Raise :class:`RuleError` listing every violation."""
        found = self.violations()
        if found:
            raise RuleError(found)

    def paytable_flags(self) -> list[Violation]:
        """The custom paytables where the regulation fixes the paytable, each with the
        subsection that fixes it (part of :meth:`violations`; an analysis runs with them
        and shows them)."""
        out: list[Violation] = []
        for wager_id, paytable in self.side_wagers.items():
            if wager_id in WAGERS:
                out.extend(WAGERS[wager_id].custom_violations(paytable))
        return out


class CapStatus(StrEnum):
    """How a side wager's posted limits stand against its bet cap."""

    WITHIN = "within"
    EXCEEDS = "exceeds"
    UNCHECKED = "unchecked"
    """A maximum or minimum is posted but no Blackjack maximum to check it against."""
    NO_CAP = "no cap"
    """The wager's section sets no cap relative to the Blackjack wager."""


@dataclass(frozen=True, slots=True)
class CapCheck:
    """One offered side wager's posted limits against its section's bet cap."""

    wager: str
    rule: str
    status: CapStatus
    message: str

    @property
    def violation(self) -> Violation | None:
        """The broken cap as a violation (``None`` unless ``EXCEEDS``)."""
        return Violation(self.rule, self.message) if self.status is CapStatus.EXCEEDS else None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"wager": self.wager, "rule": self.rule, "status": self.status.value,
                "message": self.message}


def cap_checks(table: TableConfig) -> list[CapCheck]:
    """Each offered side wager's posted maximum (and minimum) against the most its section
    lets it be beside the largest Blackjack wager the table allows (the Blackjack maximum):
    a wager capped at a multiple of the Blackjack wager may not post a maximum above that
    multiple of the Blackjack maximum, nor a minimum no bet could reach.

    >>> t = TableConfig(side_wagers={"trilux": "TLX-3"},
    ...                 limits={"blackjack": Limits(10_00, 1000_00), "trilux": Limits(None, 2500_00)})
    >>> [str(c.violation) for c in cap_checks(t)]
    ['§ 633c.11(c): TriLux Deluxe table maximum 2500.00 exceeds twice the Blackjack table maximum 1000.00 (at most 2000.00 can be bet)']
    """
    bj = table.limits.get("blackjack")
    bj_max = None if bj is None else bj.max
    out: list[CapCheck] = []
    for wid in table.side_wagers:
        if wid not in WAGERS:
            continue
        w = WAGERS[wid]
        lim = table.limits.get(wid, Limits())
        if w.max_bet_ratio is None:
            needs = f" and a {w.required_names} wager" if w.requires else ""
            out.append(CapCheck(wid, w.requires_bet_rule or w.blackjack_wager_rule,
                                CapStatus.NO_CAP,
                                f"{w.name} has no cap beside the Blackjack wager (it requires "
                                f"a Blackjack wager{needs}): its posted limits stand alone"))
            continue
        times = times_text(w.max_bet_ratio)
        if bj_max is None:
            posted = [f"{which} {format_money(v)}" for which, v in
                      (("maximum", lim.max), ("minimum", lim.min)) if v is not None]
            what = (f"{w.name} table {' and '.join(posted)} cannot be checked"
                    if posted else f"{w.name} has no maximum and cannot be checked")
            out.append(CapCheck(wid, w.max_bet_rule, CapStatus.UNCHECKED,
                                f"{what} against {times}the Blackjack wager: no Blackjack "
                                "maximum posted"))
            continue
        top = w.max_bet(bj_max)
        assert top is not None
        broken = []
        if lim.max is not None and lim.max > top:
            broken.append(f"{w.name} table maximum {format_money(lim.max)} exceeds {times}the "
                          f"Blackjack table maximum {format_money(bj_max)} (at most "
                          f"{format_money(top)} can be bet)")
        if lim.min is not None and lim.min > top:
            broken.append(f"{w.name} table minimum {format_money(lim.min)} exceeds {times}the "
                          f"Blackjack table maximum {format_money(bj_max)}: no {w.name} wager "
                          "could be placed")
        if broken:
            out.extend(CapCheck(wid, w.max_bet_rule, CapStatus.EXCEEDS, b) for b in broken)
        else:
            shown = format_money(lim.max) if lim.max is not None else "none posted"
            out.append(CapCheck(wid, w.max_bet_rule, CapStatus.WITHIN,
                                f"{w.name} maximum ({shown}) within {times}the Blackjack "
                                f"table maximum {format_money(bj_max)}: at most "
                                f"{format_money(min(top, lim.max or top))}"))
    return out


ROUND = "round"
"""The key of the aggregate payout limit of one round in ``[payout_limits]``."""


def payout_limit_violations(table: TableConfig) -> list[Violation]:
    """The ``[payout_limits]`` that cannot be posted: a wager the table does not offer,
    or a limit of zero."""
    out: list[Violation] = []
    for key, value in table.payout_limits.items():
        if key not in (ROUND, "blackjack") and key not in table.side_wagers:
            out.append(Violation(_SUBMISSION, f"maximum payout for {key}, a wager this table "
                                 "does not offer"))
        if value <= 0:
            out.append(Violation(_SUBMISSION, f"maximum payout {format_money(value)} for "
                                 f"{key} must be more than 0"))
    return out


def _parse_payout_limits(source: str, data: Any) -> dict[str, Cents]:
    """``[payout_limits]``: wager id or ``round`` = an amount."""
    out: dict[str, Cents] = {}
    for key, raw in _section(source, "[payout_limits]", data).items():
        if key not in (ROUND, "blackjack"):
            try:
                key = get_wager(key).id
            except SidebetError:
                raise ConfigError(f"{source}: [payout_limits] {key}: not a wager (use a wager "
                                  f"id, blackjack or {ROUND})") from None
        try:
            out[key] = parse_money(repr(raw) if isinstance(raw, float) else raw)
        except SidebetError as exc:
            raise ConfigError(f"{source}: [payout_limits] {key}: {exc}") from None
    return out


def bet_violations(table: TableConfig, wager: str | Wager, bets: BetContext) -> list[Violation]:
    """Every rule a side-wager bet breaks at ``table``.

    >>> from sidebet.core.money import parse_money as m
    >>> t = TableConfig.for_wager("trilux", 6)
    >>> [str(v) for v in bet_violations(t, "trilux", BetContext(m("50"), m("20")))]
    ['§ 633c.11(c): TriLux Deluxe wager 50.00 exceeds twice the Blackjack wager 20.00']
    """
    w = get_wager(wager) if isinstance(wager, str) else wager
    if w.id not in table.side_wagers:
        return [Violation(_SUBMISSION, f"this table's Rules Submission does not offer {w.name}")]
    out = w.bet_violations(bets)
    out.extend(limit_violations(table, w.id, f"{w.name} wager", bets.amount))
    if bets.blackjack_bet > 0:
        out.extend(limit_violations(table, "blackjack", "Blackjack wager", bets.blackjack_bet))
    return out


def limit_violations(table: TableConfig, key: str, what: str, amount: Cents) -> list[Violation]:
    """The table minimum/maximum that ``amount`` breaks for ``key`` (``"blackjack"`` or a
    wager identifier), per the table's Rules Submission.

    >>> t = TableConfig(limits={"blackjack": Limits(10_00, 500_00)})
    >>> [str(v) for v in limit_violations(t, "blackjack", "Blackjack wager", 5_00)]
    ['§ 601a.2: Blackjack wager 5.00 is below the table minimum 10.00']
    """
    limit = table.limits.get(key)
    out: list[Violation] = []
    if limit is None:
        return out
    if limit.min is not None and 0 < amount < limit.min:
        out.append(
            Violation(
                _SUBMISSION,
                f"{what} {format_money(amount)} is below the table minimum "
                f"{format_money(limit.min)}",
            )
        )
    if limit.max is not None and amount > limit.max:
        out.append(
            Violation(
                _SUBMISSION,
                f"{what} {format_money(amount)} exceeds the table maximum "
                f"{format_money(limit.max)}",
            )
        )
    return out


def verify_bet(table: TableConfig, wager: str | Wager, bets: BetContext) -> None:
    """Raise :class:`RuleError` naming every rule the bet breaks."""
    found = bet_violations(table, wager, bets)
    if found:
        raise RuleError(found)


# --- reading a Rules Submission file -------------------------------------------------

_ENUMS: dict[str, type[BlackjackPays | DoubleRule | HoleCard]] = {
    "blackjack_pays": BlackjackPays,
    "double": DoubleRule,
    "hole_card": HoleCard,
}


def _parse_rules(data: Mapping[str, Any]) -> HouseRules:
    known = {f.name: f for f in fields(HouseRules)}
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key not in known:
            raise ConfigError(f"[rules] has no setting {key!r} (settings: {', '.join(known)})")
        default = getattr(HouseRules(), key)
        if key in _ENUMS:
            enum = _ENUMS[key]
            try:
                values[key] = enum(str(raw))
            except ValueError:
                choices = ", ".join(repr(e.value) for e in enum)
                raise ConfigError(f"[rules] {key} = {raw!r} is not one of {choices}") from None
        elif isinstance(default, bool):
            if not isinstance(raw, bool):
                raise ConfigError(f"[rules] {key} must be true or false, not {raw!r}")
            values[key] = raw
        elif isinstance(default, Fraction):
            if isinstance(raw, bool) or not isinstance(raw, int | float | str):
                raise ConfigError(f"[rules] {key} must be a number, not {raw!r}")
            try:
                values[key] = parse_fraction(raw, f"[rules] {key}")
            except SidebetError as exc:
                raise ConfigError(str(exc)) from None
        else:
            if not isinstance(raw, int) or isinstance(raw, bool):
                raise ConfigError(f"[rules] {key} must be a whole number, not {raw!r}")
            values[key] = raw
    return replace(HouseRules(), **values)


def _section(source: str, name: str, data: Any) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: {name} must be a table, not {data!r}")
    return data


def _parse_limits(where: str, data: Mapping[str, Any], extra: frozenset[str] = frozenset()) -> Limits:
    unknown = sorted(set(data) - {"min", "max"} - extra)
    if unknown:
        raise ConfigError(f"{where} unknown key(s) {', '.join(unknown)} (use min and max)")
    values: dict[str, Cents | None] = {}
    for key in ("min", "max"):
        if key in data:
            raw = data[key]
            if isinstance(raw, float):
                raw = repr(raw)
            try:
                values[key] = parse_money(raw)
            except SidebetError as exc:
                raise ConfigError(f"{where} {key}: {exc}") from None
    return Limits(**values)


def load_table_config(path: str | Path) -> TableConfig:
    """Read a Rules Submission TOML file (see the module docstring for its form).

    Errors in the file's form raise :class:`ConfigError`; rule violations are left to
    :meth:`TableConfig.violations`.
    """
    p = Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{p} is larger than {MAX_CONFIG_BYTES >> 10} KiB: not a Rules "
                          "Submission")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{p} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{p} is not a Rules Submission (nested too deeply)") from None
    except ValueError:  # an integer of thousands of digits
        raise ConfigError(f"{p} is not a Rules Submission (a number is too long)") from None
    return table_config_from_dict(data, source=str(p))


def _paytable_of(source: str, wager: Wager, spec: Mapping[str, Any]) -> str:
    """The paytable a ``[side_wagers.NAME]`` table names: ``paytable = "..."``, or the
    odds of every winning outcome, ``pays = {outcome = odds, ...}`` (a custom paytable)."""
    where = f"{source}: [side_wagers.{wager.id}]"
    if "pays" not in spec:
        return str(spec.get("paytable", wager.default_paytable))
    if "paytable" in spec:
        raise ConfigError(f"{where} gives both paytable and pays: give one")
    try:
        return wager.custom_paytable(spec["pays"], f"{where} pays").name
    except SidebetError as exc:
        raise ConfigError(str(exc)) from None


def table_config_from_dict(data: Mapping[str, Any], source: str = "configuration") -> TableConfig:
    """Build a :class:`TableConfig` from parsed TOML data."""
    allowed = {"name", "decks", "rules", "limits", "side_wagers", "payout_limits"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {', '.join(unknown)}")
    decks = data.get("decks", 6)
    if not isinstance(decks, int) or isinstance(decks, bool):
        raise ConfigError(f"{source}: decks must be a whole number, not {decks!r}")
    rules = _parse_rules(_section(source, "[rules]", data.get("rules", {})))
    limits: dict[str, Limits] = {}
    if "limits" in data:
        limits["blackjack"] = _parse_limits("[limits]", _section(source, "[limits]", data["limits"]))
    side: dict[str, str] = {}
    for wager_id, spec in _section(source, "[side_wagers]", data.get("side_wagers", {})).items():
        if not isinstance(spec, Mapping):
            raise ConfigError(f"{source}: [side_wagers.{wager_id}] must be a table")
        try:
            wager = get_wager(wager_id)
        except SidebetError as exc:
            raise ConfigError(f"{source}: {exc}") from None
        extra = sorted(set(spec) - {"paytable", "pays", "min", "max"})
        if extra:
            raise ConfigError(
                f"{source}: [side_wagers.{wager_id}] unknown key(s) {', '.join(extra)}"
            )
        side[wager.id] = _paytable_of(source, wager, spec)
        if "min" in spec or "max" in spec:
            limits[wager.id] = _parse_limits(
                f"[side_wagers.{wager_id}]", spec, frozenset({"paytable", "pays"})
            )
    return TableConfig(
        decks=decks,
        side_wagers=side,
        rules=rules,
        limits=limits,
        name=str(data.get("name", "")),
        payout_limits=_parse_payout_limits(source, data.get("payout_limits", {})),
    )
