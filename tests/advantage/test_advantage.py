"""The counter's kernel against the simulator, the index plays, the money and the CLI."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sidebet.advantage.counts import Resolution, Rounding, named_system, true_count
from sidebet.advantage.indices import ILLUSTRIOUS_18, apply_plays, parse_plays
from sidebet.advantage.metrics import Bankroll, report
from sidebet.advantage.ruin import simple_ruin
from sidebet.advantage.run import run
from sidebet.advantage.spec import AdvantageSpec, SidePlan, parse_ramp
from sidebet.cli.main import app
from sidebet.core.errors import SidebetError
from sidebet.regulation.base_game.codes import HIT, STAND, SURRENDER, parse_chart_code
from sidebet.regulation.house_rules import HouseRules
from sidebet.sim.runner import simulate
from sidebet.sim.spec import resolve_sides
from sidebet.sim.strategy_tables import strategy_arrays

SIDES = resolve_sides(["trilux", "upcard-luck", "top3", "blazing7s"], 6)


def test_flat_play_is_the_simulator_round_for_round() -> None:
    """Flat bets, no index plays: the counter's spots win exactly what the simulator's
    seats win on the same seeded shoes, Blackjack and every side wager."""
    spec = AdvantageSpec(sides=SIDES, plans=tuple(SidePlan(w, "flat") for w, _ in SIDES),
                         spots=2, others=1)
    got = run(spec, 20_000, seed=5).tally
    sim = simulate(spec.sim(), 20_000, 5).tally
    comp = got.sums["comp"]
    seats = sim.seats
    assert comp[1, 0] == seats[0][0] + seats[1][0]
    side_net = sum(s[2] - s[0] for s in seats[:2])
    assert comp[3:, 0].sum() == side_net
    assert comp[0, 0] == comp[1, 0] + comp[3:, 0].sum()
    assert got.rounds == 20_000 and got.acc[1] == 20_000


def test_the_counter_bets_but_does_not_change_the_round() -> None:
    """The one round kernel with a counter (ramp, wonging, side wagers by count and by
    EV, no index plays) deals, plays and settles the table exactly as without one: the
    same rounds, shoes and hand counts on the same seeded shoes (the table's money is
    then booked for the counter instead)."""
    from sidebet.advantage.tables import kernel_tables
    from sidebet.sim.chunk import kernel_records, seed_key
    from sidebet.sim.kernels import play_chunk
    from sidebet.sim.layout import NACC, NTC, STAT_NAMES, CounterOutputs

    spec = AdvantageSpec(
        sides=SIDES, spots=2, others=2, ramp=parse_ramp("1-12"), wong_in=0, wong_out=-1,
        plans=(SidePlan("blazing7s", "count", 1, "7s", tuple(-3 if 20 <= k < 24 else 0
                                                             for k in range(52)),
                        parse_ramp("2:1")),
               SidePlan("upcard-luck", "ev"), SidePlan("trilux", "flat")))
    t = kernel_tables(spec)
    nw, nb = len(t.wagers), t.buckets
    tally = CounterOutputs(np.zeros(NACC), np.zeros((nb, NTC)), np.zeros((nw, nb, 3)),
                           np.zeros((nw, 2)), np.zeros((3 + nw, 5)), np.zeros(0, np.int64))
    key = seed_key(3)
    src, tab, _, outs = kernel_records(spec.sim(), key, 0, 100)
    counted = play_chunk(src, tab, t.play, outs, 10**9, t.counter, tally)
    src2, tab2, play2, plain = kernel_records(spec.sim(), key, 0, 100)
    assert play_chunk(src2, tab2, play2, plain, 10**9, None, None) == counted > 1500
    kept = ("rounds", "hands", "naturals", "wins", "pushes", "losses", "surrenders",
            "doubles", "splits", "busts", "dealer_blackjacks", "dealer_busts")
    for name in kept:
        k = STAT_NAMES.index(name)
        assert outs.stats[k] == plain.stats[k], name
    assert outs.info[0] == plain.info[0] == tally.acc[2]
    assert 0 < tally.acc[1] < counted  # wonged
    assert (tally.side_acc[:, 0] > 0).sum() == 3  # by count, by EV and flat


def test_count_ramp_indices_and_side_count_in_one_run() -> None:
    """A Hi-Lo 1-12 counter with the Illustrious 18, insurance, wonging and a Blazing 7's
    count: the bets follow the ramp, insurance is bet only at +3 and up, the counter
    leaves and comes back, and the report adds up."""
    b7 = dict(SIDES)["blazing7s"]
    spec = AdvantageSpec(
        sides=(("blazing7s", b7),), penetration=Fraction(5, 6),
        plans=(SidePlan("blazing7s", "count", 1, "7s", tuple(-3 if 20 <= k < 24 else 0
                                                             for k in range(52)),
                        parse_ramp("2:1")),),
        plays=parse_plays("i18"), ramp=parse_ramp("1-12"), wong_in=-1, wong_out=-2)
    got = run(spec, 20_000, seed=9, trace_rounds=20_000)
    tc = got.tally.sums["tc_stats"]
    half = (tc.shape[0] - 1) // 2
    for b in range(tc.shape[0]):
        if tc[b, 3] > 0:
            assert tc[b, 4] == tc[b, 3] * spec.ramp.units(b - half)
    assert 0 < got.tally.acc[1] < got.tally.rounds  # wonged out some rounds
    assert got.tally.acc[7] > 0
    rep = report(got, Bankroll(bank=500, goal=500, trip_rounds=500))
    j = rep.to_json()
    total = j["ev_per_round"]["value"]
    parts = sum(c["ev_per_round"]["value"] for c in j["components"] if c["wager"] != "insurance")
    assert total == pytest.approx(parts)
    assert [r["kind"][:6] for r in j["risk_of_ruin"]] == ["simple", "double", "trip o"]
    assert j["side_by_index"][0]["wager"] == "Blazing 7's"
    assert json.dumps(j)


def test_index_plays_change_the_arrays_by_the_count() -> None:
    basic = strategy_arrays(HouseRules(), 6)
    plays = parse_plays("i18+fab4")
    below, above = apply_plays(basic, plays, -1), apply_plays(basic, plays, 0)
    # 16 v T: surrender (late surrender) at every count; standing replaces hitting
    assert divmod(int(below.hard2[16, 10]), 5) == (SURRENDER, HIT)
    assert divmod(int(above.hard2[16, 10]), 5) == (SURRENDER, STAND)
    assert above.hs_hard[16, 10] == STAND and below.hs_hard[16, 10] == HIT
    assert apply_plays(basic, plays, 4).pair[10, 6] == parse_chart_code("P").packed
    assert apply_plays(basic, plays, 3).pair[10, 6] == basic.pair[10, 6]
    assert apply_plays(basic, plays, -1).hs_hard[12, 4] == HIT
    assert [p.text for p in ILLUSTRIOUS_18][:2] == ["ins@3", "16vT:S@0"]
    for bad in ("16vX:S@0", "23vT:S@1", "16vT:Q@0", "16vT:S@", "16:S@0", "9vT:P@1"):
        with pytest.raises(SidebetError):
            parse_plays(bad)


def test_true_count_resolution_and_rounding() -> None:
    assert true_count(5, 104, Resolution.EXACT, Rounding.TRUNCATE, 1) == 2
    assert true_count(-5, 104, Resolution.EXACT, Rounding.TRUNCATE, 1) == -2
    assert true_count(-5, 104, Resolution.EXACT, Rounding.FLOOR, 1) == -3
    assert true_count(5, 130, Resolution.EXACT, Rounding.ROUND, 1) == 2
    assert true_count(5, 130, Resolution.WHOLE, Rounding.FLOOR, 1) == 1  # 2.5 decks -> 3
    assert true_count(6, 20, Resolution.HALF, Rounding.FLOOR, 1) == 12  # at least 1/2 deck
    assert true_count(7, 52, Resolution.EXACT, Rounding.FLOOR, 2) == 3  # Halves, doubled
    assert named_system("ko").initial_count(8) == -28
    assert not named_system("red-7").balanced


def _cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_cli_unbalanced_count_plays_its_own_generated_indices_or_is_refused() -> None:
    """KO's generated indices are running counts (its pivot +4 at 6 decks) played on its
    own ramp; Hi-Lo's published lists and ramps, or a generated-only list, in one line."""
    code, out, err = _cli("advantage", "--rounds", "2000", "--seed", "3", "--count", "ko",
                          "--indices", "generated:i18+fab4", "--ramp", "6:2,8:4",
                          "--format", "json", "--no-progress")
    assert code == 0, err
    j = json.loads(out)
    assert j["count"]["pivot"] == 4 and j["count"]["index"] == "running count"
    rows = {r["play"].split("@")[0]: r["index"] for r in j["generated_indices"]}
    assert len(rows) == 22 and rows["ins"] is not None
    # a Hi-Lo index of +3 leans like a KO running count near 4 + (3 - 4) * 3 = +1 at 3 decks
    assert -2 <= rows["ins"] <= 4 and rows["16vT:S"] is not None
    for args, says in ((("--count", "ko", "--indices", "generated:i18", "--ramp", "1-12"),
                        "published for Hi-Lo's true count"),
                       (("--indices", "full"), "write generated:full"),
                       (("--indices", "i18-ra"), "write generated:i18-ra"),
                       (("--indices", "generated:nope"), "is not a list")):
        code, _, err = _cli("advantage", "--rounds", "100", *args)
        assert code == 2 and err.count("\n") == 1 and says in err, (args, err)


