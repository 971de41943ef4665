"""The audit of a hand history: every check made, or reported as not made.

:func:`audit` takes a parsed history (a round, ``sidebet-round/1``, or a session,
``sidebet-session/2`` or the older ``sidebet-session/1``) and either raises
:class:`SidebetError` naming the first thing that is not what the table dealt and paid,
or returns an :class:`Audit` that says what was checked and what could not be.

For a session it checks, with no key optional:

* the form: every key present with the right type and a bounded size;
* every round: its configuration, seats and unit are the session's; it replays to the
  identical records and final state, and that state is settled (``done``);
* money is chained: the first round starts with the session's chips, each later round
  with the chips the previous one ended with;
* the shoes: each round says which shoe(s) its cards came from; the rounds follow one
  another in each shoe from its first card, a new shoe starts only after the cut card
  came out (or, within a round, when the shoe ran out); every finished shoe is revealed;
* each revealed shoe: its order and salt match its published commitment; it is exactly
  the configured number of standard decks; with a seed, it is exactly the order and salt
  that seed produces; the rounds' cards are its next cards; and (``sidebet-session/2``)
  the rounds account for every card it dealt, so no round was cut off at the end;
* an unfinished round the session was stopped in (``"abandoned"``) replays and accounts
  for its cards; it is reported, never counted as settled.

Rounds dealt from a shoe that was not revealed (the session did not end) are replayed but
their cards cannot be audited; :meth:`Audit.header` says how many.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sidebet.core.cards import parse_cards
from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents, format_money, parse_money
from sidebet.regulation.submission import TableConfig, table_config_from_dict
from sidebet.table.dealing import shuffled_order, unshuffled_order, verify_commitment
from sidebet.table.history import FORMAT, OLD_SESSION_FORMATS, SESSION_FORMAT, replay
from sidebet.table.model import MAX_SEATS

__all__ = ["Audit", "audit", "verify"]

MAX_ROUNDS = 100_000
"""Most rounds a history may hold (far more than a day at a table)."""
MAX_SEED = 2**64
_MAX_CARDS_TEXT = 8 * 52 * 3 + 8
_MAX_RECORDS = 1_000


@dataclass(frozen=True, slots=True)
class Audit:
    """What :func:`audit` checked: rounds replayed, rounds whose cards were checked
    against a revealed shoe, shoes revealed, and what could not be checked."""

    format: str
    rounds: int
    audited: int
    shoes: int
    seed: int | None
    not_checked: tuple[str, ...]

    def header(self) -> str:
        """One line that claims exactly what was checked.

        >>> print(Audit("sidebet-session/2", 3, 2, 1, None, ("1 round could not be audited "
        ...       "(shoe not revealed)",)).header())
        session of 3 rounds replayed; 1 revealed shoe matches its commitment; 2 rounds' cards audited against it; 1 round could not be audited (shoe not revealed)
        """
        if self.format == _ROUND_FORMAT:
            parts = ["1 round replayed"]
        else:
            parts = [f"session of {_n(self.rounds, 'round')} replayed"
                     + ("" if self.seed is None else f" (seed {self.seed})")]
            if self.shoes:
                verb = "matches its commitment" if self.shoes == 1 else "match their commitments"
                what = "it" if self.shoes == 1 else "them"
                parts.append(f"{_n(self.shoes, 'revealed shoe')} {verb}; "
                             f"{_n(self.audited, 'round')}' cards audited against {what}"
                             .replace("1 round' ", "1 round's "))
        return "; ".join([*parts, *self.not_checked])


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


_ROUND_FORMAT = FORMAT
_SESSION_FORMATS = (SESSION_FORMAT, *OLD_SESSION_FORMATS)


# --- typed, bounded access -------------------------------------------------------------

def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise SidebetError(f"{where}: no {key!r}")
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise SidebetError(f"{where}: {key!r} has the wrong type")
    if not isinstance(value, kinds):
        raise SidebetError(f"{where}: {key!r} has the wrong type")
    return value


def _int(data: Mapping[str, Any], key: str, where: str, low: int, high: int) -> int:
    value: int = _get(data, key, int, where)
    if not low <= value <= high:
        raise SidebetError(f"{where}: {key!r} = {value} is out of range ({low} to {high})")
    return value


def _text(data: Mapping[str, Any], key: str, where: str, most: int) -> str:
    value: str = _get(data, key, str, where)
    if len(value) > most:
        raise SidebetError(f"{where}: {key!r} is too long ({len(value)} characters)")
    return value


def _money(value: Any, where: str) -> Cents:
    if not isinstance(value, str):
        raise SidebetError(f"{where}: an amount must be a string like '10.00'")
    cents = parse_money(value)
    if cents < 0:
        raise SidebetError(f"{where}: negative amount {value!r}")
    return cents


def _order(text: str) -> list[int]:
    return [c.index for c in parse_cards(text)]


# --- a round ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Span:
    shoe: int
    commitment: str
    start: int
    cards: int


def _spans(rnd: Mapping[str, Any], where: str) -> list[_Span]:
    raw = _get(rnd, "shoes", list, where)
    if not raw or len(raw) > 8:
        raise SidebetError(f"{where}: 'shoes' must list the one or more shoes its cards came "
                           "from")
    out = []
    for s in raw:
        if not isinstance(s, dict):
            raise SidebetError(f"{where}: a shoe span is not an object")
        out.append(_Span(_int(s, "shoe", where, 0, MAX_ROUNDS),
                         _text(s, "commitment", where, 64),
                         _int(s, "start", where, 0, 8 * 52),
                         _int(s, "cards", where, 1, 8 * 52)))
    return out


def _replay_round(rnd: Mapping[str, Any], where: str, *, finished: bool) -> Any:
    """Replay one round (checked form), returning its final state."""
    _get(rnd, "config", dict, where)
    _int(rnd, "seats", where, 1, MAX_SEATS)
    _text(rnd, "unit", where, 32)
    chips = _get(rnd, "chips", (dict, type(None)), where)
    if chips is not None:
        if len(chips) > MAX_SEATS:
            raise SidebetError(f"{where}: 'chips' has too many seats")
        for v in chips.values():
            _money(v, where)
    _get(rnd, "commitment", (str, type(None)), where)
    _text(rnd, "cards", where, _MAX_CARDS_TEXT)
    records = _get(rnd, "records", list, where)
    if len(records) > _MAX_RECORDS:
        raise SidebetError(f"{where}: too many records ({len(records)})")
    if not all(isinstance(r, dict) for r in records):
        raise SidebetError(f"{where}: a record is not an object")
    final = _get(rnd, "final", dict, where)
    state = replay(dict(rnd))
    if finished and final.get("phase") != "done":
        raise SidebetError(f"{where}: the round is not settled (its final state is "
                           f"{final.get('phase')!r}, not 'done')")
    return state


def _guard(where: str, func: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a check, turning any error from malformed data into one line naming ``where``."""
    try:
        return func(*args, **kwargs)
    except SidebetError as exc:
        text = str(exc)
        raise SidebetError(text if text.startswith(where) else f"{where}: {text}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, AssertionError,
            OverflowError, RecursionError) as exc:
        raise SidebetError(f"{where}: malformed hand history ({type(exc).__name__}: {exc})"
                           ) from None


