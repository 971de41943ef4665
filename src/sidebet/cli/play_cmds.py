"""``sidebet play``: the Blackjack table with the side wagers in the terminal."""

import contextlib
import shutil
import signal
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer

from sidebet.cli.common import console, handle_errors
from sidebet.core.cards import Card, format_cards
from sidebet.core.errors import SidebetError
from sidebet.core.money import Cents, format_money, parse_money
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack import decision_evs
from sidebet.regulation.submission import TableConfig, load_table_config
from sidebet.regulation.wagers import PRESSABLE, WAGERS, get_wager
from sidebet.table.actions import PLAY_ACTIONS
from sidebet.table.game import Table
from sidebet.table.history import (
    FORMAT,
    check_writable,
    load_history,
    replay,
    round_to_json,
    rounds_of,
    save_session,
)
from sidebet.table.model import BLACKJACK
from sidebet.table.policy import BASIC, PressByAdvice, take
from sidebet.table.records import Double, Hit, Phase, Record, Split, Step
from sidebet.table.session_audit import audit
from sidebet.table.state import RoundState

__all__ = ["default_table", "register"]

_PROMPT_ORDER = tuple(sorted(WAGERS, key=lambda wid: bool(WAGERS[wid].requires)))
"""The registry's order, a wager that requires another asked after it."""
_KEYS = {word: a.step for a in PLAY_ACTIONS for word in (a.key, a.step.value)}
"""Exactly these keys or words choose a decision; nothing else is guessed."""
_LABELS = {a.step: a.label for a in PLAY_ACTIONS}
_YES = ("", "y", "yes")
_NO = ("n", "no")

MAX_PLAY_ROUNDS = 1_000_000


def parse_decision(text: str) -> tuple[Step, str] | None:
    """A typed decision: ``(step, amount text)``; ``None`` when it is not exactly one of
    the keys or words (``d 5`` and ``double 5`` double for 5.00).

    >>> parse_decision("split"), parse_decision("d 5"), parse_decision("spl")
    ((<Step.SPLIT: 'split'>, ''), (<Step.DOUBLE: 'double'>, '5'), None)
    """
    word, _, rest = text.strip().lower().partition(" ")
    step = _KEYS.get(word)
    if step is None or (rest.strip() and step is not Step.DOUBLE):
        return None
    return step, rest.strip()


def signed(cents: Cents) -> str:
    """A result with its sign: ``+5.00``, ``-10.00``, ``0.00``."""
    return ("+" if cents > 0 else "") + format_money(cents)


class _Quit(Exception):
    pass


class _Signalled(Exception):
    """SIGTERM or SIGHUP arrived: end the session like ``q``."""


def _raise_signalled(signum: int, frame: FrameType | None) -> None:
    raise _Signalled(signal.Signals(signum).name)