def test_cli_json_is_strict_where_a_figure_has_no_value() -> None:
    """A count that never wins has no optimal ramp and an infinite N0: its JSON says
    ``null`` there (strict JSON, no ``NaN`` or ``Infinity``)."""
    code, out, err = _cli("advantage", "--rounds", "200000", "--seed", "4", "--count", "ko",
                          "--indices", "none", "--format", "json", "--no-progress")
    assert code == 0, err

    def refuse(word: str) -> None:
        raise ValueError(word)

    j = json.loads(out, parse_constant=refuse)  # NaN or Infinity anywhere: refused
    assert j["ev_per_round"]["value"] < 0  # flat play, no edge
    assert j["ramps_compared"]["optimal_at_same_sd_ev_per_100"] is None
    assert j["n0"] is None


def test_cli_setup_file_json_csv_and_errors(tmp_path: Path) -> None:
    setup = tmp_path / "setup.toml"
    setup.write_text('rounds = 3000\nseed = 4\npenetration = 0.8\n[count]\nsystem = "ko"\n'
                     '[play]\nindices = ["16vT:S@0"]\n[bet]\nramp = "2:2,4:4"\n'
                     '[side.upcard-luck]\nmode = "flat"\n[money]\nbankroll = 300\n')
    code, out, _ = _cli("advantage", str(setup), "--format", "json", "--no-progress")
    assert code == 0, out
    j = json.loads(out)
    assert j["rounds"] == 3000 and j["count"]["index"] == "running count"
    if j["n0"] is None:  # no edge: N0 has no value (null in the JSON)
        assert j["ev_per_round"]["value"] <= 0 and j["n0_hours"] is None
    else:
        assert j["n0_hours"] == pytest.approx(j["n0"] / j["money"]["rounds_per_hour"])
    for b in j["bankroll_for_risk_of_ruin"]:  # the simple formula at that bank gives the risk
        if j["ev_per_round"]["value"] > 0:
            assert simple_ruin(j["ev_per_round"]["value"], j["sd_per_round"],
                               b["bankroll"]) == pytest.approx(b["risk"])
    assert j["count"]["initial_running_count"] == -20
    code, out, _ = _cli("advantage", str(setup), "--format", "csv", "--rounds", "2000",
                        "--count", "hi-lo")
    assert code == 0 and out.startswith("section,name,value,low,high\n")
    for args in (("--ramp", "2:x"), ("--indices", "17vT:Z@1"), ("--side", "trilux"),
                 ("--count", "ko", "--indices", "i18"), ("--count", "ko", "--ramp", "1-12"),
                 ("--spots", "9"), ("--count", "nope"), ("--format", "xlsx")):
        code, _, err = _cli("advantage", "--rounds", "100", *args)
        assert code == 2 and err.count("\n") == 1 and err.startswith("error:"), (args, err)
    code, _, err = _cli("advantage", "--rounds", "100", "--count", "ko", "--indices",
                        "i18+fab4", "--ramp", "1-12")
    assert err == ("error: indices i18+fab4: published for Hi-Lo's true count, not the ko "
                   "count; use generated indices (generated:LISTS) or write its own plays\n")
    book = tmp_path / "out.xlsx"
    code, _, _ = _cli("advantage", str(setup), "--format", "xlsx", "-o", str(book),
                      "--plot", str(tmp_path / "ev.png"))
    assert code == 0 and (tmp_path / "ev.png").stat().st_size > 1000
    from openpyxl import load_workbook  # type: ignore[import-untyped]

    assert load_workbook(book)["by index"]["A1"].value == "index"
    bad = tmp_path / "bad.toml"
    bad.write_text("[bet]\nspread = 3\n")
    code, _, err = _cli("advantage", str(bad))
    assert code == 2 and "unknown key" in err


