"""``--pays``: a custom paytable on the command line, and the flag it may carry.

``--pays outcome=odds,...`` gives the odds of every winning outcome of the wager; it
becomes the paytable's name (``custom:...``, :mod:`sidebet.regulation.wagers.custom_pays`),
which every analysis reads like any other paytable.
"""

from __future__ import annotations

from sidebet.core.errors import SidebetError
from sidebet.regulation.wagers import get_wager
from sidebet.regulation.wagers.custom_pays import parse_pays_text

__all__ = ["PAYS_HELP", "SIM_PAYS_HELP", "chosen_paytable", "paytable_flags", "sim_pays"]

PAYS_HELP = ("A custom paytable: outcome=odds for every winning outcome, e.g. "
             "'one_seven=3,two_sevens=50,...' ('sidebet rules WAGER' lists the outcomes).")
SIM_PAYS_HELP = ("WAGER:outcome=odds,... a custom paytable for one wager (repeatable), e.g. "
                 "'three-card-poker:straight_flush=40,three_of_a_kind=30,straight=10,flush=5'.")


def chosen_paytable(wager: str, paytable: str | None, pays: str | None) -> str | None:
    """The paytable ``--paytable`` or ``--pays`` names (``None``: the wager's)."""
    if pays is None:
        return paytable
    if paytable is not None:
        raise SidebetError("give --paytable or --pays, not both")
    w = get_wager(wager)
    return w.custom_paytable(parse_pays_text(pays, "--pays"), "--pays").name


def sim_pays(items: list[str]) -> dict[str, str]:
    """``WAGER:outcome=odds,...`` options as ``{wager id: paytable name}``."""
    out: dict[str, str] = {}
    for item in items:
        wager, sep, pays = item.partition(":")
        if not sep or not wager.strip() or "=" in wager:
            raise SidebetError(f"--pays takes WAGER:outcome=odds,... not {item[:40]!r}")
        w = get_wager(wager)
        if w.id in out:
            raise SidebetError(f"--pays gives {w.name} twice")
        out[w.id] = w.custom_paytable(parse_pays_text(pays, f"--pays {w.id}"),
                                      f"--pays {w.id}").name
    return out


def paytable_flags(wager: str, paytable: str) -> list[str]:
    """The non-compliance of a custom paytable, with the subsection fixing the paytable."""
    return [str(v) for v in get_wager(wager).custom_violations(paytable)]