# --- the session -----------------------------------------------------------------------

def _revealed_shoes(data: Mapping[str, Any], config: TableConfig, seed: int | None,
                    commitments: Sequence[str], v2: bool
                    ) -> dict[int, tuple[list[int], int | None]]:
    """Check each revealed shoe; ``{shoe: (order, dealt)}``."""
    raw = _get(data, "shoes", list, "session")
    base = sorted(unshuffled_order(config.decks).tolist())
    out: dict[int, tuple[list[int], int | None]] = {}
    for shoe in raw:
        if not isinstance(shoe, dict):
            raise SidebetError("session: a revealed shoe is not an object")
        k = _int(shoe, "shoe", "session: revealed shoe", 0, len(commitments) - 1)
        where = f"shoe {k + 1}"
        if k in out:
            raise SidebetError(f"{where}: revealed twice")
        order = _order(_text(shoe, "order", where, _MAX_CARDS_TEXT))
        salt_hex = _text(shoe, "salt", where, 64)
        try:
            salt = bytes.fromhex(salt_hex)
        except ValueError:
            raise SidebetError(f"{where}: its salt is not hexadecimal") from None
        digest = _text(shoe, "commitment", where, 64)
        if not verify_commitment(order, salt, digest):
            raise SidebetError(f"{where}: the revealed order and salt do not match its "
                               "commitment")
        if commitments[k] != digest:
            raise SidebetError(f"{where}: its commitment is not the one published")
        if sorted(order) != base:
            raise SidebetError(f"{where}: the revealed order is not {_n(config.decks, 'deck')} "
                               "of 52 standard cards")
        if seed is not None:
            if order != shuffled_order(config.decks, seed + k).tolist():
                raise SidebetError(f"{where}: the revealed order is not the one seed "
                                   f"{seed + k} produces")
            if salt != hashlib.sha256(f"sidebet-salt:{seed + k}".encode()).digest():
                raise SidebetError(f"{where}: the salt is not the one seed {seed + k} "
                                   "produces")
        elif len(salt) != 32:
            raise SidebetError(f"{where}: the salt is not 32 bytes")
        dealt = _int(shoe, "dealt", where, 0, len(order)) if v2 else None
        out[k] = (order, dealt)
    return out