def test_ruin_trials_against_the_formulas() -> None:
    """A ±1 coin is Hall's coin exactly; small normal steps are the formulas' Brownian
    motion: simulated ruin falls inside Wilson's interval around each formula."""
    from sidebet.advantage.kernel import ruin_trials
    from sidebet.advantage.ruin import barrier_ruin, hall_ruin, trip_ruin, wilson

    rng = np.random.default_rng(7)
    coin = np.where(rng.random(400_000) < 0.52, 10, -10).astype(np.int64)
    out = np.zeros(4, np.int64)
    ruin_trials(coin, 200, 200, 0, out)
    lo, hi = wilson(int(out[0]), int(out[0] + out[1]))
    want = hall_ruin(0.04, 1.0, 20, 20)
    assert lo <= want <= hi and out[0] + out[1] > 1000
    steps = np.rint(rng.normal(0.5, 10.0, 400_000)).astype(np.int64)  # tenths
    out[:] = 0
    ruin_trials(steps, 150, 150, 400, out)
    lo, hi = wilson(int(out[0]), int(out[0] + out[1]))
    assert lo <= barrier_ruin(0.05, 1.0, 15, 15) <= hi
    lo, hi = wilson(int(out[3]), int(out[2]))
    assert lo <= trip_ruin(0.05, 1.0, 15, 400) <= hi


def test_michael_halls_worked_example() -> None:
    """0.0151 a hand, average squared win 3.887, 300 units to double: Hall's 9.0% comes
    from his rounded P and S; unrounded his coin and the diffusion formula both give 8.86%."""
    import math

    from sidebet.advantage.ruin import barrier_ruin, hall_ruin, simple_ruin

    assert round(hall_ruin(0.0151, 3.887, 300, 300, rounded=True), 3) == 0.090
    exact = hall_ruin(0.0151, 3.887, 300, 300)
    assert round(exact, 4) == 0.0886
    sd = math.sqrt(3.887 - 0.0151**2)
    assert barrier_ruin(0.0151, sd, 300, 300) == pytest.approx(exact, abs=1e-4)
    assert barrier_ruin(0.0151, sd, 300, 1e7) == pytest.approx(simple_ruin(0.0151, sd, 300))
    assert simple_ruin(-0.01, 1.0, 100) == 1.0