@contextlib.contextmanager
def _signals_end_session() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`_Signalled` (Ctrl-C raises KeyboardInterrupt)."""
    old = {sig: signal.signal(sig, _raise_signalled) for sig in _END_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while the final history is written and the
    session's last lines are printed."""
    sigs = {signal.SIGINT, *_END_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        yield
    finally:
        # a signal that came meanwhile asked for what is done: discard it, then restore
        handlers = {sig: signal.signal(sig, signal.SIG_IGN) for sig in sigs}
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


_END_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def default_table(decks: int) -> TableConfig:
    """Every side wager the deck count allows, at its regulated or default paytable."""
    side = {wid: w.paytable(None, decks).name for wid, w in sorted(WAGERS.items())
            if w.offered_with(decks)}
    return TableConfig(decks=decks, side_wagers=side, name=f"{decks}-deck table")


def wrap(text: str, width: int) -> str:
    """``text`` wrapped at spaces to ``width`` columns (never inside a word: a long one,
    such as a commitment, gets a line of its own); continuation lines are indented two
    spaces more than the first, and a trailing space (a prompt's) is kept.

    >>> print(wrap("Shoe commitment (SHA-256): " + "ab" * 32, 40))
    Shoe commitment (SHA-256):
      abababababababababababababababababababababababababababababababab
    """
    out = []
    for line in text.split("\n"):
        indent = line[:len(line) - len(line.lstrip(" "))]
        out.extend(textwrap.wrap(line, width, subsequent_indent=indent + "  ",
                                 break_long_words=False, break_on_hyphens=False) or [""])
    joined = "\n".join(out)
    return joined + " " if text.endswith(" ") else joined


def _say(text: str, style: str | None = None, end: str = "\n") -> None:
    """Print plain text (no markup), wrapped at spaces to the terminal's width."""
    width = max(40, shutil.get_terminal_size().columns)  # COLUMNS, else the terminal's
    console.print(wrap(text, width), style=style, markup=False, soft_wrap=True, end=end)


def _ask(prompt: str) -> str:
    _say(prompt, end="")
    try:
        text = input()
    except EOFError:
        raise _Quit from None
    text = text.strip()
    if text.lower() in ("q", "quit", "exit"):
        raise _Quit
    return text


def _another_round() -> bool:
    while True:
        text = _ask("Another round? [Enter = yes, q = quit]: ").lower()
        if text in _YES:
            return True
        if text in _NO:
            return False
        _say(f"not an answer: {text!r}; press Enter for another round or type q", "red")


def _money(text: str, default: Cents) -> Cents:
    return default if text == "" else parse_money(text)


def _show_hands(state: RoundState) -> None:
    up = state.upcard
    if up is not None:
        if state.hole_revealed:
            _say(f"Dealer: {format_cards(state.dealer)} ({state.dealer_value})")
        else:
            _say(f"Dealer: {up} ??")
    for seat in range(1, state.seat_count + 1):
        for i, h in enumerate(state.hands_of(seat)):
            extra = ""
            if h.press:
                extra += f", press {format_money(h.press)}"
            if h.double:
                extra += f", double {format_money(h.double)}"
            _say(f"Seat {seat} hand {i + 1}: {format_cards(h.cards)} ({h.value}) "
                          f"wager {format_money(h.bet)}{extra}")


def _take_bets(state: RoundState, last: dict[int, Cents]) -> None:
    for seat in range(1, state.seat_count + 1):
        while True:
            have = state.chips(seat)
            hint = f"chips {format_money(have)}, " if have is not None else ""
            text = _ask(f"Seat {seat} Blackjack wager [{hint}Enter = "
                        f"{format_money(last.get(seat, 10_00))}, 0 = sit out]: ")
            try:
                amount = _money(text, last.get(seat, 10_00))
                if amount == 0:
                    break
                state.place_bet(seat, BLACKJACK, amount)
                last[seat] = amount
                break
            except SidebetError as exc:
                _say(str(exc), "red")
        if BLACKJACK not in state.bets(seat):
            continue
        for wid in _PROMPT_ORDER:
            if wid not in state.config.side_wagers:
                continue
            wager = get_wager(wid)
            while True:
                text = _ask(f"Seat {seat} {wager.name} wager [Enter = none]: ")
                try:
                    amount = _money(text, 0)
                    if amount:
                        state.place_bet(seat, wid, amount)
                    break
                except SidebetError as exc:
                    _say(str(exc), "red")


def _show_side(state: RoundState) -> None:
    settled = state.side_settlements()
    if not settled:
        return
    _say("Side wagers (settled before any further card, § 633c.11(d)):")
    for seat in range(state.seat_count, 0, -1):  # settlement order: seat 7 first
        for s in state.side_settlements(seat):
            line = (f"{s.label}, pays {s.pays} to 1 (paytable {s.paytable}, {s.citation})"
                    if s.won else f"loses ({s.citation})")
            _say(f"  seat {seat} {get_wager(s.wager).name}: {line} {signed(s.net)}")


def _press(state: RoundState) -> None:
    advisor = PressByAdvice()
    shown: set[int] = set()
    while state.phase is Phase.PRESS:
        seat, most = next(iter(state.press_offers().items()))
        adv = advisor.advice(state, seat)
        if adv is not None and seat not in shown:
            shown.add(seat)
            _say(f"Press advice ({advisor.name}): {adv.ev_per_unit * 100:+.2f}% per pressed "
                 f"unit — {'press all' if adv.press else 'collect'}")
        text = _ask(f"Seat {seat} {PRESSABLE.name} Press: press how much of {format_money(most)}? "
                    f"[Enter/0 = collect, a = all, ? = advice]: ")
        try:
            if text == "?":
                tip = advisor.press_amount(state, seat)
                ev = "" if adv is None else f", {adv.ev_per_unit * 100:+.2f}% per pressed unit"
                _say(f"Advice ({advisor.name}): press {format_money(tip)}{ev}")
                continue
            amount = most if text.lower() in ("a", "all") else _money(text, 0)
            state.press(seat, amount)
        except SidebetError as exc:
            _say(str(exc), "red")


def _insurance(state: RoundState) -> None:
    while state.phase is Phase.INSURANCE:
        seat, most = next(iter(state.insurance_offers().items()))
        text = _ask(f"Seat {seat} insurance (pays 2 to 1), up to {format_money(most)} "
                    "[Enter = none, ? = advice]: ")
        if text == "?":
            _say("Advice (basic strategy): no insurance")
            continue
        try:
            state.insure(seat, _money(text, 0))
        except SidebetError as exc:
            _say(str(exc), "red")


def _play(state: RoundState) -> None:
    while state.phase is Phase.PLAY:
        hand = state.current_hand
        assert hand is not None and state.upcard is not None
        legal = state.legal_actions()
        menu = " ".join(_LABELS[s] for s in legal)
        text = _ask(f"Seat {hand.seat} hand {(state.current_index or 0) + 1}: "
                    f"{format_cards(hand.cards)} ({hand.value}) vs {state.upcard} — "
                    f"{menu} ?)advice: ").lower()
        if text == "?":
            advice = BASIC.advise(state)
            _say(f"Advice: {advice.step.value} ({advice.reason})")
            evs = _decision_evs(state, legal)
            if evs:
                _say(evs)
            continue
        parsed = parse_decision(text)
        if parsed is None or parsed[0] not in legal:
            _say(f"not a decision here: {text!r}; type one of: {menu} (or the whole word; "
                 "d 5 doubles for 5.00)", "red")
            continue
        step, amount = parsed
        try:
            rec: Record
            if step is Step.DOUBLE and amount:
                rec = state.double(parse_money(amount))
            else:
                rec = take(state, step)
            if isinstance(rec, Hit | Double | Split) and rec.cards:
                _say(f"  {step.value}: {format_cards(rec.cards)}")
        except SidebetError as exc:
            _say(str(exc), "red")


def _decision_evs(state: RoundState, legal: list[Step]) -> str | None:
    """The exact EV of each legal decision for the current hand, or ``None``.

    The unseen cards are taken as the full shoe less every card on the table this round
    (earlier rounds are not counted); a split hand is valued as a hand of its own cards.
    One focused exact analysis.
    """
    hand, up = state.current_hand, state.upcard
    if hand is None or up is None:
        return None
    seen = [c for h in state.hands for c in h.cards] + [up]
    try:
        shoe = Shoe.standard(state.config.decks).remove(seen)
        evs = decision_evs(hand.cards, up, shoe, state.config.rules)
    except SidebetError:
        return None
    values = {Step.STAND: evs.stand, Step.HIT: evs.hit, Step.DOUBLE: evs.double,
              Step.SPLIT: evs.split, Step.SURRENDER: evs.surrender}
    parts = [f"{step.value} {v:+.4f}" for step in legal
             if (v := values.get(step)) is not None]
    if not parts:
        return None
    basis = ", given no dealer Blackjack" if evs.conditioned_on_no_blackjack else ""
    return ("  EV per unit wagered (exact; full shoe less the cards on the table"
            f"{basis}): " + ", ".join(parts))


def _settlement(state: RoundState) -> None:
    _say(f"Dealer: {format_cards(state.dealer)} ({state.dealer_value})"
                  + (" — Blackjack" if state.dealer_blackjack else ""))
    for seat in range(1, state.seat_count + 1):
        for i, h in enumerate(state.hands_of(seat)):
            _say(f"Seat {seat} hand {i + 1}: {format_cards(h.cards)} "
                          f"({h.value}) — {h.result}")
        if state.bets(seat):
            _say(f"Seat {seat} round result: {signed(state.ledger.player_net(seat))}")


def _round(table: Table, state: RoundState, last: dict[int, Cents]) -> None:
    _take_bets(state, last)
    if not state.can_close_bets():
        _say("No Blackjack wagers: no round.")
        raise _Quit
    state.close_bets()
    _say("No more bets.")
    _show_hands(state)
    _show_side(state)
    _press(state)
    _insurance(state)
    if state.dealer_blackjack is not None and any(r.step is Step.PEEK for r in state.records):
        _say("Card reader: dealer " + ("has Blackjack" if state.dealer_blackjack
                                                else "does not have Blackjack"))
    _play(state)
    _settlement(state)


def _shoes_line(rnd: dict[str, Any]) -> str:
    spans = rnd.get("shoes")
    if isinstance(spans, list) and spans:
        return "; ".join(f"shoe {int(s['shoe']) + 1} commitment {s['commitment']}, "
                         f"cards {int(s['start']) + 1}-{int(s['start']) + int(s['cards'])}"
                         for s in spans)
    return f"commitment {rnd.get('commitment') or 'none'}"


def _replay(path: Path) -> None:
    """Audit the whole history first (every round, the shoes, the chips), then step."""
    data = load_history(path)
    report = audit(data)
    count = report.rounds
    rounds = rounds_of(data)
    session = report.format != FORMAT
    _say(f"Replaying {path}: {report.header()}")
    if not session:
        _say(f"  ({_shoes_line(data)})")
    for n, rnd in enumerate(rounds, 1):
        if session:
            _say(f"=== Round {n} of {count} ({_shoes_line(rnd)}) ===")
        for rec in replay(rnd).records:
            _say(("> " if rec.is_decision else "  ") + rec.describe())
            if rec.is_decision:
                _ask("[Enter] next, q quit: ")
    if session:
        _say(f"Replay verified: identical final state in all {count} rounds.")
    else:
        _say("Replay verified: identical final state.")


def register(app: typer.Typer) -> None:
    """Add ``sidebet play`` to the app."""

    @app.command("play")
    @handle_errors
    def play(
        decks: Annotated[int, typer.Option(help="Decks in the shoe (1-8).")] = 6,
        seats: Annotated[int, typer.Option(help="Seats played (1-7).")] = 1,
        seed: Annotated[int | None, typer.Option(help="Seed for a reproducible shoe.")] = None,
        config: Annotated[Path | None, typer.Option(help="Rules Submission TOML file.")] = None,
        replay_file: Annotated[
            Path | None,
            typer.Option("--replay", help="Verify and step through a saved round or session."),
        ] = None,
        chips: Annotated[str, typer.Option(help="Each seat's starting chips.")] = "1000",
        save: Annotated[
            Path | None,
            typer.Option(help="Keep the session's hand history (JSON, every round) here."),
        ] = None,
        rounds: Annotated[int, typer.Option(help="Stop after this many rounds (0 = ask).")] = 0,
        force: Annotated[
            bool, typer.Option("--force", help="Let --save overwrite an existing file.")
        ] = False,
    ) -> None:
        """Play Blackjack with the side wagers and the TriLux Deluxe Press."""
        if replay_file is not None:
            with contextlib.suppress(_Quit, KeyboardInterrupt):
                _replay(replay_file)
            return
        if not 0 <= rounds <= MAX_PLAY_ROUNDS:
            raise SidebetError(f"--rounds must be 0 to {MAX_PLAY_ROUNDS}, not {rounds}")
        if seed is not None and not 0 <= seed < 2**63:
            raise SidebetError(f"--seed must be 0 to 2**63 - 1, not {seed}")
        start = parse_money(chips)
        if start <= 0:
            raise SidebetError(f"--chips must be a positive amount, not {chips}")
        cfg = load_table_config(config) if config is not None else default_table(decks)
        table = Table(cfg, seats, seed=seed, chips=start)
        if save is not None:
            check_writable(save, force=force)
        with _signals_end_session():
            _session(table, save, rounds)


def _session(table: Table, save: Path | None, rounds: int) -> None:
    """Play rounds until ``q``, end of input, ``--rounds``, Ctrl-C, SIGTERM or SIGHUP;
    each ends the session the same way: the shoe in use is revealed and saved."""
    cfg = table.config
    _say(f"sidebet table: {cfg.decks} decks, {cfg.rules.describe()}; "
         f"side wagers: {', '.join(cfg.side_wagers) or 'none'}")
    _say(f"Advice: {BASIC.name}, {cfg.decks} decks; "
         f"Press advice: {PressByAdvice.name}.")
    last: dict[int, Cents] = {}
    played = 0
    history: list[dict[str, Any]] = []
    state: RoundState | None = None
    stopped_by: str | None = None
    try:
        while True:
            state = table.new_round()  # reshuffles first if the cut card came out
            _say(f"Shoe commitment (SHA-256): {table.shoe.commitment}")
            _say(f"=== Round {played + 1} ===")
            _round(table, state, last)
            history.append(round_to_json(state, shoes=table.round_shoes))
            done, state = state, None
            played += 1
            table.finish(done)
            if len(table.round_shoes) > 1:
                _say("The shoe ran out during the round; it continued from a new shoe, "
                     f"commitment (SHA-256): {table.round_shoes[-1].commitment}")
            if save is not None:
                save_session(save, table, history)
            assert table.chips is not None
            _say("Chips: " + ", ".join(
                f"seat {s} {format_money(c)}" for s, c in table.chips.items()))
            if rounds and played >= rounds:
                break
            if not rounds and not _another_round():
                break
    except _Quit:
        pass
    except (KeyboardInterrupt, _Signalled) as exc:
        stopped_by = "Ctrl-C" if isinstance(exc, KeyboardInterrupt) else str(exc)
    with _signals_blocked():
        abandoned = None
        if state is not None and state.phase is Phase.DONE:  # finished, not yet kept
            history.append(round_to_json(state, shoes=table.round_shoes))
            played += 1
        elif state is not None and state.dealt:
            abandoned = round_to_json(state, shoes=table.round_shoes)
        if save is not None and (history or abandoned):
            save_session(save, table, history, reveal_current=True, abandoned=abandoned)
        with contextlib.suppress(OSError):  # the terminal may be gone (SIGHUP)
            if stopped_by is not None:
                _say("")
                _say(f"Session ended by {stopped_by}" + (
                    "; the round in progress was abandoned" if abandoned else ""))
            if save is not None and (history or abandoned):
                _say(f"Session history ({played} round{'s' if played != 1 else ''}"
                     + (" and the abandoned one" if abandoned else "")
                     + f", every shoe revealed) saved to {save}")
            elif stopped_by is not None:
                _say("The shoe in use is revealed: "
                     + " ".join(Card.from_index(i).code for i in table.shoe.order))
            _say(f"Goodbye after {played} round{'s' if played != 1 else ''}.")