def _audit_session(data: Mapping[str, Any], rounds: list[Any]) -> Audit:
    fmt = data["format"]
    v2 = fmt == _SESSION_FORMATS[0]
    config_data = _get(data, "config", dict, "session")
    config = _guard("session", table_config_from_dict, config_data, source="session config")
    config.verify()
    seats = _int(data, "seats", "session", 1, MAX_SEATS)
    unit = _text(data, "unit", "session", 32)
    seed = _get(data, "seed", (int, type(None)), "session")
    if seed is not None and not 0 <= seed < MAX_SEED:
        raise SidebetError(f"session: seed {seed} is out of range (0 to 2**64 - 1)")
    chips_text = _get(data, "chips", (str, type(None)), "session")
    start_chips = None if chips_text is None else _money(chips_text, "session chips")
    commitments = _get(data, "commitments", list, "session")
    if not commitments or len(commitments) > MAX_ROUNDS:
        raise SidebetError("session: 'commitments' must list every shoe's commitment")
    if not all(isinstance(c, str) and len(c) == 64 for c in commitments):
        raise SidebetError("session: a commitment is not a SHA-256 hex digest")
    revealed = _guard("session", _revealed_shoes, data, config, seed, commitments, v2)
    ended = _get(data, "ended", bool, "session") if v2 else None
    abandoned = _get(data, "abandoned", (dict, type(None)), "session") if v2 else None

    size = 52 * config.decks
    cut = int(size * config.rules.penetration)
    chips: dict[str, str] | None = (
        None if start_chips is None
        else {str(s): format_money(start_chips) for s in range(1, seats + 1)})
    shoe, pos = 0, 0
    ends: dict[int, int] = {}  # shoe -> how far the rounds dealt it
    audited = 0
    items = [(n, r, True) for n, r in enumerate(rounds, 1)]
    if abandoned is not None:
        items.append((len(rounds) + 1, abandoned, False))
    for n, rnd, finished in items:
        where = f"round {n}" if finished else f"round {n} (abandoned)"
        if not isinstance(rnd, dict) or rnd.get("format") != _ROUND_FORMAT:
            raise SidebetError(f"{where}: not a {_ROUND_FORMAT!r} round")
        state = _guard(where, _replay_round, rnd, where, finished=finished)
        if rnd["config"] != config_data:
            raise SidebetError(f"{where}: its table configuration is not the session's")
        if rnd["seats"] != seats:
            raise SidebetError(f"{where}: {rnd['seats']} seats, the session has {seats}")
        if rnd["unit"] != unit:
            raise SidebetError(f"{where}: table unit {rnd['unit']}, the session's is {unit}")
        if rnd["chips"] != chips:
            raise SidebetError(f"{where}: it does not start with the chips the "
                               + ("session started with" if n == 1 else
                                  "previous round ended with"))
        if chips is not None and finished:
            chips = {s: format_money(parse_money(c) + state.ledger.player_net(int(s)))
                     for s, c in chips.items()}
        cards = _guard(where, _order, rnd["cards"])
        if not cards:
            if finished:
                raise SidebetError(f"{where}: no cards were dealt")
            if rnd.get("shoes"):
                raise SidebetError(f"{where}: its shoes do not account for its cards")
            continue
        spans = _guard(where, _spans, rnd, where)
        if sum(s.cards for s in spans) != len(cards):
            raise SidebetError(f"{where}: its shoes do not account for its cards")
        if rnd["commitment"] != spans[0].commitment:
            raise SidebetError(f"{where}: its commitment is not its first card's shoe's")
        # where the table's next card comes from
        if pos >= cut or pos >= size:
            shoe, pos = shoe + 1, 0
        offset = 0
        for i, s in enumerate(spans):
            if i > 0:
                if pos != size:
                    raise SidebetError(f"{where}: it moved to shoe {s.shoe + 1} before shoe "
                                       f"{shoe + 1} ran out")
                shoe, pos = shoe + 1, 0
            if (s.shoe, s.start) != (shoe, pos):
                raise SidebetError(
                    f"{where}: its cards come from shoe {s.shoe + 1} at card {s.start + 1}, "
                    f"but the table's next card was shoe {shoe + 1}'s card {pos + 1}")
            if shoe >= len(commitments) or commitments[shoe] != s.commitment:
                raise SidebetError(f"{where}: shoe {shoe + 1}'s commitment is not the one "
                                   "published")
            if pos + s.cards > size:
                raise SidebetError(f"{where}: takes more cards than shoe {shoe + 1} holds")
            if shoe in revealed:
                order = revealed[shoe][0]
                if cards[offset:offset + s.cards] != order[pos:pos + s.cards]:
                    raise SidebetError(f"{where}: its cards are not the next cards of "
                                       f"revealed shoe {shoe + 1}")
            pos += s.cards
            ends[shoe] = pos
            offset += s.cards
        if finished and all(s.shoe in revealed for s in spans):
            audited += 1
    last = len(commitments) - 1
    if shoe < last - 1 or (shoe == last - 1 and not (pos >= cut or pos >= size)):
        raise SidebetError(f"session: {len(commitments)} shoes were published but the rounds "
                           f"end in shoe {shoe + 1}")
    for k in range(last):
        if k not in revealed:
            raise SidebetError(f"shoe {k + 1}: finished but not revealed")
    not_checked: list[str] = []
    if v2:
        if ended and last not in revealed:
            raise SidebetError(f"shoe {last + 1}: the session ended but its last shoe is not "
                               "revealed")
        if not ended and last in revealed:
            raise SidebetError(f"shoe {last + 1}: revealed, but the session says it did not "
                               "end")
        if abandoned is not None and not ended:
            raise SidebetError("session: an abandoned round in a session that did not end")
        for k, (_, dealt) in revealed.items():
            if dealt != ends.get(k, 0):
                raise SidebetError(
                    f"shoe {k + 1}: it dealt {dealt} cards but the rounds account for "
                    f"{ends.get(k, 0)}: rounds are missing")
    else:
        not_checked.append("whether rounds were cut off at the end could not be checked "
                           f"({fmt} does not record how far each shoe was dealt)")
    unaudited = len(rounds) - audited
    if unaudited:
        not_checked.append(f"{_n(unaudited, 'round')} could not be audited (shoe not "
                           "revealed)")
    if abandoned is not None:
        not_checked.append(f"round {len(rounds) + 1} was abandoned unfinished (its wagers "
                           "are not settled)")
    return Audit(fmt, len(rounds), audited, len(revealed), seed, tuple(not_checked))