@pytest.mark.parametrize("body", [
    "[play]\nindices = 5\n", "[bet]\nmin = \"x\"\n", "spots = 1.5\n", "[side.nope]\nmode = \"ev\"\n",
    "[side.trilux]\nunits = 0\n", "[side.blazing7s]\nmode = \"count\"\n", "penetration = \"abc\"\n",
    "seed = -1\n", "[money]\nbankroll = \"x\"\n", "[count]\nsystem = 5\n",
    "[bet]\nwong_in = 1\nwong_out = 3\n", "[count]\nresolution = \"tenth\"\n", "side = 3\n",
    "x = [[[[]]]]\n", "\xff\n",
])
def test_a_bad_setup_file_is_one_line_and_status_2(tmp_path: Path, body: str) -> None:
    setup = tmp_path / "bad.toml"
    setup.write_bytes(body.encode("latin-1"))
    code, _, err = _cli("advantage", str(setup), "--rounds", "10")
    assert code == 2 and err.count("\n") == 1 and err.startswith("error:"), (body, err)
    setup.write_text('rounds = "1e99"\n')
    code, _, err = _cli("advantage", str(setup))
    assert code == 2 and "rounds" in err


def test_the_example_setup_builds() -> None:
    from sidebet.advantage.setup_file import build, load_setup

    path = Path(__file__).resolve().parents[2] / "examples" / "advantage-6deck.toml"
    got = build(load_setup(path))
    assert got.spec.seats == 3 and got.rounds == 10_000_000 and got.seed == 22
    assert got.spec.plan("blazing7s").mode == "count" and got.spec.ramp.spread == 12
    assert got.spec.resolution is Resolution.HALF and len(got.spec.plays) == 22


def test_a_side_count_that_never_wins_is_warned_in_plain_words() -> None:
    code, out, _ = _cli("advantage", "--rounds", "20000", "--seed", "3", "--side",
                        "trilux=count:linear-3@3:1", "--format", "json", "--no-progress")
    assert code == 0, out
    (warning,) = json.loads(out)["warnings"]
    assert warning.startswith("TriLux Deluxe bet by its count never wins")
    code, out, _ = _cli("advantage", "--rounds", "20000", "--seed", "3", "--no-progress")
    assert code == 0 and "warning" not in out


def test_ruin_from_a_win_rate_and_sd_entered_directly() -> None:
    code, out, _ = _cli("ruin", "--win", "0.02", "--sd", "3", "--bankroll", "450",
                        "--goal", "450", "--trip", "5000", "--format", "json")
    assert code == 0, out
    j = json.loads(out)
    assert j["risk_of_ruin"]["simple"] == pytest.approx(np.exp(-2.0))  # 2 · 0.02 · 450 / 9
    assert j["risk_of_ruin"]["before_goal"] < j["risk_of_ruin"]["simple"]
    assert j["n0"] == pytest.approx(22_500) and j["n0_hours"] == pytest.approx(225)
    for b in j["bankroll_for_risk_of_ruin"]:
        assert simple_ruin(0.02, 3.0, b["bankroll"]) == pytest.approx(b["risk"])
    code, out, _ = _cli("ruin", "--win", "0.02", "--sd", "3")
    assert code == 0 and "N0: 22,500 rounds, 225.0 hours" in out
    for args in (("--win", "0.02", "--sd", "0"), ("--win", "nan", "--sd", "1"),
                 ("--win", "0.02", "--sd", "3", "--trip", "0"),
                 ("--win", "0.02", "--sd", "3", "--format", "csv")):
        code, _, err = _cli("ruin", *args)
        assert code == 2 and err.count("\n") == 1 and err.startswith("error:"), (args, err)


def _ramped_round() -> tuple[np.ndarray, np.ndarray]:
    """A counter's round in tenths, skewed and heavy-tailed: four rounds in five one unit
    at a small loss, one in five eight units at an edge (naturals, doubles, splits)."""
    low = np.array([0.05, 0.43, 0.08, 0.35, 0.045, 0.045])
    high = np.array([0.05, 0.38, 0.08, 0.40, 0.045, 0.045])
    outcome = np.array([-20, -10, 0, 10, 15, 20])
    values, inverse = np.unique(np.concatenate([outcome, 8 * outcome]), return_inverse=True)
    probs = np.bincount(inverse, weights=np.concatenate([0.8 * low, 0.2 * high]))
    return values, probs


def test_trip_ruin_walked_over_the_rounds_is_the_simulated_trip_ruin() -> None:
    """30,000 simulated trips of 300 such rounds from an 80-unit bank: the walk over the
    round's distribution falls inside Wilson's interval of the share ruined; the diffusion
    formula without the once-a-round correction (a point and a half high) does not."""
    from sidebet.advantage.ruin import DISCRETE_SHIFT, trip_ruin, walk_trip_ruin, wilson

    values, probs = _ramped_round()
    mu = float(probs @ values) / 10
    sd = float(np.sqrt(probs @ (values / 10) ** 2 - mu * mu))
    rng = np.random.default_rng(3)
    trips = rng.choice(values, size=(30_000, 300), p=probs)
    ruined = int((np.cumsum(trips, axis=1).min(axis=1) <= -800).sum())
    lo, hi = wilson(ruined, 30_000)
    walked = walk_trip_ruin(values, probs, 800, 300)
    assert lo <= walked <= hi, (walked, lo, hi)
    assert trip_ruin(mu, sd, 80 - DISCRETE_SHIFT * sd, 300) > hi + 0.005  # uncorrected
    assert abs(trip_ruin(mu, sd, 80, 300) - walked) < 0.01  # corrected: within a point


