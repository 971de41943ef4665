"""Surveillance of side-wager counting: each betting decision valued at the exact edge of
the moment, the correlation of bets with the edge, a CUSUM alarm with the operator's
false-alarm rate, results against expectation (:mod:`.analysis`); the rounds from the
engine's records, histories and the server's logs (:mod:`.events`, :mod:`.readers`); and
how fast it detects simulated counters (:mod:`.players`, :mod:`.detection`).

It reads the table engine's records and the exact side-wager EV (:mod:`sidebet.vuln`):
it sits above both and below the server, which may run one :class:`Surveillance` per
table.
"""

from __future__ import annotations

from sidebet.surveil.alarm import AlarmRule
from sidebet.surveil.analysis import Decision, PlayerWager, Surveillance, survey
from sidebet.surveil.events import RoundSeen, Span, round_seen

__all__ = ["AlarmRule", "Decision", "PlayerWager", "RoundSeen", "Span", "Surveillance",
           "round_seen", "survey"]
