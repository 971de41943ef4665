"""Tables, their seats and shoes: creating a table from a Rules Submission, sitting and
leaving, client seeds for the next shoe, the shoes' commitments (§ 810a.5), and stacked
shoes (tests only)."""

from __future__ import annotations

import tomllib
from collections import Counter
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import sidebet
from sidebet.core.cards import parse_cards
from sidebet.core.errors import SidebetError, Violation
from sidebet.core.money import format_money
from sidebet.regulation.submission import TableConfig, table_config_from_dict
from sidebet.regulation.wagers import get_wager
from sidebet.serve import fair
from sidebet.serve.chain import canonical, utc_now
from sidebet.serve.errors import HOUSE, ApiError
from sidebet.serve.live import LiveTable, Published, ShoeState
from sidebet.serve.models import Account, GameTable, Seat, ShoeSeed
from sidebet.serve.physical import PhysicalTable
from sidebet.serve.security import Caller
from sidebet.serve.service.core import GAME_ID, Core, Tx, amount_of
from sidebet.serve.service.oplog import log_action
from sidebet.serve.service.seating import Seating
from sidebet.table.history import config_to_dict

__all__ = ["DEFAULT_ACTIONS", "MAX_SEATS", "Tables", "parse_submission"]

DEFAULT_ACTIONS = ("stand", "surrender")
"""What the house does for a hand whose player is past the time limit."""
MAX_SEATS = 7
"""A Blackjack table has 1 to 7 seats."""


def parse_submission(text: str, name_max: int) -> TableConfig:
    """A Rules Submission from TOML text: 422 with every violation (and its citation)
    when it is not compliant, or when its name is longer than ``name_max``.

    >>> parse_submission("decks = 6", 200).decks
    6
    >>> parse_submission("decks = 6\\nname = 'a long name'", 4)
    Traceback (most recent call last):
    ...
    sidebet.serve.errors.ApiError: the table's name is at most 4 printable characters
    """
    try:
        data = tomllib.loads(text)
        config = table_config_from_dict(data, source="submission")
    except tomllib.TOMLDecodeError as exc:
        raise ApiError(422, f"the submission is not valid TOML: {exc}") from None
    except SidebetError as exc:
        raise ApiError(422, str(exc)) from None
    if len(config.name) > name_max or not config.name.isprintable():
        raise ApiError(422, f"the table's name is at most {name_max} printable characters")
    found = config.violations()
    if found:
        raise ApiError(422, "; ".join(str(v) for v in found), tuple(found))
    return config


def _next_shoe(live: LiveTable) -> ShoeState:
    """The next shoe not yet shuffled (a next shoe is always committed)."""
    if isinstance(live, PhysicalTable):
        raise ApiError(409, "a dealer-assist table deals a physical shoe: it has no seeds")
    shoe = next((sh for _, sh in sorted(live.shoes.items()) if not sh.sealed), None)
    if shoe is None:  # pragma: no cover - a next shoe is always committed
        raise ApiError(409, "no shoe awaits its shuffle")
    return shoe


