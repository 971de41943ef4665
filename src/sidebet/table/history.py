"""Hand histories: a round or a whole session as JSON, replay and audit.

A round's history (format ``sidebet-round/1``) holds the table configuration, the seats,
the cards in the order they were dealt, the commitment of the shoe its first card came
from (and, under ``"shoes"``, every shoe it drew from), and every record.  Replaying
applies the recorded decisions to a stacked shoe of the same cards and checks that every
record and the final state come out identical.

A session's history (format ``sidebet-session/2``) holds the configuration, seats and
seed, every published commitment, the revealed shoes (order and salt) of the shoes
finished so far, and its rounds.  The audit (:mod:`sidebet.table.session_audit`) reads
it: it replays every round with :func:`replay` and checks the revealed shoes.

>>> from sidebet.regulation.submission import TableConfig
>>> from sidebet.table.game import Table
>>> from sidebet.table.policy import play_out
>>> t = Table(TableConfig(decks=6, side_wagers={"trilux": "TLX-3"}), seats=2, seed=11)
>>> r = t.new_round()
>>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.place_bet(1, "trilux", 5_00)
>>> _ = r.place_bet(2, "blackjack", 25_00); _ = r.close_bets(); play_out(r)
>>> data = round_to_json(r, commitment=t.shoe.commitment)
>>> replay(loads(dumps(data))).snapshot() == r.snapshot()
True
>>> t.finish(r)
>>> session = session_to_json(t, [round_to_json(r, shoes=t.round_shoes)], reveal_current=True)
>>> [len(rnd["records"]) for rnd in rounds_of(loads(dumps(session)))] == [len(r.records)]
True
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import fields
from fractions import Fraction
from pathlib import Path
from typing import Any

from sidebet.core.cards import Card, parse_cards
from sidebet.core.errors import SidebetError
from sidebet.core.money import format_money, parse_money
from sidebet.regulation.house_rules import HouseRules
from sidebet.regulation.submission import TableConfig, table_config_from_dict
from sidebet.table.dealing import DealingShoe
from sidebet.table.game import Table
from sidebet.table.records import Record, record_from_json
from sidebet.table.shoe_sequence import ShoeSpan
from sidebet.table.state import RoundState

__all__ = [
    "FORMAT",
    "MAX_HISTORY_BYTES",
    "OLD_SESSION_FORMATS",
    "SESSION_FORMAT",
    "check_writable",
    "config_to_dict",
    "dumps",
    "load_history",
    "loads",
    "read_text",
    "replay",
    "round_to_json",
    "rounds_of",
    "save_history",
    "save_session",
    "session_to_json",
]

FORMAT = "sidebet-round/1"
SESSION_FORMAT = "sidebet-session/2"
OLD_SESSION_FORMATS = ("sidebet-session/1",)
"""Older session formats :func:`verify` still reads (reporting what they cannot show)."""
MAX_HISTORY_BYTES = 64 * 1024 * 1024
"""The largest history file read (a long session is a few megabytes)."""


def config_to_dict(config: TableConfig) -> dict[str, Any]:
    """A table configuration in the form of the Rules Submission TOML (readable back by
    :func:`sidebet.regulation.submission.table_config_from_dict`).

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