def test_tilting_moves_the_mean_and_keeps_the_values() -> None:
    from sidebet.advantage.ruin import tilted, walk_trip_ruin

    values, probs = _ramped_round()
    for mean in (-2.0, 0.0, 3.5):
        got = tilted(values, probs, mean)
        assert float(got @ values) == pytest.approx(mean, abs=1e-9)
        assert got.sum() == pytest.approx(1.0) and (got > 0).all()
    assert walk_trip_ruin(values, tilted(values, probs, -2.0), 800, 300) > walk_trip_ruin(
        values, tilted(values, probs, 3.5), 800, 300)
    with pytest.raises(SidebetError):
        tilted(values, probs, 500.0)
    coin = np.array([-1, 1])
    assert walk_trip_ruin(coin, np.array([0.5, 0.5]), 1, 3) == pytest.approx(0.625)
    assert walk_trip_ruin(coin, np.array([0.5, 0.5]), 2, 1) == 0.0
    assert np.isnan(walk_trip_ruin(coin, np.array([0.5, 0.5]), 10**4, 10**4, work=1000))


def test_trip_ruin_walked_with_a_jackpot_is_the_simulated_one() -> None:
    """A round with rare large wins (a side wager's jackpot): the walk keeps its top
    where the losses alone could not ruin the bank, and matches simulated trips."""
    from sidebet.advantage.ruin import walk_trip_ruin, wilson

    values = np.array([-30, -20, -10, 0, 10, 15, 20, 25_000, 50_000])
    probs = np.array([8e-5, 0.05, 0.45, 0.08, 0.35, 0.045, 0.0245, 4e-4, 2e-5])
    probs = probs / probs.sum()
    rng = np.random.default_rng(5)
    trips = rng.choice(values, size=(20_000, 1500), p=probs)
    ruined = int((np.cumsum(trips, axis=1).min(axis=1) <= -600).sum())
    lo, hi = wilson(ruined, 20_000)
    assert lo <= walk_trip_ruin(values, probs, 600, 1500) <= hi


def test_the_counters_trip_ruin_is_its_simulated_trip_ruin() -> None:
    """The report's trip ruin (the walk over its traced rounds) falls inside Wilson's
    interval of its simulated trips, at the EV of the run."""
    spec = AdvantageSpec(ramp=parse_ramp("1-12"), plays=parse_plays("i18+fab4"), others=4)
    got = run(spec, 300_000, seed=11, trace_rounds=300_000)
    (trip,) = [r for r in report(got, Bankroll(bank=60, trip_rounds=400, goal=60)).ruin
               if r.kind.startswith("trip")]
    share, lo, hi = trip.simulated
    assert trip.method == "walk" and trip.trials == 750
    assert lo <= trip.formula <= hi, (trip.formula, share, lo, hi)
    assert trip.formula_low <= trip.formula <= trip.formula_high


def test_other_players_are_seated_by_default() -> None:
    from sidebet.advantage.setup_file import build

    assert build({}).spec.others == 4
    assert build({"spots": 5}).spec.others == 2
    assert build({"others": 0}).spec.others == 0


def _same_rounds(a: AdvantageSpec, b: AdvantageSpec, rounds: int = 20_000) -> None:
    x = run(a, rounds, seed=9).tally
    y = run(b, rounds, seed=9).tally
    assert x.rounds == y.rounds and x.acc[2] == y.acc[2]  # the same shoes
    for name in ("acc", "tc_stats", "comp"):
        assert np.array_equal(x.sums[name], y.sums[name]), name


def test_a_spot_not_played_is_not_dealt() -> None:
    """Spots by count: a second spot from an index never reached is never dealt (the
    round for round the one-spot table), one from every index is always dealt."""
    ramp = parse_ramp("1-12")
    one = AdvantageSpec(ramp=ramp, spots=1, others=2)
    two = AdvantageSpec(ramp=ramp, spots=2, others=2)
    _same_rounds(one, AdvantageSpec(ramp=ramp, spots=2, others=2,
                                    spots_by=parse_ramp("99:2", 1, 2)))
    _same_rounds(two, AdvantageSpec(ramp=ramp, spots=2, others=2,
                                    spots_by=parse_ramp("-99:2", 1, 2)))