class Tables:
    """The tables: their rules, seats and shoes."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.seating = Seating(core)

    # ----- tables -----------------------------------------------------------------------

    def create(self, caller: Caller, submission: str, *, seats: int, unit: str,
               time_limit: int, default_action: str, key: str | None,
               shoe: str = "fair") -> tuple[int, Any]:
        """A new table from a Rules Submission (TOML text); a non-compliant one is refused
        with every violation.  ``shoe``: ``fair`` (the server's provably fair shoe) or
        ``physical`` (a dealer-assist table: cards entered from a physical shoe)."""
        core, lim = self.core, self.core.settings
        if not caller.operator:
            raise ApiError(403, "only an operator creates tables")
        config = parse_submission(submission, lim.table_name_max)
        if not 1 <= seats <= MAX_SEATS:
            raise ApiError(422, f"a Blackjack table has 1 to {MAX_SEATS} seats, not {seats}")
        unit_cents = amount_of(unit, lim.amount_max, "unit")
        if unit_cents <= 0:
            raise ApiError(422, "the table unit must be positive")
        if not 1 <= time_limit <= max(1, lim.time_limit_max):
            raise ApiError(422, f"time_limit is 1 to {lim.time_limit_max} seconds (every "
                                "decision has a time limit)")
        if default_action not in DEFAULT_ACTIONS:
            raise ApiError(422, f"default_action is one of {', '.join(DEFAULT_ACTIONS)}")
        if shoe not in ("fair", "physical"):
            raise ApiError(422, "shoe is fair or physical")
        fingerprint = canonical(["table", submission, seats, unit_cents, time_limit,
                                 default_action, *([shoe] if shoe != "fair" else [])])
        kind = PhysicalTable if shoe == "physical" else LiveTable

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            name = config.name or "table"
            row = GameTable(name=name, config=canonical(config_to_dict(config)), seats=seats,
                            unit=unit_cents, time_limit=time_limit,
                            default_action=default_action, created_at=utc_now())
            s.add(row)
            s.flush()
            live = kind(row.id, name, config, seats=seats, unit=unit_cents,
                        time_limit=time_limit, default_action=default_action,
                        seed_of=core.seed_lookup(row.id))
            live.betting_seconds = core.settings.betting_seconds
            tx.table = live
            core.append(s, tx, "table", {"name": name, "config": config_to_dict(config),
                                         "seats": seats, "unit": unit_cents,
                                         "time_limit": time_limit,
                                         "default_action": default_action,
                                         "game": GAME_ID, "version": sidebet.__version__,
                                         "algorithm": live.algorithm,
                                         **({"shoe": shoe} if shoe != "fair" else {})})
            if shoe == "fair":
                self.commit_shoe(s, tx, 0)
            log_action(s, caller, "create-table", f"table {row.id}",
                       {"name": name, "seats": seats, "unit": unit_cents,
                        "time_limit": time_limit, "default_action": default_action})
            created.append(live)
            return 201, self._info(live)

        created: list[LiveTable] = []
        answer = core.run(caller, key, fingerprint, None, work)
        for live in created:
            core.add_table(live)
        return answer

    def ensure(self, creator: Caller, submission: str, *, seats: int = MAX_SEATS,
               time_limit: int = 30) -> int:
        """The table of this submission's name, created by ``creator`` if missing."""
        config = parse_submission(submission, self.core.settings.table_name_max)
        for tid, live in self.core.tables.items():
            if live.name == (config.name or "table"):
                return tid
        _, body = self.create(creator, submission, seats=seats, unit="1.00",
                              time_limit=time_limit, default_action="stand", key=None)
        return int(body["id"])

    def info(self, table_id: int) -> dict[str, Any]:
        """The table's rules, paytables and limits as shown to players, and its state
        (current: :meth:`Core.current`)."""
        self.core.current(table_id)
        live = self.core.live(table_id)
        return self._info(live, live.published.view)

    @staticmethod
    def _info(live: LiveTable, state: dict[str, Any] | None = None) -> dict[str, Any]:
        config = live.config
        wagers = []
        for wid, pt in config.side_wagers.items():
            wager = get_wager(wid)
            table = wager.paytable(pt)
            wagers.append({"id": wid, "name": wager.name, "section": wager.section,
                           "paytable": table.name,
                           "lines": [{"outcome": ln.outcome, "label": wager.label(ln.outcome),
                                      "pays": ln.pays, "citation": ln.citation}
                                     for ln in table.lines]})
        return {"id": live.id, "name": live.name, "seats": live.seats,
                "unit": format_money(live.unit), "time_limit": live.time_limit,
                "default_action": live.default_action, "submission": config_to_dict(config),
                "side_wagers": wagers, "algorithm": live.algorithm,
                "state": live.view() if state is None else state}

    def summaries(self) -> list[dict[str, Any]]:
        """Every table, briefly."""
        out = []
        tables = self.core.tables
        for tid in sorted(tables):
            live = tables[tid]
            out.append({"id": tid, "name": live.name, "seats": live.seats,
                        "occupied": sorted(live.seat_accounts), "decks": live.config.decks,
                        "side_wagers": dict(live.config.side_wagers),
                        "limits": config_to_dict(live.config).get("limits", {})})
        return out

    def published(self, table_id: int) -> Published:
        """The table's live state (hole card hidden) as of its last commit (404: no such
        table): read without waiting for the table's lock."""
        return self.core.live(table_id).published

    def current(self, table_id: int) -> Published:
        """:meth:`published`, a table another process owns brought up to its log first
        (:meth:`Core.current`): a read on any process sees every committed event."""
        self.core.current(table_id)
        return self.published(table_id)

    # ----- seats ------------------------------------------------------------------------

    @staticmethod
    def own_seat(caller: Caller, live: LiveTable, seat: int) -> None:
        """Refuse unless ``seat`` is the caller's (404: no such seat, 403: another's)."""
        if not 1 <= seat <= live.seats:
            raise ApiError(404, f"table {live.id} has seats 1 to {live.seats}, not {seat}")
        if live.seat_accounts.get(seat) != caller.id:
            raise ApiError(403, f"seat {seat} is not yours",
                           (Violation(HOUSE, f"a player acts only on their own seat; seat "
                                             f"{seat} is not yours"),))

    def sit(self, caller: Caller, table_id: int, seat: int, key: str | None) -> tuple[int, Any]:
        """Take a free seat (one seat at one table per account)."""
        if caller.role != "player":
            raise ApiError(403, "only players sit at a table")
        core = self.core

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            if not 1 <= seat <= live.seats:
                raise ApiError(404, f"table {live.id} has seats 1 to {live.seats}, not {seat}")
            # lock the account row first: a concurrent withdrawal then sees this seat
            s.execute(select(Account.balance).where(Account.id == caller.id).with_for_update())
            if seat in live.seat_accounts:
                raise ApiError(409, f"seat {seat} is taken",
                               (Violation(HOUSE, f"seat {seat} is taken"),))
            if s.scalar(select(Seat).where(Seat.account_id == caller.id)) is not None:
                raise ApiError(409, "you are already seated (one seat at a time)",
                               (Violation(HOUSE, "one seat at one table at a time"),))
            self.seating.check_sit(s, live, caller.id)
            s.add(Seat(table_id=live.id, seat=seat, account_id=caller.id))
            core.append(s, tx, "sit", {"seat": seat, "account": caller.id, "name": caller.name})
            if live.round_open and live.in_betting:
                balance = s.scalar(select(Account.balance).where(Account.id == caller.id))
                core.append(s, tx, "round-chips", {"chips": {str(seat): balance},
                                                   "accounts": {str(seat): caller.id}})
            s.flush()
            return 201, {"table": live.id, "seat": seat, "state": live.view()}

        return core.run(caller, key, canonical(["sit", table_id, seat]), table_id, work)

    def leave(self, caller: Caller, table_id: int, seat: int, key: str | None
              ) -> tuple[int, Any]:
        """Leave a seat with no chips in the round in progress."""
        core = self.core

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            self.own_seat(caller, live, seat)
            if live.has_stakes(seat):
                raise ApiError(409, "you have wagers in the round in progress",
                               (Violation(HOUSE, "leave once your wagers are settled"),))
            self.vacate(s, tx, seat, caller.id)
            return 201, {"table": live.id, "seat": seat, "state": live.view()}

        return core.run(caller, key, canonical(["leave", table_id, seat]), table_id, work)

    def vacate(self, s: Session, tx: Tx, seat: int, account: int,
               reason: str | None = None) -> None:
        """Free a seat with no wagers in the round in progress (its ``leave`` event, with
        ``reason`` when the player did not ask)."""
        live = tx.table
        assert live is not None
        self.seating.free(s, tx, seat)
        payload: dict[str, Any] = {"seat": seat, "account": account}
        if reason is not None:
            payload["reason"] = reason
        self.core.append(s, tx, "leave", payload)
        if live.round_open and live.in_betting:
            self.core.append(s, tx, "round-chips", {"chips": {str(seat): 0},
                                                    "accounts": {str(seat): None}})

    # ----- shoes ------------------------------------------------------------------------

    def commit_shoe(self, s: Session, tx: Tx, number: int) -> None:
        """Draw shoe ``number``'s server seed and publish its commitment (§ 810a.5)."""
        live = tx.table
        assert live is not None
        test_seed = self.core.settings.test_seed
        seed = fair.new_server_seed() if test_seed is None else fair.test_server_seed(
            test_seed, live.id, number)
        digest = fair.commitment(seed)
        self.core.remember_seed(live.id, number, seed)
        s.add(ShoeSeed(table_id=live.id, shoe=number, server_seed=seed.hex(), commitment=digest))
        decks = live.config.decks
        cut = 52 * decks * live.config.rules.penetration.numerator \
            // live.config.rules.penetration.denominator
        self.core.append(s, tx, "shoe-commit", {"shoe": number, "commitment": digest,
                                                "decks": decks, "cut": cut,
                                                "algorithm": fair.ALGORITHM})

    def client_seed(self, caller: Caller, table_id: int, seat: int, seed: str, key: str | None
                    ) -> tuple[int, Any]:
        """Add a client seed to the next shoe not yet shuffled."""
        longest = self.core.settings.client_seed_max
        if not 1 <= len(seed) <= longest or not seed.isprintable():
            raise ApiError(422, f"a client seed is 1 to {longest} printable characters")

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            self.own_seat(caller, live, seat)
            shoe = _next_shoe(live)
            self.core.append(s, tx, "client-seed", {"shoe": shoe.number, "seat": seat,
                                                    "account": caller.id, "seed": seed})
            return 201, shoe.to_json()

        return self.core.run(caller, key, canonical(["seed", table_id, seat, seed]), table_id,
                             work)

    def stack_shoe(self, table_id: int, cards: str) -> dict[str, Any]:
        """TESTS ONLY: the next shoe not yet shuffled deals ``cards`` first (a
        ``shoe-stack`` event; the shoe is marked stacked and no audit calls it fair)."""
        if not self.core.settings.test_stack:
            raise ApiError(404, "stacked shoes are a test-only setting")
        try:
            parsed = parse_cards(cards)
        except SidebetError as exc:
            raise ApiError(422, f"cards: {exc}") from None

        def work(s: Session, tx: Tx) -> tuple[int, Any]:
            live = tx.table
            assert live is not None
            shoe = _next_shoe(live)
            have = Counter(c.index for c in parsed)
            if any(n > shoe.decks for n in have.values()) or len(parsed) > shoe.cut:
                raise ApiError(422, f"a {shoe.decks}-deck shoe cannot deal {cards!r} "
                                    "before its cut card")
            self.core.append(s, tx, "shoe-stack", {"shoe": shoe.number,
                                                   "cards": " ".join(c.code for c in parsed)})
            return 201, shoe.to_json()

        return self.core.run(None, None, "", table_id, work)[1]  # type: ignore[no-any-return]

    def shoes(self, table_id: int) -> list[dict[str, Any]]:
        """Every shoe's commitment; revealed shoes with their server seed."""
        with self.core.lock(table_id):
            live = self.core.live(table_id)
            out = [sh.to_json() for _, sh in sorted(live.shoes.items())]
        with self.core.sessions() as s:
            for item in out:
                if item["revealed"]:
                    row = s.get(ShoeSeed, (table_id, item["shoe"]))
                    assert row is not None
                    item["server_seed"] = row.server_seed
                    item["nonce"] = live.nonce(item["shoe"])
        return out