def round_to_json(
    state: RoundState,
    commitment: str | None = None,
    *,
    shoes: Sequence[ShoeSpan] | None = None,
) -> dict[str, Any]:
    """The round's hand history as JSON data.

    ``shoes`` (from :attr:`Table.round_shoes`) records which shoe(s) the cards came from;
    the stored ``"commitment"`` is then that of the shoe of the round's first card.
    """
    chips = state.starting_chips
    if shoes:
        commitment = shoes[0].commitment
    out: dict[str, Any] = {
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
    if shoes:
        out["shoes"] = [span.to_json() for span in shoes]
    return out


def _codes(order: Sequence[int]) -> str:
    return " ".join(Card.from_index(i).code for i in order)


def session_to_json(
    table: Table,
    rounds: Sequence[dict[str, Any]],
    *,
    reveal_current: bool = False,
    abandoned: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A session's history: the table, every published commitment, the revealed shoes
    (each finished shoe's ``order`` as card codes in dealing order, its ``salt`` in hex and
    how many cards it ``dealt``) and the rounds (each a :func:`round_to_json`).

    ``reveal_current`` ends the session: the shoe in use is revealed too and ``"ended"``
    is true.  ``abandoned`` is the round the session was stopped in, unfinished (its
    :func:`round_to_json`), so the audit can account for the cards it took.
    """
    revealed = [(k, order, salt, digest, table.revealed_dealt[k])
                for k, (order, salt, digest) in enumerate(table.revealed)]
    if reveal_current:
        shoe = table.shoe
        revealed.append((table.shoe_number, shoe.order, shoe.reveal_salt(), shoe.commitment,
                         shoe.position))
    chips = table.starting_chips
    return {
        "format": SESSION_FORMAT,
        "config": config_to_dict(table.config),
        "seats": table.seats,
        "seed": table.seed,
        "unit": format_money(table.unit),
        "chips": None if chips is None else format_money(chips),
        "commitments": list(table.commitments),
        "shoes": [
            {"shoe": k, "commitment": digest, "salt": salt.hex(), "order": _codes(order),
             "dealt": dealt}
            for k, order, salt, digest, dealt in revealed
        ],
        "rounds": list(rounds),
        "ended": reveal_current,
        "abandoned": abandoned if reveal_current else None,
    }


def _write_atomically(path: str | Path, text: str) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                               suffix=".tmp")
    try:
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(path: str | Path, *, force: bool = False) -> None:
    """Check, before the first card, that a history can be written to ``path``: its folder
    exists and is writable (a probe file is created and removed), it is not a folder, and
    it does not exist unless ``force``."""
    target = Path(path)
    if target.is_dir():
        raise SidebetError(f"cannot write {path}: it is a folder")
    if target.exists() and not force:
        raise SidebetError(f"{path} exists; use --force to overwrite it")
    try:
        fd, probe = tempfile.mkstemp(dir=target.parent or Path("."),
                                     prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise SidebetError(f"cannot write {path}: {exc.strerror or exc}") from None
    os.close(fd)
    os.unlink(probe)


def save_session(
    path: str | Path,
    table: Table,
    rounds: Sequence[dict[str, Any]],
    *,
    reveal_current: bool = False,
    abandoned: dict[str, Any] | None = None,
) -> None:
    """Write the session's history to ``path`` atomically (a temporary file in the same
    folder, then :func:`os.replace`), so a crash leaves the previous version whole."""
    try:
        _write_atomically(path, dumps(session_to_json(
            table, rounds, reveal_current=reveal_current, abandoned=abandoned)))
    except OSError as exc:
        raise SidebetError(f"cannot write {path}: {exc.strerror or exc}") from None


def dumps(data: dict[str, Any]) -> str:
    """JSON text of a history."""
    return json.dumps(data, indent=1, ensure_ascii=False)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 40:
        raise ValueError(f"a number of {len(text)} digits")
    return int(text)


def _no_float(text: str) -> float:
    raise ValueError(f"a non-integer number {text[:20]}")


def loads(text: str) -> dict[str, Any]:
    """Parse a history's JSON text (at most :data:`MAX_HISTORY_BYTES`; numbers whole and
    at most 40 digits; nesting bounded).

    >>> loads('{"format": "sidebet-round/1", "x": ' + '[' * 100_000 + ']' * 100_000 + '}')
    Traceback (most recent call last):
    ...
    sidebet.core.errors.SidebetError: not a hand history (nested too deeply)
    """
    if len(text) > MAX_HISTORY_BYTES:
        raise SidebetError(f"not a hand history (larger than {MAX_HISTORY_BYTES >> 20} MiB)")
    try:
        data = json.loads(text, parse_int=_bounded_int, parse_float=_no_float,
                          parse_constant=_no_float)
    except json.JSONDecodeError as exc:
        raise SidebetError(f"not a hand history (invalid JSON: {exc})") from None
    except RecursionError:
        raise SidebetError("not a hand history (nested too deeply)") from None
    except ValueError as exc:
        raise SidebetError(f"not a hand history ({exc})") from None
    formats = (FORMAT, SESSION_FORMAT, *OLD_SESSION_FORMATS)
    if not isinstance(data, dict) or data.get("format") not in formats:
        raise SidebetError(
            f"not a hand history (expected format {FORMAT!r} or {SESSION_FORMAT!r})"
        )
    return data


def save_history(
    path: str | Path,
    state: RoundState,
    commitment: str | None = None,
    *,
    shoes: Sequence[ShoeSpan] | None = None,
) -> None:
    """Write the round's history to ``path`` (atomically)."""
    try:
        _write_atomically(path, dumps(round_to_json(state, commitment, shoes=shoes)))
    except OSError as exc:
        raise SidebetError(f"cannot write {path}: {exc.strerror or exc}") from None


def load_history(path: str | Path) -> dict[str, Any]:
    """Read a history file."""
    return loads(read_text(path))


def read_text(path: str | Path) -> str:
    """A history file's text (at most :data:`MAX_HISTORY_BYTES`, UTF-8), or one line of
    error."""
    p = Path(path)
    try:
        with p.open("rb") as f:
            raw = f.read(MAX_HISTORY_BYTES + 1)
    except OSError as exc:
        raise SidebetError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_HISTORY_BYTES:
        raise SidebetError(f"{path}: not a hand history (larger than "
                           f"{MAX_HISTORY_BYTES >> 20} MiB)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SidebetError(f"{path}: not a hand history (not UTF-8 text)") from None


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
    return state, [record_from_json(r) for r in data["records"]]


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


def rounds_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The rounds of a history: the round itself, or a session's rounds in order."""
    if data.get("format") in (SESSION_FORMAT, *OLD_SESSION_FORMATS):
        rounds = data.get("rounds")
        if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
            raise SidebetError("malformed session history: 'rounds' is not a list of rounds")
        if any(r.get("format") != FORMAT for r in rounds):
            raise SidebetError(f"malformed session history: a round is not {FORMAT!r}")
        return rounds
    return [data]
