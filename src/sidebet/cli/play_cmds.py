"""``sidebet play``: the Blackjack table with the side wagers in the terminal."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer

from sidebet.blackjack import decision_evs
from sidebet.cards import format_cards
from sidebet.cli.common import console, handle_errors
from sidebet.config import TableConfig, load_table_config
from sidebet.errors import SidebetError
from sidebet.money import Cents, format_money, parse_money
from sidebet.shoe import Shoe
from sidebet.table.actions import PLAY_ACTIONS
from sidebet.table.game import Table
from sidebet.table.history import (
    SESSION_FORMAT,
    load_history,
    replay,
    round_to_json,
    rounds_of,
    save_session,
    verify,
)
from sidebet.table.policy import BASIC, PressByAdvice, take
from sidebet.table.records import Phase, Step
from sidebet.table.state import BLACKJACK, RoundState
from sidebet.wagers import WAGERS, get_wager

__all__ = ["default_table", "register"]

_PROMPT_ORDER = tuple(sorted(WAGERS, key=lambda wid: bool(WAGERS[wid].requires)))
"""The registry's order, a wager that requires another asked after it."""
_KEYS = {a.key: a.step for a in PLAY_ACTIONS}
_LABELS = {a.step: a.label for a in PLAY_ACTIONS}


class _Quit(Exception):
    pass


def default_table(decks: int) -> TableConfig:
    """Every side wager the deck count allows, at its regulated or default paytable."""
    side = {wid: w.paytable(None, decks).name for wid, w in sorted(WAGERS.items())
            if w.offered_with(decks)}
    return TableConfig(decks=decks, side_wagers=side, name=f"{decks}-deck table")


def _say(text: str, style: str | None = None, end: str = "\n") -> None:
    """Print plain text (no markup, no wrapping)."""
    console.print(text, style=style, markup=False, soft_wrap=True, end=end)


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
    for s in settled:
        seat = next(r.seat for r in state.records
                    if r.step is Step.SIDE_WAGER and r.wager == s.wager
                    and r.cards[:2] == s.player)
        line = (f"{s.label}, pays {s.pays} to 1 (paytable {s.paytable}, {s.citation})"
                if s.won else f"loses ({s.citation})")
        sign = "+" if s.net > 0 else ""
        _say(f"  seat {seat} {get_wager(s.wager).name}: {line} {sign}"
                      f"{format_money(s.net)}")


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
        text = _ask(f"Seat {seat} TriLux Deluxe Press: press how much of {format_money(most)}? "
                    f"[Enter/0 = collect, a = all, ? = advice]: ")
        try:
            if text == "?":
                tip = advisor.press_amount(state, seat)
                ev = "" if adv is None else f", {adv.ev_per_unit * 100:+.2f}% per pressed unit"
                _say(f"Advice ({advisor.name}): press {format_money(tip)}{ev}")
                continue
            amount = most if text.lower() == "a" else _money(text, 0)
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
        step = _KEYS.get(text[:1])
        if step is None:
            _say(f"choose one of: {menu}", "red")
            continue
        try:
            if step is Step.DOUBLE and text[1:].strip():
                state.double(parse_money(text[1:].strip()))
            else:
                rec = take(state, step)
                if rec.cards:
                    _say(f"  {step.value}: {format_cards(rec.cards)}")
        except SidebetError as exc:
            _say(str(exc), "red")


def _decision_evs(state: RoundState, legal: list[Step]) -> str | None:
    """The exact EV of each legal decision for the current hand, or ``None``.

    The unseen cards are taken as the full shoe less every card on the table this round
    (earlier rounds are not counted); a split hand is valued as a hand of its own cards.
    One focused exact analysis (milliseconds to tens of milliseconds).
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
            _say(f"Seat {seat} round result: {format_money(state.ledger.player_net(seat))}")


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
    """Verify the whole history first (every round, the revealed shoes), then step."""
    data = load_history(path)
    count = verify(data)
    rounds = rounds_of(data)
    session = data.get("format") == SESSION_FORMAT
    if session:
        seed = data.get("seed")
        _say(f"Replaying {path}: session of {count} round{'s' if count != 1 else ''}"
             f"{'' if seed is None else f', seed {seed}'}; {len(data['shoes'])} revealed "
             "shoe(s) match their commitments and the rounds' cards")
    else:
        _say(f"Replaying {path} ({_shoes_line(data)})")
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
    ) -> None:
        """Play Blackjack with the side wagers and the TriLux Deluxe Press."""
        if replay_file is not None:
            with contextlib.suppress(_Quit):
                _replay(replay_file)
            return
        cfg = load_table_config(config) if config is not None else default_table(decks)
        table = Table(cfg, seats, seed=seed, chips=parse_money(chips))
        _say(f"sidebet table: {cfg.decks} decks, {cfg.rules.describe()}; "
                      f"side wagers: {', '.join(cfg.side_wagers) or 'none'}")
        _say(f"Advice: {BASIC.name}, {cfg.decks} decks; "
             f"Press advice: {PressByAdvice.name}.")
        last: dict[int, Cents] = {}
        played = 0
        history: list[dict[str, Any]] = []
        try:
            while True:
                state = table.new_round()  # reshuffles first if the cut card came out
                _say(f"Shoe commitment (SHA-256): {table.shoe.commitment}")
                _say(f"=== Round {played + 1} ===")
                _round(table, state, last)
                table.finish(state)
                played += 1
                if len(table.round_shoes) > 1:
                    _say("The shoe ran out during the round; it continued from a new shoe, "
                         f"commitment (SHA-256): {table.round_shoes[-1].commitment}")
                if save is not None:
                    history.append(round_to_json(state, shoes=table.round_shoes))
                    save_session(save, table, history)
                assert table.chips is not None
                _say("Chips: " + ", ".join(
                    f"seat {s} {format_money(c)}" for s, c in table.chips.items()))
                if rounds and played >= rounds:
                    break
                if not rounds and _ask("Another round? [Enter = yes, q = quit]: ") != "":
                    break
        except _Quit:
            pass
        if save is not None and history:
            save_session(save, table, history, reveal_current=True)
            _say(f"Session history ({played} round{'s' if played != 1 else ''}, every "
                 f"finished shoe revealed) saved to {save}")
        _say(f"Goodbye after {played} round{'s' if played != 1 else ''}.")
