"""Hand histories: a round as JSON, and its replay to the identical final state.

The history holds the table configuration, the seats, the cards in the order they were
dealt, the shoe's commitment, and every record.  Replaying applies the recorded decisions
to a stacked shoe of the same cards and checks that every record and the final state
come out identical.

>>> from sidebet.config import TableConfig
>>> from sidebet.table.game import Table
>>> from sidebet.table.policy import play_out
>>> t = Table(TableConfig(decks=6, side_wagers={"trilux": "TLX-3"}), seats=2, seed=11)
>>> r = t.new_round()
>>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.place_bet(1, "trilux", 5_00)
>>> _ = r.place_bet(2, "blackjack", 25_00); _ = r.close_bets(); play_out(r)
>>> data = round_to_json(r, commitment=t.shoe.commitment)
>>> replay(loads(dumps(data))).snapshot() == r.snapshot()
True
"""

from __future__ import annotations

import json
from dataclasses import fields
from fractions import Fraction
from pathlib import Path
from typing import Any

from sidebet.cards import parse_cards
from sidebet.config import TableConfig, table_config_from_dict
from sidebet.errors import SidebetError
from sidebet.money import format_money, parse_money
from sidebet.rules import HouseRules
from sidebet.table.dealing import DealingShoe
from sidebet.table.records import Record
from sidebet.table.state import RoundState

__all__ = [
    "FORMAT",
    "config_to_dict",
    "dumps",
    "load_history",
    "loads",
    "replay",
    "replay_steps",
    "round_to_json",
    "save_history",
]

FORMAT = "sidebet-round/1"


def config_to_dict(config: TableConfig) -> dict[str, Any]:
    """A table configuration in the form of the Rules Submission TOML (readable back by
    :func:`sidebet.config.table_config_from_dict`).

    >>> table_config_from_dict(config_to_dict(TableConfig(decks=2))) == TableConfig(decks=2)
    True
    """
    rules: dict[str, Any] = {}
    for f in fields(HouseRules):
        v = getattr(config.rules, f.name)
        if isinstance(v, Fraction):
            rules[f.name] = str(v)
        elif hasattr(v, "value") and not isinstance(v, bool | int):
            rules[f.name] = v.value
        else:
            rules[f.name] = v
    out: dict[str, Any] = {"name": config.name, "decks": config.decks, "rules": rules}

    def limit(key: str) -> dict[str, str]:
        lim = config.limits.get(key)
        d: dict[str, str] = {}
        if lim is not None and lim.min is not None:
            d["min"] = format_money(lim.min)
        if lim is not None and lim.max is not None:
            d["max"] = format_money(lim.max)
        return d

    if "blackjack" in config.limits:
        out["limits"] = limit("blackjack")
    out["side_wagers"] = {w: {"paytable": p, **limit(w)} for w, p in config.side_wagers.items()}
    return out


def round_to_json(state: RoundState, commitment: str | None = None) -> dict[str, Any]:
    """The round's hand history as JSON data."""
    chips = state.starting_chips
    return {
        "format": FORMAT,
        "config": config_to_dict(state.config),
        "seats": state.seat_count,
        "unit": format_money(state.unit),
        "chips": None if chips is None else {str(s): format_money(c) for s, c in chips.items()},
        "commitment": commitment,
        "cards": " ".join(c.code for c in state.dealt),
        "records": [r.to_json() for r in state.records],
        "final": state.snapshot(),
    }


def dumps(data: dict[str, Any]) -> str:
    """JSON text of a history."""
    return json.dumps(data, indent=1, ensure_ascii=False)


def loads(text: str) -> dict[str, Any]:
    """Parse a history's JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SidebetError(f"not a hand history (invalid JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SidebetError(f"not a hand history (expected format {FORMAT!r})")
    return data


def save_history(path: str | Path, state: RoundState, commitment: str | None = None) -> None:
    """Write the round's history to ``path``."""
    Path(path).write_text(dumps(round_to_json(state, commitment)), encoding="utf-8")


def load_history(path: str | Path) -> dict[str, Any]:
    """Read a history file."""
    try:
        return loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SidebetError(f"cannot read {path}: {exc.strerror or exc}") from None


def _fresh(data: dict[str, Any]) -> tuple[RoundState, list[Record]]:
    config = table_config_from_dict(data["config"], source="hand history")
    chips = data.get("chips")
    state = RoundState(
        config,
        int(data["seats"]),
        DealingShoe.stacked(parse_cards(data["cards"])).deal,
        unit=parse_money(data["unit"]),
        chips=None if chips is None else {int(s): parse_money(c) for s, c in chips.items()},
    )
    return state, [Record.from_json(r) for r in data["records"]]


def replay_steps(data: dict[str, Any]) -> list[tuple[Record, RoundState]]:
    """Replay decision by decision: ``(decision record, state after it)`` pairs; the state
    object is the same one, advanced (take what you need before the next item)."""
    state, records = _fresh(data)
    out: list[tuple[Record, RoundState]] = []
    for rec in records:
        if rec.is_decision:
            state.apply(rec)
            out.append((rec, state))
    return out


def replay(data: dict[str, Any]) -> RoundState:
    """Replay a history and check it reproduces every record and the final state."""
    state, records = _fresh(data)
    for rec in records:
        if rec.is_decision:
            state.apply(rec)
    if state.records != records:
        raise SidebetError("the replay does not reproduce the recorded hand history")
    final = data.get("final")
    if final is not None and state.snapshot() != final:
        raise SidebetError("the replay does not reproduce the recorded final state")
    return state