def audit(data: Mapping[str, Any]) -> Audit:
    """Audit a parsed history (see the module docstring); raise :class:`SidebetError`
    naming the first problem."""
    fmt = data.get("format")
    if fmt == _ROUND_FORMAT:
        state = _guard("round", _replay_round, data, "round", finished=True)
        del state
        return Audit(_ROUND_FORMAT, 1, 0, 0, None,
                     ("its cards could not be audited (a single round reveals no shoe)",))
    if fmt not in _SESSION_FORMATS:
        raise SidebetError(f"not a hand history (format {fmt!r})")
    rounds = _get(data, "rounds", list, "session")
    if len(rounds) > MAX_ROUNDS:
        raise SidebetError(f"session: too many rounds ({len(rounds)})")
    return _audit_session(data, rounds)


def verify(data: Mapping[str, Any]) -> int:
    """Audit a history (a round or a session) with :func:`audit`: every round replayed to
    its identical, settled final state; for a session, its configuration, chips, shoes and
    commitments.  Returns the number of rounds; raises :class:`SidebetError` naming the
    first problem.

    >>> from sidebet.regulation.submission import TableConfig
    >>> from sidebet.table.game import Table
    >>> from sidebet.table.history import round_to_json, session_to_json
    >>> from sidebet.table.policy import play_out
    >>> t = Table(TableConfig(decks=6), seats=1, seed=11)
    >>> r = t.new_round()
    >>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets(); play_out(r); t.finish(r)
    >>> verify(session_to_json(t, [round_to_json(r, shoes=t.round_shoes)], reveal_current=True))
    1
    """
    return audit(data).rounds
