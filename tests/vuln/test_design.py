"""The paytable search against brute force on a small case, its front, and the command."""

from __future__ import annotations

import io
import itertools
import json
from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.core.cards import ALL_CARDS
from sidebet.core.errors import SidebetError
from sidebet.core.shoe import Shoe
from sidebet.exact.par import par_sheet
from sidebet.regulation.wagers import LOSE, get_wager
from sidebet.vuln.design import DesignSpec, brute_force_screen, is_dominated, search

runner = CliRunner()

LINES = ["two_sevens=20:60:20", "one_seven=1:3", "three_sevens=100:300:100",
         "three_sevens_same_color=500", "three_sevens_suited=200:1000:400",
         "three_sevens_diamonds=1"]
"""Blazing 7's at 1 deck (where three 7♦ cannot happen): 81 paytables, small enough for
brute force."""


@pytest.fixture(scope="module")
def small() -> tuple[DesignSpec, object]:
    spec = DesignSpec.build("blazing7s", 1, LINES, (Fraction(-30, 100), Fraction(20, 100)),
                            samples=30, seed=5, keep_order=False)
    return spec, search(spec)


def _brute_edge(pays: dict[str, int], decks: int) -> Fraction:
    """The house edge from every deal of the shoe, classified card by card."""
    w = get_wager("blazing7s")
    cards = [c for c in ALL_CARDS for _ in range(decks)]
    won = 0
    deals = 0
    for i, j, k in itertools.permutations(range(len(cards)), 3):
        outcome = w.outcome(cards[i], cards[j], cards[k])
        won += -1 if outcome == LOSE else pays[outcome]
        deals += 1
    return Fraction(-won, deals)


def test_the_search_keeps_exactly_the_band_and_screens_as_brute_force(small) -> None:
    spec, result = small
    w = get_wager("blazing7s")
    ids = [o.id for o in w.outcomes]
    found = {c.pays: c for c in result.front}
    brute = []
    for odds in itertools.product(*(r.values for r in spec.lines)):
        name = w.custom_paytable(dict(zip(ids, odds, strict=True))).name
        edge = par_sheet(w, Shoe.standard(1), name).house_edge
        if spec.edge[0] <= edge <= spec.edge[1]:
            brute.append((odds, edge, brute_force_screen(spec, odds)))
    assert result.kept == len(brute) and result.enumerated == 81
    for odds, edge, screen in brute:
        if odds in found:
            assert found[odds].house_edge == edge
            assert found[odds].screen[0] == pytest.approx(screen, rel=1e-9, abs=1e-12)
    best = min(brute, key=lambda b: (b[2], b[1], -max(b[0])))
    assert result.front[0].pays == best[0]  # the least exposed paytable in the band
    # the front is exactly the non-dominated set of the brute-force candidates
    everyone = {c.pays: c for c in result.front}
    assert set(everyone) <= {b[0] for b in brute}
    for c in result.front:
        assert not any(is_dominated(c, o) for o in result.front)


def test_front_is_non_dominated_and_complete(small) -> None:
    spec, result = small
    w = get_wager("blazing7s")
    spec_all = DesignSpec.build("blazing7s", 1, LINES, spec.edge, samples=30, seed=5,
                                keep_order=False)
    # every kept candidate off the front is dominated by one on it
    wide = search(spec_all)
    assert [c.pays for c in wide.front] == [c.pays for c in result.front]
    assert len(wide.edges) == wide.kept
    assert all(not is_dominated(a, b) for a in wide.front for b in wide.front)
    assert w.id == "blazing7s"


def test_one_candidate_edge_rederived_from_every_deal(small) -> None:
    _, result = small
    cand = result.front[0]
    pays = dict(zip(cand.outcomes, cand.pays, strict=True))
    assert _brute_edge(pays, 1) == cand.house_edge


def test_order_and_limits_are_kept() -> None:
    spec = DesignSpec.build("blazing7s", 1, LINES, (Fraction(-1, 2), Fraction(1, 2)),
                            samples=10, max_pay=2000)
    result = search(spec)
    assert result.front and all(c.largest_pay <= 2000 for c in result.front)
    # rarer pays more: three 7s of one colour, any three 7s, two 7s, one 7
    assert all(c.pays[2] >= c.pays[3] >= c.pays[4] >= c.pays[5] for c in result.front)
    with pytest.raises(SidebetError, match="--line takes OUTCOME"):
        DesignSpec.build("blazing7s", 1, ["sevens=1:3"], (Fraction(0), Fraction(1, 10)))
    with pytest.raises(SidebetError, match="narrow the --line ranges"):
        DesignSpec.build("blazing7s", 6, [f"{o}=1:100" for o in ("one_seven", "two_sevens",
                                                                  "three_sevens")],
                         (Fraction(0), Fraction(1, 10)))


def test_design_command_json_csv_xlsx_and_plot(tmp_path: Path) -> None:
    args = ["design", "blazing7s", "--decks", "1", "--edge", "-30%:20%", "--samples", "30",
            "--any-order", "--confirm", "2", "--rounds", "3000", "--no-progress",
            *itertools.chain.from_iterable(("--line", x) for x in LINES)]
    plot = tmp_path / "front.svg"
    result = runner.invoke(app, [*args, "--format", "json", "--plot", str(plot)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    first = data["candidates"][0]
    assert Fraction(first["house_edge"]) == Fraction(first["house_edge"])
    assert {"pays", "hit_frequency", "volatility_index", "perfect_play_units_per_100",
            "perfect_play_units_per_100_ci"} <= first.keys()
    assert first["perfect_play_units_per_100"] is not None
    assert len(data["candidates"]) > 2
    assert data["candidates"][2]["perfect_play_units_per_100"] is None  # only --confirm 2
    assert "per second" in result.stderr
    assert plot.read_text().lstrip().startswith("<?xml")
    quick = [a if a != "2" else "0" for a in args]  # --confirm 0: the screen alone
    csv = runner.invoke(app, [*quick, "--format", "csv"])
    header = csv.stdout.splitlines()[0].split(",")
    assert {"house_edge_numerator", "house_edge_denominator", "pays_one_seven"} <= set(header)
    book = openpyxl.load_workbook(io.BytesIO(
        runner.invoke(app, [*quick, "--format", "xlsx"]).stdout_bytes))
    rows = list(book["design candidates"].iter_rows(values_only=True))
    got = dict(zip(rows[0], rows[1], strict=True))
    assert got["house_edge_numerator"] == Fraction(first["house_edge"]).numerator
