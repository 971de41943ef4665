"""The Blackjack table: shoe, round state machine, ledger, strategy players, histories.

>>> from sidebet.regulation.submission import TableConfig
>>> from sidebet.table import DealingShoe, RoundState, Phase
>>> r = RoundState(TableConfig(), 1, DealingShoe.stacked("As 9d Kh 9c").deal)
>>> _ = r.place_bet(1, "blackjack", 10_00); _ = r.close_bets()
>>> r.phase, r.hands[0].result, r.ledger.player_net(1)
(<Phase.DONE: 'done'>, 'blackjack', 1500)
"""

from sidebet.table.answers import Answer
from sidebet.table.dealing import (
    DealingShoe,
    commit,
    shuffled_order,
    unshuffled_order,
    verify_commitment,
)
from sidebet.table.game import Table
from sidebet.table.history import load_history, replay, round_to_json, save_history
from sidebet.table.ledger import Ledger, LedgerEntry, Move
from sidebet.table.model import BLACKJACK, Hand
from sidebet.table.options import Option
from sidebet.table.policy import (
    BASIC,
    CHART,
    COMPOSITION,
    Advice,
    ChartStrategy,
    ExactStrategy,
    PlayPolicy,
    PressAll,
    PressByAdvice,
    PressBySimpleRule,
    PressNothing,
    PressPolicy,
    play_out,
)
from sidebet.table.records import (
    Bet,
    CloseBets,
    Deal,
    DealerPlay,
    DealerStep,
    DealToHand,
    Decision,
    Double,
    Hit,
    Insurance,
    Peek,
    Phase,
    PlayDecision,
    Press,
    Record,
    Settle,
    SideWager,
    Split,
    Stand,
    Step,
    Surrender,
    record_from_json,
)
from sidebet.table.shoe_sequence import ShoeSequence, ShoeSpan
from sidebet.table.state import RoundState
from sidebet.table.view import TableView

__all__ = [
    "BASIC",
    "BLACKJACK",
    "CHART",
    "COMPOSITION",
    "Advice",
    "Answer",
    "Bet",
    "ChartStrategy",
    "CloseBets",
    "Deal",
    "DealToHand",
    "DealerPlay",
    "DealerStep",
    "DealingShoe",
    "Decision",
    "Double",
    "ExactStrategy",
    "Hand",
    "Hit",
    "Insurance",
    "Ledger",
    "LedgerEntry",
    "Move",
    "Option",
    "Peek",
    "Phase",
    "PlayDecision",
    "PlayPolicy",
    "Press",
    "PressAll",
    "PressByAdvice",
    "PressBySimpleRule",
    "PressNothing",
    "PressPolicy",
    "Record",
    "RoundState",
    "Settle",
    "ShoeSequence",
    "ShoeSpan",
    "SideWager",
    "Split",
    "Stand",
    "Step",
    "Surrender",
    "Table",
    "TableView",
    "commit",
    "load_history",
    "play_out",
    "record_from_json",
    "replay",
    "round_to_json",
    "save_history",
    "shuffled_order",
    "unshuffled_order",
    "verify_commitment",
]
