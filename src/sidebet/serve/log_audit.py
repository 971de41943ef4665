"""Offline audit of an exported table log (``sidebet audit FILE``), § 811a.7.

Checks, each made or reported as not made:

1. the header and the hash chain: sequence numbers 1, 2, ... with no gap, each event's
   ``prev`` the previous event's ``hash`` and its ``hash`` recomputed
   (:func:`~sidebet.serve.db.chain_hash`), the header's count and head hash (a removed,
   inserted or edited event is detected);
1a. the anchor (:mod:`sidebet.serve.anchor`): the header's head signed with the operator's
   Ed25519 key, every ``head`` event (the head signed at a round's end) signed over the
   event before it with the key that signs the chain there, every ``key`` event (a key
   rotation) signed by the key before it, handing the chain to the next, the last of
   them the header's key, which is the operator's published one when the auditor gives
   it (``public_key``; else reported as not verified), and every signed head the auditor
   kept (``heads``) found in the chain: a chain rewritten, even with every hash
   recomputed, or cut short, even with its header rewritten, is refused;
2. every revealed shoe: its server seed hashes to the commitment published before its
   first card, and the client seeds it was shuffled with are those given before that card;
3. every action replayed through the table engine (:class:`~sidebet.serve.live.LiveTable`)
   with the cards of the recomputed shuffle: the engine must produce exactly the stored
   records, ledger entries and wallet moves;
4. every finished round: its game record's history replays to its stored final state
   (:func:`sidebet.table.history.replay`), its cards are the shoe positions recorded, and
   its per-player totals (credits at start and end, total bet, total won) follow from the
   ledger.

A shoe not yet revealed (the one in use when the log was exported) cannot be recomputed:
its actions are still replayed through the engine, with the cards the log records, and the
report says that its shuffle was not verified.

>>> from sidebet.serve.log_audit import audit_lines
>>> audit_lines([])
Traceback (most recent call last):
...
sidebet.core.errors.SidebetError: line 1: the log is empty (expected a sidebet-table-log/1 header)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidebet.core.cards import parse_cards
from sidebet.core.errors import SidebetError
from sidebet.core.money import format_money
from sidebet.regulation.submission import table_config_from_dict
from sidebet.serve import fair
from sidebet.serve.anchor import verify_head, verify_rotation
from sidebet.serve.chain import EXPORT_FORMAT, GENESIS, canonical, chain_hash
from sidebet.serve.live import LiveTable, house_delta
from sidebet.serve.physical import PhysicalTable, is_physical
from sidebet.table import Move
from sidebet.table.history import replay
from sidebet.table.records import record_from_json

__all__ = ["AuditReport", "audit_file", "audit_lines", "read_head"]


@dataclass
class AuditReport:
    """What the audit verified, and what it could not."""

    table: int
    events: int = 0
    heads_verified: int = 0
    shoes_verified: list[int] = field(default_factory=list)
    actions_replayed: int = 0
    rounds_verified: int = 0
    not_verified: list[str] = field(default_factory=list)
    physical: bool = False
    """A dealer-assist table: its cards are those entered, no shuffle is claimed."""
    cards_entered: int = 0
    corrections: int = 0

    def lines(self) -> list[str]:
        """The report for people."""
        out = [f"table {self.table}: hash chain of {self.events} events verified",
               f"signed heads verified (Ed25519): {self.heads_verified}",
               f"shoes verified (commitment, client seeds, shuffle): "
               f"{len(self.shoes_verified)}",
               f"actions replayed through the engine: {self.actions_replayed}",
               f"rounds verified (replay, cards, totals): {self.rounds_verified}"]
        if self.physical:
            out.append(f"physical shoe: cards as entered (no commitment is claimed): "
                       f"{self.cards_entered} cards entered in dealing order, each left in "
                       f"the shoe; {self.rounds_verified} rounds verified on them")
            out.append(f"corrections approved by a supervisor, their ledger entries and "
                       f"wallet moves recomputed: {self.corrections}")
        out.extend(f"NOT verified: {n}" for n in self.not_verified)
        return out


def _fail(where: str, message: str) -> SidebetError:
    return SidebetError(f"{where}: {message}")


def read_head(path: str | Path) -> dict[str, Any]:
    """A signed head kept from the server (``GET /api/tables/{id}/head``), read as JSON."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SidebetError(f"cannot read {p}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise SidebetError(f"{p} is not a signed head (JSON)") from None
    if not isinstance(data, dict) or not {"table", "seq", "head", "signature"} <= set(data):
        raise SidebetError(f"{p} is not a signed head (table, seq, head, key, signature)")
    return data


