"""Rounds from files: the engine's hand histories (``sidebet play --save``, format
``sidebet-round/1`` or ``sidebet-session/2``) and a server's exported table log (one JSON
object a line: a header, then the table's events; each ``round-end`` event carries the
round's history).

Every reader returns the table's deck count, its side wagers and the rounds in order, or
raises a :class:`~sidebet.core.errors.SidebetError` of one line naming the input and the
rule.  Reading checks the form of what it uses, not the log's hash chain or shuffles
(``sidebet audit`` does).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sidebet.core.cards import parse_cards
from sidebet.core.errors import SidebetError
from sidebet.regulation.submission import TableConfig, table_config_from_dict
from sidebet.surveil.events import RoundSeen, round_seen
from sidebet.table.history import loads, read_text, rounds_of
from sidebet.table.ledger import LedgerEntry
from sidebet.table.records import record_from_json

__all__ = ["TableRounds", "read_file", "round_from_event", "rounds_from_history",
           "rounds_from_log"]


@dataclass(frozen=True, slots=True)
class TableRounds:
    """A table's configuration and its rounds."""

    config: TableConfig
    rounds: tuple[RoundSeen, ...]
    not_finished: int = 0

    @property
    def sides(self) -> dict[str, str]:
        """The side wagers offered, ``{wager: paytable}``."""
        return dict(self.config.side_wagers)


def _spans(data: dict[str, Any], where: str) -> list[tuple[int, int, int]]:
    spans = data.get("fair_shoes") or data.get("shoes")
    if not isinstance(spans, list) or not spans:
        raise SidebetError(f"{where}: names no shoe its cards came from ('shoes')")
    out = []
    for s in spans:
        if not isinstance(s, dict) or not all(
                isinstance(s.get(k), int) and not isinstance(s.get(k), bool) and s[k] >= 0
                for k in ("shoe", "start", "cards")):
            raise SidebetError(f"{where}: a shoe span is not {{shoe, start, cards}} "
                               "of whole numbers")
        out.append((s["shoe"], s["start"], s["cards"]))
    return out


def _round(data: dict[str, Any], game: str, players: dict[int, str] | None) -> RoundSeen:
    try:
        records = [record_from_json(r) for r in data["records"]]
        cards = parse_cards(data["cards"]) if data["cards"] else ()
        final = data.get("final")
        ledger = ([LedgerEntry.from_json(e) for e in final.get("ledger") or ()]
                  if isinstance(final, dict) else None)
    except SidebetError as exc:
        raise SidebetError(f"round {game}: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SidebetError(f"round {game}: malformed history ({str(exc)[:80]})") from None
    return round_seen(game, records, cards, _spans(data, f"round {game}"), players, ledger)


def _config(data: Any, where: str) -> TableConfig:
    if not isinstance(data, dict):
        raise SidebetError(f"{where}: no table configuration ('config')")
    return table_config_from_dict(data, source=where)


def rounds_from_history(data: dict[str, Any]) -> TableRounds:
    """The rounds of an engine history (already parsed by :func:`sidebet.table.history.loads`)."""
    config = _config(data.get("config"), "hand history")
    rounds = tuple(_round(r, str(n), None) for n, r in enumerate(rounds_of(data), 1))
    return TableRounds(config, rounds)


def _players(record: dict[str, Any], where: str) -> dict[int, str]:
    out: dict[int, str] = {}
    players = record.get("players") or []
    if not isinstance(players, list):
        raise SidebetError(f"{where}: 'players' is not a list")
    for p in players:
        if isinstance(p, dict) and isinstance(p.get("seat"), int):
            out[p["seat"]] = str(p.get("player") or p.get("account") or f"seat {p['seat']}")
    return out


def round_from_event(payload: dict[str, Any], where: str) -> RoundSeen:
    """The round of a server log's ``round-end`` event (its payload: ``game`` and the game
    record, whose ``history`` is the engine's and whose ``players`` name the seats), as an
    export holds it or the server's database stores it."""
    record = payload.get("record")
    history = record.get("history") if isinstance(record, dict) else None
    if not isinstance(record, dict) or not isinstance(history, dict):
        raise SidebetError(f"{where}: a round-end without its history")
    return _round(history, str(payload.get("game")), _players(record, where))


def rounds_from_log(lines: Iterable[str], log_format: str) -> TableRounds:
    """The finished rounds of an exported table log whose header names ``log_format``."""
    config: TableConfig | None = None
    rounds: list[RoundSeen] = []
    opened: set[str] = set()
    header = True
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SidebetError(f"line {n}: not JSON ({exc.msg})") from None
        except RecursionError:
            raise SidebetError(f"line {n}: nested too deeply") from None
        if not isinstance(item, dict):
            raise SidebetError(f"line {n}: not a JSON object")
        if header:
            if item.get("format") != log_format:
                raise SidebetError(f"line {n}: not a {log_format} header")
            header = False
            continue
        kind, payload = item.get("kind"), item.get("payload")
        if not isinstance(payload, dict):
            raise SidebetError(f"line {n}: an event without a payload object")
        if kind == "table":
            config = _config(payload.get("config"), f"line {n}")
        elif kind == "round-open":
            opened.add(str(payload.get("game")))
        elif kind == "round-end":
            if config is None:
                raise SidebetError(f"line {n}: a round-end before the table event")
            rnd = round_from_event(payload, f"line {n}")
            rounds.append(rnd)
            opened.discard(rnd.game)
        elif kind == "correction" and payload.get("kind") in ("void", "misdeal"):
            # a voided round (a dealer-assist table's correction) was not played
            game = str(payload.get("game"))
            rounds = [r for r in rounds if r.game != game]
            opened.discard(game)
    if header:
        raise SidebetError(f"line 1: the log is empty (expected a {log_format} header)")
    if config is None:
        raise SidebetError("the log has no table event (its configuration)")
    return TableRounds(config, tuple(rounds), len(opened))


def read_file(path: str | Path, log_format: str) -> TableRounds:
    """A table log (its first line a ``log_format`` header) or an engine history."""
    text = read_text(path)
    first = text.lstrip().split("\n", 1)[0]
    if log_format in first and first.lstrip().startswith("{") and first.rstrip().endswith("}"):
        return rounds_from_log(text.splitlines(), log_format)
    return rounds_from_history(loads(text))
