"""The subsections the table engine cites for the base game (ch. 633a) and the Press.

Each side wager cites its own section (:attr:`sidebet.regulation.wagers.base.Wager.section`).
"""

__all__ = [
    "BETS",
    "DEAL",
    "DOUBLE",
    "INSURANCE",
    "LIMITS",
    "PEEK",
    "PLAY",
    "PRESS",
    "PRESS_PAY",
    "PRESS_SPLIT",
    "SETTLE",
    "SIDE_SETTLE",
    "SPLIT",
    "SPLIT_DEALER_BJ",
    "SURRENDER",
]

BETS = "§ 633a.6(d)"
LIMITS = "§ 601a.2"
DEAL = "§ 633a.7(a)-(f)"
SETTLE = "§ 633a.7(g)"
INSURANCE = "interpretation 14"  # insurance pays 2 to 1 (ch. 633a text not in the seed)
DOUBLE = "§ 633a.10"
SPLIT = "§ 633a.11"
SPLIT_DEALER_BJ = "§ 633a.11(d)"
SURRENDER = "interpretation 14"  # late surrender offered (ch. 633a text not in the seed)
PLAY = "§ 633a.7"
PRESS = "§ 633c.11(e)"
PRESS_PAY = "§ 633c.11(f)"
PRESS_SPLIT = "§ 633c.11(g)"
PEEK = "§ 633a.7, interpretation 14"
SIDE_SETTLE = "§ 633c.11(d), § 633b.15(f), § 633c.7(d), § 633b.20(d)"