def audit_file(path: str | Path, *, public_key: str | None = None,
               heads: Iterable[dict[str, Any]] = (), unsigned: bool = False) -> AuditReport:
    """Audit an exported log file (see :func:`audit_lines`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise SidebetError(f"cannot read {p}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise SidebetError(f"{p} is not UTF-8 text") from None
    return audit_lines(text.splitlines(), public_key=public_key, heads=heads,
                       unsigned=unsigned)


def _parse(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    items: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _fail(f"line {n}", f"not JSON ({exc.msg})") from None
        if not isinstance(item, dict):
            raise _fail(f"line {n}", "not a JSON object")
        items.append(item)
    if not items:
        raise _fail("line 1", f"the log is empty (expected a {EXPORT_FORMAT} header)")
    header = items[0]
    if header.get("format") != EXPORT_FORMAT:
        raise _fail("line 1", f"not a {EXPORT_FORMAT} header")
    return header, items[1:]


def _check_chain(header: dict[str, Any], events: list[dict[str, Any]]) -> None:
    prev = GENESIS
    table = header.get("table")
    if not isinstance(table, int):
        raise _fail("header", "names no table")
    for n, ev in enumerate(events, 1):
        where = f"event {n}"
        try:
            seq, kind, at, payload = ev["seq"], ev["kind"], ev["at"], ev["payload"]
            stored_prev, stored = ev["prev"], ev["hash"]
        except KeyError as exc:
            raise _fail(where, f"missing field {exc}") from None
        if seq != n:
            raise _fail(where, f"sequence number {seq} where {n} was expected "
                               "(an event was removed or inserted)")
        if ev.get("table") != table:
            raise _fail(where, f"belongs to table {ev.get('table')}, not {table}")
        if stored_prev != prev:
            raise _fail(where, "its previous hash is not the hash of the event before it")
        if chain_hash(prev, table, seq, str(kind), str(at), canonical(payload)) != stored:
            raise _fail(where, "its hash does not match its content (the event was edited)")
        prev = stored
    if header.get("events") != len(events):
        raise _fail("header", f"announces {header.get('events')} events, the log has "
                              f"{len(events)} (events were removed or added at the end)")
    if header.get("head") != prev:
        raise _fail("header", "its head hash is not the last event's hash")


def _walk_keys(table: int, events: list[dict[str, Any]], report: AuditReport) -> list[str]:
    """Check every ``head`` event (signed over the event before it) and every ``key``
    event (the key before it handing the chain to the next) with the key that signs the
    chain at that point (the first one signed names it); the keys in order."""
    keys: list[str] = []
    for ev in events:
        if ev["kind"] not in ("head", "key"):
            continue
        where, p, seq = f"event {ev['seq']}", ev["payload"], int(ev["seq"])
        if p.get("table") != table or p.get("seq") != seq - 1 or \
                p.get("head") != events[seq - 2]["hash"]:
            raise _fail(where, "the signed head is not the chain's head before it")
        if not keys:
            keys.append(str(p.get("key")))
        try:
            if ev["kind"] == "head":
                verify_head(p, keys[-1])
            else:
                keys.append(verify_rotation(p, keys[-1]))
        except SidebetError as exc:
            raise _fail(where, str(exc)) from None
        report.heads_verified += 1
    return keys


def _check_anchor(header: dict[str, Any], events: list[dict[str, Any]],
                  public_key: str | None, heads: Iterable[dict[str, Any]],
                  report: AuditReport, unsigned: bool) -> None:
    table = int(header["table"])
    if "signature" not in header and "key" not in header and unsigned:
        report.not_verified.append(
            "the chain's head: the log is not signed (an export from before signed heads), "
            "so a log cut short, or rewritten with its chain recomputed, passes every "
            "other check")
        return
    if "signature" not in header or "key" not in header:
        raise _fail("header", "its head is not signed (the operator's key signs every "
                              "export's head)")
    key = str(header["key"])
    if public_key is not None and key != public_key:
        raise _fail("header", "its head is signed with a key that is not the operator's "
                              "(--public-key)")
    try:
        verify_head({"table": table, "seq": len(events), "head": header["head"], "key": key,
                     "signature": header["signature"]}, key)
    except SidebetError as exc:
        raise _fail("header", f"{exc} (the log was rewritten or cut short)") from None
    report.heads_verified += 1
    keys = _walk_keys(table, events, report)
    if keys and keys[-1] != key:
        raise _fail("header", "its head is not signed with the key the chain was handed to "
                              "by its last key rotation")
    for kept in heads:
        seq = int(kept.get("seq", -1))
        try:
            # signed with one of the chain's keys (the one it names, if the chain's)
            verify_head(kept, kept["key"] if kept.get("key") in keys else key)
        except SidebetError as exc:
            raise _fail("a kept signed head", str(exc)) from None
        if kept.get("table") != table:
            raise _fail("a kept signed head", f"it is of table {kept.get('table')}, not {table}")
        if seq > len(events):
            raise _fail("a kept signed head", f"it was signed at event {seq}, the log has "
                                              f"{len(events)} (the log was cut short)")
        if seq < 1 or events[seq - 1]["hash"] != kept.get("head"):
            raise _fail("a kept signed head", f"event {seq} is not the one it signed (the "
                                              "log was rewritten)")
        report.heads_verified += 1
    if public_key is None:
        report.not_verified.append(
            f"the signing key {key[:16]}... was not compared with the operator's published "
            "key (give it with --public-key)")


def audit_lines(lines: Iterable[str], *, public_key: str | None = None,
                heads: Iterable[dict[str, Any]] = (), unsigned: bool = False) -> AuditReport:
    """Audit an exported log given as lines of text (``public_key``: the operator's, in
    hex; ``heads``: signed heads kept from the server; ``unsigned``: a log exported before
    heads were signed is audited, its head reported as not verified); raises
    :class:`SidebetError` at the first check that fails."""
    header, events = _parse(lines)
    _check_chain(header, events)
    report = AuditReport(table=int(header["table"]), events=len(events))
    _check_anchor(header, events, public_key, heads, report, unsigned)
    try:
        _replay(report, events)
    except SidebetError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise SidebetError(f"malformed log ({type(exc).__name__}: {exc})") from None
    return report


def _replay(report: AuditReport, events: list[dict[str, Any]]) -> None:
    if not events or events[0]["kind"] != "table":
        raise _fail("event 1", "the log does not start with the table's creation")
    seeds: dict[int, bytes] = {}
    commitments: dict[int, str] = {}
    for ev in events:
        if ev["kind"] == "shoe-commit":
            commitments[int(ev["payload"]["shoe"])] = str(ev["payload"]["commitment"])
        if ev["kind"] == "shoe-reveal":
            p = ev["payload"]
            n = int(p["shoe"])
            seed = bytes.fromhex(p["server_seed"])
            if n not in commitments or not fair.verify_seed(seed, commitments[n]):
                raise _fail(f"event {ev['seq']}", f"shoe {n}'s revealed server seed does not "
                                                  "match the commitment published before it")
            seeds[n] = seed

    def seed_of(n: int) -> bytes | None:
        return seeds.get(n)

    first = events[0]["payload"]
    config = table_config_from_dict(first["config"], source="the table event")
    report.physical = is_physical(first)
    table_kind = PhysicalTable if report.physical else LiveTable
    live = table_kind(report.table, str(first["name"]), config, seats=int(first["seats"]),
                unit=int(first["unit"]), time_limit=int(first["time_limit"]),
                default_action=str(first["default_action"]), seed_of=seed_of)
    for ev in events:
        where = f"event {ev['seq']}"
        kind, payload = str(ev["kind"]), ev["payload"]
        try:
            if kind == "action":
                _action(live, payload, where)
                report.actions_replayed += 1
            elif kind == "round-end":
                _round_end(live, payload["record"], where)
                live.apply(kind, payload, ev["at"])
                report.rounds_verified += 1
            elif kind == "shoe-reveal":
                n = int(payload["shoe"])
                shoe = live.shoes[n]
                if shoe.order is not None and payload["client_seeds"] != shoe.client_seeds:
                    raise _fail(where, f"shoe {n}: the client seeds revealed are not those "
                                       "given before its first card")
                live.apply(kind, payload, ev["at"])
                if shoe.stacked is None:
                    report.shoes_verified.append(n)
            elif kind == "shoe-stack":
                live.apply(kind, payload, ev["at"])
                report.not_verified.append(
                    f"shoe {payload['shoe']} was stacked for a test (event {ev['seq']}): its "
                    "order is not its fair shuffle")
            else:
                live.apply(kind, payload, ev["at"])
                report.cards_entered += kind == "card"
                report.corrections += kind == "correction"
        except SidebetError as exc:
            raise _fail(where, str(exc)) from None
    if live.round_open:
        report.not_verified.append(f"round {live.round_no} is in progress (its actions were "
                                   "replayed; its result is not known yet)")
    for n, shoe in sorted(live.shoes.items()):
        if shoe.blind:
            report.not_verified.append(
                f"shoe {n}'s shuffle: its server seed is not revealed yet (the shoe is in "
                f"use); its {shoe.position} cards were replayed as the log records them")


def _action(live: LiveTable, payload: dict[str, Any], where: str) -> None:
    live.sealed_now.clear()
    live.feed = [] if isinstance(live, PhysicalTable) else list(  # its own cards entered
        parse_cards(" ".join(payload["dealt"])))
    done = live.perform(record_from_json(payload["decision"]))
    made, entries = done.records, done.entries
    if live.feed or done.dealt != payload["dealt"]:
        raise _fail(where, "the cards dealt are not the shoe's next cards")
    if made != payload["records"]:
        raise _fail(where, "the engine does not reproduce the stored records")
    if [e.to_json() for e in entries] != payload["ledger"]:
        raise _fail(where, "the engine does not reproduce the stored ledger entries")
    moves = {str(a): d for a, d in sorted(live.moves(entries).items())}
    if moves != payload["moves"] or house_delta(entries) != payload["house"]:
        raise _fail(where, "the wallet moves are not those the ledger implies")
    sealed = [{"shoe": n, "client_seeds": list(live.shoes[n].client_seeds)}
              for n in live.sealed_now]
    if sealed != payload["sealed"]:
        raise _fail(where, "the shoes shuffled here are not those recorded")


def _round_end(live: LiveTable, record: dict[str, Any], where: str) -> None:
    state = live.state
    if state is None:
        raise _fail(where, "a round ends that never opened")
    history = record["history"]
    replayed = replay(history)
    if history["records"] != [r.to_json() for r in state.records]:
        raise _fail(where, "the game record's history is not the round played")
    if replayed.snapshot() != state.snapshot():
        raise _fail(where, "the game record's final state is not the round played")
    spans = [{"shoe": n, "commitment": live.shoes[n].commitment, "start": s, "cards": c}
             for n, s, c in live.spans]
    if history.get("fair_shoes") != spans:
        raise _fail(where, "the game record's shoe positions are not the cards dealt")
    for p in record["players"]:
        seat = int(p["seat"])
        start = live.round_chips.get(seat, 0)
        net = state.ledger.player_net(seat)
        won = state.ledger.total(Move.RETURN, seat) + state.ledger.total(Move.WIN, seat)
        expect = {"credits_start": format_money(start), "credits_end": format_money(start + net),
                  "total_bet": format_money(state.ledger.total(Move.STAKE, seat)),
                  "total_won": format_money(won), "net": format_money(net)}
        if any(p[k] != v for k, v in expect.items()):
            raise _fail(where, f"seat {seat}'s totals are not those of the ledger")