def test_spots_that_vary_with_the_count() -> None:
    """Two spots from +3: each index's units bet are its rounds bet × its bet × its
    spots; a shoe yields fewer rounds than with one spot, more than with two."""
    ramp = parse_ramp("1-12")
    spec = AdvantageSpec(ramp=ramp, spots=2, others=3, spots_by=parse_ramp("3:2", 1, 2))
    got = run(spec, 30_000, seed=4).tally
    tc = got.sums["tc_stats"]
    half = 15
    for b in range(tc.shape[0]):
        i = b - half
        assert tc[b, 4] == tc[b, 3] * ramp.units(i) * (2 if i >= 3 else 1)
    assert got.acc[5] == tc[:, 4].sum()
    per_shoe = got.rounds / got.acc[2]
    one = run(AdvantageSpec(ramp=ramp, spots=1, others=3), 30_000, seed=4).tally
    both = run(AdvantageSpec(ramp=ramp, spots=2, others=3), 30_000, seed=4).tally
    assert both.rounds / both.acc[2] < per_shoe < one.rounds / one.acc[2]
    with pytest.raises(SidebetError, match="most spots"):
        AdvantageSpec(ramp=ramp, spots=3, spots_by=parse_ramp("3:2", 1, 3)).verify()


def test_cover_play_keeps_the_bet_near_the_last_and_costs_its_ev() -> None:
    """``cover``: at most double or half the last bet, raised only after a win; a cover
    that never binds changes nothing; the report gives the cover's cost and the
    optimal ramp's at the same SD."""
    from sidebet.advantage.spec import parse_cover
    from sidebet.sim.counting import cover

    assert cover(12, 0, False, 2, True) == 12  # the shoe's first bet: the ramp's
    assert cover(12, 2, True, 2, False) == 4  # at most double
    assert cover(1, 12, False, 2, False) == 6  # at least half
    assert cover(8, 4, False, 0, True) == 4  # no raise after a loss
    assert cover(8, 4, True, 0, True) == 8
    assert cover(2, 4, False, 0, True) == 2  # a drop is always allowed
    with pytest.raises(SidebetError, match="cover"):
        parse_cover("jump:1")
    ramp = parse_ramp("1-12")
    plain = AdvantageSpec(ramp=ramp, others=2)
    _same_rounds(plain, AdvantageSpec(ramp=ramp, others=2, cover=parse_cover("jump:100")))
    j = report(run(plain, 40_000, seed=2), Bankroll()).to_json()
    assert j["ramps_compared"]["cover_cost_per_100"] == pytest.approx(0.0, abs=1e-9)
    covered = AdvantageSpec(ramp=ramp, others=2, cover=parse_cover("jump:2,parlay"))
    got = report(run(covered, 40_000, seed=2), Bankroll()).to_json()
    rc = got["ramps_compared"]
    # (a cover changes no card: the same rounds, the ramp's own EV without the cover)
    assert rc["without_cover_ev_per_100"] == pytest.approx(
        j["ramps_compared"]["as_played_ev_per_100"], rel=1e-9)
    assert rc["cover_cost_per_100"] == pytest.approx(
        rc["without_cover_ev_per_100"] - rc["as_played_ev_per_100"])
    assert got["average_bet"] < j["average_bet"]  # the cover holds the bet back
    assert got["ramp"]["cover"] == "jump:2,parlay"


def _round_starts(spec: AdvantageSpec, nshoes: int = 300) -> np.ndarray:
    """Where each of the counter's rounds starts: its shoe and the cards already out."""
    from sidebet.advantage.tables import kernel_tables
    from sidebet.sim.chunk import kernel_records, seed_key
    from sidebet.sim.kernels import play_chunk
    from sidebet.sim.layout import NACC, NTC, CounterOutputs

    t = kernel_tables(spec)
    nw, nb = len(t.wagers), t.buckets
    tally = CounterOutputs(np.zeros(NACC), np.zeros((nb, NTC)), np.zeros((nw, nb, 3)),
                           np.zeros((nw, 2)), np.zeros((3 + nw, 5)), np.zeros(0, np.int64))
    marks = np.zeros((100 * nshoes, 2), np.int64)
    src, tab, _, outs = kernel_records(spec.sim(), seed_key(6), 0, nshoes, marks=marks)
    rounds = play_chunk(src, tab, t.play, outs, 10**9, t.counter, tally)
    return marks[:rounds]


