"""The server's services composed over one :class:`~sidebet.serve.service.core.Core`."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from sidebet.serve.db import startup_lock
from sidebet.serve.service.accounts import Accounts
from sidebet.serve.service.advice import Advisor
from sidebet.serve.service.controls import Controls
from sidebet.serve.service.core import Core
from sidebet.serve.service.dealer import Dealer
from sidebet.serve.service.games import Games
from sidebet.serve.service.keys import house_key
from sidebet.serve.service.limits import Limits
from sidebet.serve.service.operator import Operator
from sidebet.serve.service.rounds import Rounds
from sidebet.serve.service.tables import Tables
from sidebet.serve.service.timing import Timing
from sidebet.serve.service.wallet import Wallet
from sidebet.serve.settings import Settings

__all__ = ["Services"]


@dataclass(frozen=True, slots=True)
class Services:
    """Everything the routes call, one service per resource; ``operator_note`` tells the
    generated password of an operator account created at this start (else ``None``)."""

    core: Core
    accounts: Accounts
    wallet: Wallet
    limits: Limits
    tables: Tables
    rounds: Rounds
    timing: Timing
    games: Games
    operator: Operator
    advice: Advisor
    dealer: Dealer
    controls: Controls
    operator_note: str | None

    @staticmethod
    def open(engine: Engine, settings: Settings) -> Services:
        """Migrate the database, create the house and operator accounts if missing, check
        the signing key is the house's (:func:`~sidebet.serve.service.keys.house_key`),
        and rebuild every table from its log."""
        with startup_lock(engine):  # processes started together, one after the other
            core = Core(engine, settings)
            accounts = Accounts(core)
            password = settings.operator_password
            note = accounts.bootstrap(None if password is None else
                                      password.get_secret_value())
            signer = house_key(core, settings)
        core.load_all()
        tables = Tables(core)
        limits = Limits(core)
        rounds = Rounds(core, tables, signer, limits)
        return Services(core=core, accounts=accounts, wallet=Wallet(core, limits),
                        limits=limits, tables=tables,
                        rounds=rounds, timing=Timing(core, rounds), games=Games(core, signer),
                        operator=Operator(core), advice=Advisor(core, tables),
                        dealer=Dealer(core, accounts, rounds),
                        controls=Controls(core, tables, rounds), operator_note=note)

    def ensure_table(self, submission: str, *, seats: int, time_limit: int) -> int:
        """The table of this submission's name, opened by the operator if missing."""
        return self.tables.ensure(self.accounts.operator(), submission, seats=seats,
                                  time_limit=time_limit)