def test_burn_cards_and_the_cut_cards_spread() -> None:
    """Each shoe's first round starts after the burned cards; with a spread of ±26 the
    shoes' last rounds start on both sides of the fixed cut card, never past its reach."""
    spec = AdvantageSpec(ramp=parse_ramp("1-12"), others=3)
    cut = spec.sim().cut
    plain = _round_starts(spec)
    burned = _round_starts(AdvantageSpec(ramp=parse_ramp("1-12"), others=3, burn=2))
    spread = _round_starts(AdvantageSpec(ramp=parse_ramp("1-12"), others=3, cut_spread=26))

    def firsts_and_lasts(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        new = np.flatnonzero(np.diff(m[:, 0], prepend=-1) != 0)
        return m[new, 1], m[np.r_[new[1:] - 1, len(m) - 1], 1]

    first, last = firsts_and_lasts(plain)
    assert (first == 0).all() and (last < cut).all() and (last >= cut - 30).all()
    first, _ = firsts_and_lasts(burned)
    assert (first == 2).all()
    first, last = firsts_and_lasts(spread)
    assert (first == 0).all() and (last < cut + 26).all()
    assert (last >= cut).sum() > 50 and (last < cut - 26).sum() > 50
    assert len(np.unique(spread[:, 0])) == 300
    with pytest.raises(SidebetError, match="burn"):
        AdvantageSpec(burn=400).verify()
    with pytest.raises(SidebetError, match="cut spread"):
        AdvantageSpec(cut_spread=200).verify()


def test_the_ace_adjusted_index_is_the_exact_fraction() -> None:
    """The index with an ace side count, made whole without a division, against the
    exact fraction over many random counts, weights and depths."""
    import math

    from sidebet.sim.counting import ace_adjusted

    rng = np.random.default_rng(12)
    for _ in range(3000):
        seen = int(rng.integers(0, 300))
        aces = int(rng.integers(0, min(seen, 24) + 1))
        running = int(rng.integers(-60, 61))
        weight = int(rng.integers(-4, 5))
        mult, den = 2, int(rng.integers(1, 13))
        exact = Fraction((13 * running + weight * (seen - 13 * aces)) * mult, 13 * den)
        want = {0: math.trunc(exact), 1: math.floor(exact),
                2: math.floor(exact + Fraction(1, 2)) if exact >= 0
                else -math.floor(-exact + Fraction(1, 2))}
        for rounding, value in want.items():
            assert ace_adjusted(running, aces, seen, weight, mult, den, 1.0 / den,
                                rounding) == value


def test_an_ace_side_count_moves_the_bets_or_insurance_never_the_plays() -> None:
    """Counting aces on the side changes what the counter bets (``ace_bet``) or when it
    insures (``ace_ins``), on the same cards and with the same plays: every hand is
    played and counted alike."""
    from sidebet.advantage.tables import kernel_tables
    from sidebet.sim.chunk import kernel_records, seed_key
    from sidebet.sim.kernels import play_chunk
    from sidebet.sim.layout import NACC, NTC, STAT_NAMES, CounterOutputs

    def play(spec: AdvantageSpec) -> tuple[CounterOutputs, np.ndarray]:
        t = kernel_tables(spec)
        nw, nb = len(t.wagers), t.buckets
        tally = CounterOutputs(np.zeros(NACC), np.zeros((nb, NTC)), np.zeros((nw, nb, 3)),
                               np.zeros((nw, 2)), np.zeros((3 + nw, 5)),
                               np.zeros(0, np.int64))
        src, tab, _, outs = kernel_records(spec.sim(), seed_key(8), 0, 400)
        play_chunk(src, tab, t.play, outs, 10**9, t.counter, tally)
        return tally, outs.stats

    ramp, plays = parse_ramp("1-12"), parse_plays("i18")
    plain, stats = play(AdvantageSpec(ramp=ramp, plays=plays, others=2))
    bet, bet_stats = play(AdvantageSpec(ramp=ramp, plays=plays, others=2, ace_bet=2))
    ins, ins_stats = play(AdvantageSpec(ramp=ramp, plays=plays, others=2, ace_ins=-1))
    hands = [STAT_NAMES.index(k) for k in ("rounds", "hands", "doubles", "splits",
                                           "surrenders", "wins", "losses", "busts")]
    assert (stats[hands] == bet_stats[hands]).all() and (stats[hands] == ins_stats[hands]).all()
    assert bet.acc[5] != plain.acc[5] and bet.acc[7] == plain.acc[7]  # bets, not insurance
    assert ins.acc[5] == plain.acc[5] and ins.acc[7] != plain.acc[7]  # insurance only
    with pytest.raises(SidebetError, match="ace side count"):
        AdvantageSpec(ace_bet=11).verify()


def test_several_games_compared_side_by_side(tmp_path: Path) -> None:
    """``--compare``: one row per set-up, each the figures of its own run (the same as
    running it alone on the same seed); without a seed the games share one; text and
    CSV name every game; a single set-up or a plot is refused in one line."""
    a = tmp_path / "deep.toml"
    a.write_text('penetration = 0.83\n[bet]\nramp = "1-12"\n')
    b = tmp_path / "shallow.toml"
    b.write_text('penetration = 0.66\nothers = 0\n[bet]\nramp = "1-8"\n')
    code, out, _ = _cli("advantage", "--compare", str(a), "--compare", str(b), "--rounds",
                        "20000", "--format", "json", "--no-progress")
    assert code == 0, out
    got = json.loads(out)
    rows = got["games"]
    assert [r["name"] for r in rows] == ["deep", "shallow"]
    assert rows[0]["seed"] == rows[1]["seed"]  # one seed for both
    assert got["reports"][1]["report"]["table"]["others"] == 0
    code, out, _ = _cli("advantage", str(b), "--rounds", "20000", "--seed",
                        str(rows[1]["seed"]), "--format", "json", "--no-progress")
    alone = json.loads(out)
    assert rows[1]["ev_per_100"] == alone["ev_per_100"]
    assert rows[1]["sd_per_round"] == alone["sd_per_round"]
    assert rows[1]["ruin_trip"] == alone["risk_of_ruin"][2]["formula"]
    for key in ("score", "n0", "win_rate", "ruin_simple", "bankroll_for_5pct_ruin"):
        assert key in rows[0]
    code, out, _ = _cli("advantage", str(a), "--compare", str(b), "--rounds", "5000",
                        "--seed", "2", "--format", "csv", "--no-progress")
    assert code == 0 and out.startswith("game,figure,value,low,high\n")
    assert {line.split(",")[0] for line in out.splitlines()[1:]} == {"deep", "shallow"}
    code, out, _ = _cli("advantage", "--compare", str(a), "--compare", str(b), "--rounds",
                        "5000", "--no-progress")
    assert code == 0 and "deep" in out and "shallow" in out and "SCORE" in out
    for args in (("--compare", str(a)), ("--compare", str(a), "--compare", str(b), "--plot",
                                         str(tmp_path / "x.png"))):
        code, _, err = _cli("advantage", "--rounds", "100", *args)
        assert code == 2 and err.count("\n") == 1 and "--compare" in err, err


def test_csv_gives_each_risk_of_ruin_formula_and_simulated_once() -> None:
    code, out, _ = _cli("advantage", "--rounds", "3000", "--seed", "1", "--format", "csv",
                        "--no-progress")
    assert code == 0
    import csv

    rows = list(csv.reader(out.splitlines()))
    kinds = [r[1][:6] for r in rows if r[0] == "ruin simulated"]
    assert kinds == ["simple", "double", "trip o"]
    assert sum(r[0] == "ramps compared" for r in rows) == 5


def _first_round(spec: AdvantageSpec, cards: str) -> tuple[np.ndarray, np.ndarray, int]:
    """The counter's first round from a shoe whose first cards are ``cards`` (ranks, in
    the order dealt; the rest of the shoe after them): its Blackjack money (tenths), its
    books (``acc``) and the table's doubles."""
    from sidebet.advantage.tables import kernel_tables
    from sidebet.sim.chunk import kernel_records, seed_key
    from sidebet.sim.kernels import play_chunk
    from sidebet.sim.layout import NACC, NTC, STAT_NAMES, CounterOutputs

    rest = [int(c) for c in spec.sim().inputs().base]
    head = []
    for rank in cards:
        card = next(c for c in rest if c // 4 == "23456789TJQKA".index(rank))
        rest.remove(card)
        head.append(card)
    t = kernel_tables(spec)
    nw, nb = len(t.wagers), t.buckets
    tally = CounterOutputs(np.zeros(NACC), np.zeros((nb, NTC)), np.zeros((nw, nb, 3)),
                           np.zeros((nw, 2)), np.zeros((3 + nw, 5)), np.zeros(0, np.int64))
    src, tab, _, outs = kernel_records(spec.sim(), seed_key(0), 0, 1,
                                       orders=np.array([head + rest], np.uint8))
    assert play_chunk(src, tab, t.play, outs, 1, t.counter, tally) == 1
    return tally.comp[1, 0], tally.acc, int(outs.stats[STAT_NAMES.index("doubles")])


I18 = AdvantageSpec(ramp=parse_ramp("1-12"), plays=parse_plays("i18"), others=2)


def test_index_plays_use_the_count_at_the_decision() -> None:
    """The shoe's first round, bet at 0: the counter's 9 v 2 and the other seats' cards
    show +7 (1.19 a deck over the 305 cards unseen), so it doubles (``9v2:Dh@1``), wins
    19 against 17 and is paid two units."""
    # seats 1-3, upcard, seats 1-3, hole; the double, the others' hits, the dealer's
    money, _, doubles = _first_round(I18, "422" "2" "543" "T" "T" "TT" "5")
    assert (money, doubles) == (20, 1)


def test_the_hole_card_is_not_counted_before_it_is_shown() -> None:
    """+5 in sight (0.85 a deck) and a 6 in the hole: the counter hits its 9 v 2 (the
    hole card counted would make it +6 over 304 cards, 1.03, a double), wins one unit."""
    money, _, doubles = _first_round(I18, "427" "2" "548" "6" "T" "T" "T")
    assert (money, doubles) == (10, 0)


@pytest.mark.parametrize(("cards", "money"), [
    ("29" "T" "79" "7" "7", -10),  # 0: a three-card 16 v T stands, loses to 17
    ("2T" "T" "7T" "7" "7" "5", 10),  # -2 (-0.34 a deck): it hits, 21 beats 17
])
def test_a_hit_or_stand_index_applies_to_three_cards(cards: str, money: int) -> None:
    """``16vT:S@0`` on a 16 of three cards (9 v T hit, a 7): stand at 0, hit below."""
    spec = AdvantageSpec(ramp=parse_ramp("1-12"), plays=parse_plays("i18"), others=1)
    got, _, doubles = _first_round(spec, cards)
    assert (got, doubles) == (money, 0)


def test_insurance_is_taken_at_the_count_after_the_deal() -> None:
    """``ins@1``: bet at 0, the shoe's first round shows 14 small cards and an ace up
    (+13 over the 297 cards unseen, 2.3 a deck): the counter insures."""
    spec = AdvantageSpec(ramp=parse_ramp("1-12"), plays=parse_plays("ins@1"), others=6)
    _, acc, _ = _first_round(spec, "2345623" "A" "4562345" "9")
    assert acc[7] == 1
