"""Gather every number of a table's math report, as plain JSON-ready data.

Each part comes from the module that owns it, in the same form its command prints with
``--format json``: the compliance check is ``sidebet check-table``'s, each PAR sheet
``sidebet par``'s, the base game ``sidebet strategy``'s, the Press ``sidebet press``'s, the
simulation ``sidebet simulate``'s (less its timings) and the battery ``sidebet rng-test``'s.
What only the report shows (volatility index, hold ranges, largest win, the Press's element
of risk) comes from :mod:`sidebet.report.wager_math` and :mod:`sidebet.report.hold`; the
independent confirmation from :mod:`sidebet.report.confirm`; the money the table can lose
in one round from :mod:`sidebet.regulation.liability`; the house's theoretical win per hour
and the counting section's materiality test from :mod:`sidebet.report.money`.  The HTML is rendered from this data
alone (:mod:`sidebet.report.render`), so the report and the JSON cannot disagree.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import Any

from sidebet.core.errors import SidebetError
from sidebet.core.money import format_money
from sidebet.regulation.submission import TableConfig, cap_checks, load_table_config
from sidebet.regulation.wagers import PRESSABLE, WAGERS, get_wager

__all__ = ["FORMAT", "ReportOptions", "build_report", "convergence_points", "sim_command",
           "table_counter_spec"]

FORMAT = "sidebet-report/1"

TIMINGS = ("elapsed_s", "rounds_per_s", "chunk_shoes")
"""Simulation fields that depend on this machine, not the game (its speed; the chunk size
follows its idle cores, the result does not): left out of the report."""


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """How the report's simulation and RNG battery are run."""

    rounds: int = 10_000_000
    """Rounds of the confirming simulation (one round per shoe)."""
    rng_shoes: int = 20_000
    vuln_rounds: int = 1_000_000
    """Rounds of each counter simulation (per wager and per penetration swept)."""
    confirm_rounds: int = 100_000_000
    """The most rounds of the independent confirmation per wager (cards dealt and classified
    one by one; each wager is dealt what its precision target needs, up to this)."""
    rounds_per_hour: int = 80
    """Rounds dealt per hour, for the theoretical win and the counter's money per hour."""
    seed: int | None = None
    """Seed of the simulation; the battery's shoe ``k`` is shuffled with ``seed + k``."""
    command: str = ""
    """The command line that regenerates the report (recorded as given)."""
    revision: int = 1
    """The document's revision number (document control)."""
    prepared_by: str = ""
    """Who prepared the document (blank: a line to sign)."""
    approved_by: str = ""
    """Who approved it (blank: a line to sign)."""


RUN_SIZES = (("rounds", "--rounds", "simulation"), ("vuln_rounds", "--vuln-rounds",
                                                     "vulnerability"),
             ("confirm_rounds", "--confirm-rounds", "confirmation"),
             ("rng_shoes", "--rng-shoes", "rng"))
"""Each run size, its option and the section whose figures it sizes."""


def reduced_sizes(options: ReportOptions) -> list[dict[str, Any]]:
    """The run sizes below the defaults, each with the section it weakens: a report with any
    is a reduced run, not for submission.

    >>> [r["option"] for r in reduced_sizes(ReportOptions(rng_shoes=10))]
    ['--rng-shoes']
    """
    default = ReportOptions()
    return [{"option": flag, "given": getattr(options, name), "default": getattr(default, name),
             "section": section}
            for name, flag, section in RUN_SIZES
            if getattr(options, name) < getattr(default, name)]


def _revision() -> str:
    """The source revision (``git rev-parse HEAD``, ``+dirty`` when the package's sources,
    ``src/sidebet``, differ from it)."""
    here = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--", "."],
                               capture_output=True, text=True, check=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout)"
    return head + ("+dirty" if dirty.strip() else "")


def _version(package: str = "sidebet") -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def _chromium_version() -> str:
    """Chromium's ``--version`` (the PDF's printer), or why it is not known."""
    try:
        from sidebet.report.render import chromium_path

        done = subprocess.run([chromium_path(), "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, SidebetError, subprocess.SubprocessError):
        return "not found (no PDF printed with it)"
    return done.stdout.strip() or "unknown"


def _versions() -> dict[str, str]:
    import platform

    return {"python": platform.python_version(),
            **{name: _version(name) for name in ("numpy", "numba", "scipy", "matplotlib",
                                                 "jinja2")},
            "chromium": _chromium_version()}


def _table(config: TableConfig) -> dict[str, Any]:
    rules = config.rules
    return {
        "name": config.name,
        "decks": config.decks,
        "rules": rules.describe(),
        "house_rules": {
            "dealer_hits_soft_17": rules.dealer_hits_soft_17,
            "blackjack_pays": rules.blackjack_pays.value,
            "double": rules.double.value,
            "double_after_split": rules.double_after_split,
            "max_split_hands": rules.max_split_hands,
            "resplit_aces": rules.resplit_aces,
            "hit_split_aces": rules.hit_split_aces,
            "late_surrender": rules.late_surrender,
            "insurance": rules.insurance,
            "hole_card": rules.hole_card.value,
            "penetration": str(rules.penetration),
        },
        "limits": {
            key: {"min": None if lim.min is None else format_money(lim.min),
                  "max": None if lim.max is None else format_money(lim.max)}
            for key, lim in config.limits.items()
        },
        "payout_limits": {k: format_money(v) for k, v in config.payout_limits.items()},
        "side_wagers": dict(config.side_wagers),
    }


def _compliance(config: TableConfig, source: str) -> dict[str, Any]:
    """``sidebet check-table --format json`` and, per wager, the subsections it rests on."""
    found = config.violations()
    rules = []
    for wager_id, paytable in config.side_wagers.items():
        w = get_wager(wager_id)
        table = w.paytable(paytable)
        broken = [str(v) for v in (*w.table_rules(config.decks, table.name),
                                    *w.custom_violations(table.name))]
        rules.append({
            "wager": w.id,
            "name": w.name,
            "section": w.section,
            "paytable": table.name,
            "paytable_citation": table.citation,
            "blackjack_wager_rule": w.blackjack_wager_rule,
            "requires": [r.name for r in w.requires],
            "requires_rule": w.requires_rule,
            "deck_and_paytable_rule": broken or ["allowed at this deck count"],
            "lines": [{"outcome": ln.outcome, "pays": ln.pays, "citation": ln.citation}
                      for ln in table.lines],
        })
    return {
        "file": source,
        "compliant": not found,
        "violations": [{"rule": v.rule, "message": v.message, "text": str(v)} for v in found],
        "caps": [c.to_json() for c in cap_checks(config)],
        "house_rules_checked": "§ 601a.2",
        "wagers": rules,
    }


def _wager(config: TableConfig, wager_id: str) -> dict[str, Any]:
    from sidebet.exact.par import par_sheet
    from sidebet.report.wager_math import (
        CONFIDENCES,
        hold_ranges,
        largest_win,
        volatility_index,
    )

    sheet = par_sheet(wager_id, config.decks, config.side_wagers[wager_id])
    return {
        "wager": sheet.wager,
        "name": sheet.wager_name,
        "paytable": sheet.paytable,
        "labels": {ln.outcome: ln.label for ln in sheet.lines},
        "par": sheet.to_json(),
        "volatility_index": [{"confidence": float(c), "value": volatility_index(sheet, c)}
                             for c in CONFIDENCES],
        "hold_ranges": [h.to_json() for h in hold_ranges(sheet)],
        "largest_win": largest_win(sheet).to_json(),
    }


def _press(config: TableConfig) -> dict[str, Any] | None:
    """``sidebet press --format json`` for the table's rules, and the three policies."""
    if PRESSABLE.id not in config.side_wagers:
        return None
    from sidebet.exact.blackjack import press_chart
    from sidebet.exact.par import par_sheet
    from sidebet.report.wager_math import press_policies

    if config.decks not in PRESSABLE.paytable_by_decks:
        return None
    chart = press_chart(config.decks, config.rules)
    trilux = par_sheet(PRESSABLE.id, config.decks, config.side_wagers[PRESSABLE.id])
    return {
        "decks": config.decks,
        "rules": config.rules.describe(),
        "cells": chart.cells_json(),
        "summary": chart.summary.to_json(),
        "policies": [p.to_json() for p in press_policies(chart, trilux)],
        "precision": "floating point (double precision) from the Blackjack analyser, not "
                     "exact fractions",
    }


def _base_game(config: TableConfig) -> dict[str, Any]:
    """``sidebet strategy --format json`` (total-dependent) for the table's rules, kept in
    the disk cache by rules and decks (the exact standard deviation costs seconds)."""
    from sidebet.native.diskcache import cached_json

    def build() -> dict[str, Any]:
        from sidebet.exact.blackjack import basic_strategy, house_edge

        data = basic_strategy(config.rules, config.decks).to_json()
        he = house_edge(config.decks, config.rules, "td")
        data["house_edge"] = {
            "player_ev": he.player_ev,
            "house_edge": he.house_edge,
            "std_dev": he.std_dev,
            "by_upcard": {name: {"probability": p, "player_ev": float(ev)}
                          for name, p, ev in he.by_upcard},
        }
        return data

    got: dict[str, Any] = cached_json("report-base-game",
                                      f"{config.rules!r} decks={config.decks}", build)
    return got


def _spec(config: TableConfig) -> Any:
    from sidebet.sim import SimSpec, resolve_sides

    return SimSpec(
        decks=config.decks,
        seats=1,
        sides=resolve_sides(list(config.side_wagers), config.decks, dict(config.side_wagers)),
        rules=config.rules,
        press="advice" if PRESSABLE.id in config.side_wagers else "none",
        penetration=Fraction(1, 52 * config.decks),
    )


def sim_command(config_path: str, config: TableConfig, rounds: int, seed: int) -> str:
    """The ``sidebet simulate`` command whose JSON the report's simulation is."""
    spec = _spec(config)
    sides = ",".join(w for w, _ in spec.sides)
    return (f"sidebet simulate --config {config_path} --side {sides} --press {spec.press} "
            f"--penetration {spec.penetration} --rounds {rounds} --seed {seed} --format json")


def convergence_points(rounds: int) -> list[int]:
    """Round counts at which the simulation's running figures are shown: 1, 2 and 5 times
    each power of ten from 1,000, and ``rounds`` itself.

    >>> convergence_points(60_000)
    [1000, 2000, 5000, 10000, 20000, 50000, 60000]
    """
    out = []
    power = 1000
    while power < rounds:
        out += [k * power for k in (1, 2, 5) if k * power < rounds]
        power *= 10
    return [*out, rounds]


def _comparisons(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Each exact figure against the simulation's estimate and its 95% interval."""
    out = []
    for w in result["side_wagers"]:
        out.append({"figure": f"{w['name']} return", "exact": w["exact_return"],
                    "simulated": w["return_per_unit"], "ci95": w["ci95"],
                    "within": w["exact_within_ci"]})
    bj = result["blackjack"]
    if bj is not None and "exact_return" in bj:
        base = bj["without_press"]
        out.append({"figure": "Blackjack return (no Press)", "exact": bj["exact_return"],
                    "simulated": base["return_per_unit"], "ci95": base["ci95"],
                    "within": bj["exact_within_ci"]})
    return out


def press_comparisons(press: dict[str, Any], sim_press: dict[str, Any] | None, side_bet: int
                      ) -> list[dict[str, Any]]:
    """The Press's exact figures under the exact advice against the simulation's, each on
    the simulation's own basis (docs/blackjack.md): the value per round (units per round,
    ``side_bet`` TriLux units a round) and the return per unit of winnings pressed (the
    simulation divides what the pressed chips won on every hand they reached by the
    winnings pressed, not by what doubles and splits add to them)."""
    if sim_press is None or not sim_press["pressed_rounds"]:
        return []
    optimal = next(p for p in press["policies"] if p["policy"] == "optimal")
    per_round = optimal["press_value"] * side_bet
    per_unit = optimal["return_per_unit_pressed"]
    out = []
    for figure, exact, simulated, (lo, hi) in (
            ("Press value per round (exact advice)", per_round,
             sim_press["value_per_round"], sim_press["value_per_round_ci95"]),
            ("Press return per unit of winnings pressed (exact advice)", per_unit,
             sim_press["return_per_unit_pressed"], sim_press["ci95"])):
        out.append({"figure": figure, "exact": exact, "simulated": simulated,
                    "ci95": [lo, hi], "within": lo <= exact <= hi})
    return out


def _simulation(config_path: str, config: TableConfig, rounds: int, seed: int,
                press: dict[str, Any] | None, progress: Progress | None = None
                ) -> dict[str, Any]:
    from sidebet.sim import simulate

    spec = _spec(config)
    runs = {}
    points = convergence_points(rounds)
    whole, before = sum(points), 0
    for n in points:
        def played(done: int, base: int = before) -> None:
            if progress is not None:
                progress("simulation", base + done, whole)

        data = simulate(spec, n, seed, with_exact=n == rounds, progress=played).to_json()
        before += n
        played(0)
        for key in TIMINGS:
            data.pop(key)
        runs[n] = data
    result = runs[rounds]
    comparisons = _comparisons(result)
    if press is not None:
        comparisons += press_comparisons(press, result["press"], spec.side_bet)
    return {
        "seed": seed,
        "rounds": rounds,
        "command": sim_command(config_path, config, rounds, seed),
        "one_round_per_shoe": True,
        "result": result,
        "comparisons": comparisons,
        "convergence": [
            {"rounds": n,
             "returns": {w["wager"]: {"mean": w["return_per_unit"], "ci95": w["ci95"]}
                         for w in data["side_wagers"]}
             | ({"blackjack": {"mean": data["blackjack"]["without_press"]["return_per_unit"],
                               "ci95": data["blackjack"]["without_press"]["ci95"]}}
                if data["blackjack"] is not None else {})}
            for n, data in runs.items()
        ],
    }


PENETRATIONS = (Fraction(1, 2), Fraction(3, 5), Fraction(7, 10), Fraction(4, 5),
                Fraction(9, 10))
"""Penetrations swept for the countermeasures (the table's own is added)."""


def _frac_text(value: Fraction) -> str:
    return f"{float(value):g}"


def table_counter_spec(config: TableConfig, wager_id: str) -> Any:
    """The counter simulation of ``wager_id`` at this table: its deck count, paytable,
    penetration and house rules (a :class:`sidebet.vuln.counter.CounterSpec`)."""
    from dataclasses import replace

    from sidebet.vuln.counter import counter_spec

    spec = counter_spec(wager_id, config.decks, config.side_wagers[wager_id],
                        penetration=config.rules.penetration)
    return replace(spec, sim=replace(spec.sim, rules=config.rules))


def _vuln_wager(config: TableConfig, config_path: str, wager_id: str, rounds: int, seed: int,
                context: dict[str, Any], progress: Progress | None = None) -> dict[str, Any]:
    """One wager's effects of removal (``sidebet eor``) and counter sweep over the
    penetration with a continuous shuffler (``sidebet vulnerability --sweep``), the rounds
    dealt under the table's own house rules and deck count."""
    from sidebet.report.money import counter_stakes, materiality
    from sidebet.vuln.eor import effects_of_removal
    from sidebet.vuln.summary import Money, sweep_json
    from sidebet.vuln.sweep import sweep

    paytable = config.side_wagers[wager_id]
    decks = config.decks
    table_pen = config.rules.penetration
    values = sorted({*PENETRATIONS, table_pen})
    eor = effects_of_removal(wager_id, decks, paytable)
    spec = table_counter_spec(config, wager_id)
    name = get_wager(wager_id).name
    whole = rounds * (len(values) + 1)
    stage = f"counting: {name}"

    def swept_rounds(done: int) -> None:
        if progress is not None:
            progress(stage, done, whole)

    swept_rounds(0)
    swept = sweep(spec, "penetration", tuple(float(v) for v in values), rounds, seed,
                  progress=swept_rounds)
    swept_rounds(whole)
    stakes = counter_stakes(config, wager_id)
    press = None
    if wager_id == PRESSABLE.id and context.get("press") is not None:
        from sidebet.vuln.press_counter import press_counter

        def press_step(part: str, done: int, of: int) -> None:
            if progress is not None:
                progress(f"counting: {name} with the Press, {part}", done, of)

        press = press_counter(spec, rounds, seed, progress=press_step).to_json()
    data = sweep_json(swept, Money(stakes.side_units, context["rounds_per_hour"]))
    for point in data["points"]:
        for key in TIMINGS:
            point.pop(key, None)
    pen_list = ",".join(_frac_text(v) for v in values)
    at_table = next(i for i, pt in enumerate(data["points"])
                    if pt["value"] is not None and abs(pt["value"] - float(table_pen)) < 1e-12)
    return {
        "wager": eor.wager,
        "name": get_wager(wager_id).name,
        "paytable": eor.paytable,
        "eor": eor.to_json(),
        "eor_command": f"sidebet eor {wager_id} --decks {decks} --paytable {paytable} "
                       "--format json",
        "sweep": data,
        "sweep_command": (
            f"sidebet vulnerability {wager_id} --decks {decks} --paytable {paytable} "
            f"--config {config_path} --penetration {table_pen} --rounds {rounds} "
            f"--seed {seed} --max-bet {stakes.side_units:g} "
            f"--rounds-per-hour {context['rounds_per_hour']:g} "
            f"--sweep penetration={pen_list} --format json"),
        "summary": _threat(data["points"], at_table),
        "stakes": stakes.to_json(),
        "materiality": materiality(data["points"][at_table], stakes,
                                   context["blackjack_edge"], press, context["edges"],
                                   context["rounds_per_hour"]),
    }


def _wins(row: dict[str, Any]) -> bool:
    """A counter (or perfect play) wins: its 95% interval of units won is above zero."""
    low = row["units_per_100_ci"][0]
    return low is not None and low > 0


def _threat(points: list[dict[str, Any]], at_table: int) -> dict[str, Any]:
    """Whether a count (and perfect play) wins at the table's setting, and the settings
    of the sweep at which none does."""
    table = points[at_table]
    rows = [r for r in table["rows"] if r["trigger"] is not None]
    best = max(rows, key=lambda r: r["units_per_100"] or 0.0, default=None)
    return {
        "at_table": at_table,
        "count_wins": any(_wins(r) for r in table["rows"]),
        "best_count": None if best is None else best["count"],
        "best_units_per_100": None if best is None else best["units_per_100"],
        "best_units_per_100_ci": None if best is None else best["units_per_100_ci"],
        "perfect_play_wins": _wins(table["perfect_play"]),
        "perfect_units_per_100": table["perfect_play"]["units_per_100"],
        "no_count_wins_at": [p["label"] for p in points
                             if not any(_wins(r) for r in p["rows"])],
        "perfect_play_fails_at": [p["label"] for p in points
                                  if not _wins(p["perfect_play"])],
    }


def _vulnerability(config: TableConfig, config_path: str, rounds: int, seed: int,
                   context: dict[str, Any], progress: Progress | None = None
                   ) -> dict[str, Any]:
    return {
        "rounds": rounds,
        "seed": seed,
        "house_rules": f"the counter simulations deal complete rounds under this table's house "
                       f"rules ({config.rules.describe()}) from its {config.decks}-deck shoe, "
                       "one seat, the counter at seat 1",
        "rules": config.rules.describe(),
        "decks": config.decks,
        "rounds_per_hour": context["rounds_per_hour"],
        "wagers": [_vuln_wager(config, config_path, w, rounds, seed, context, progress)
                   for w in WAGERS if w in config.side_wagers],
    }


Progress = Callable[[str, int, int], None]
"""Called with a stage's name, the work done in it and its whole (rounds, shoes; ``0, 0``
for a stage that reports no parts)."""


def _rng(config: TableConfig, shoes: int, seed: int,
         extra: dict[str, tuple[str, Any]] | None, progress: Progress | None = None
         ) -> dict[str, Any]:
    """The battery on every shuffle: the table engine's (seeded and live), the simulator's
    and those handed in (the server's, by the command line)."""
    from sidebet.report.rng import LEVEL, SHUFFLES, holm_failures, run_batteries

    sources = dict(SHUFFLES) | dict(extra or {})
    results = run_batteries(config.decks, shoes, seed, sources, None if progress is None else
                            lambda done, whole: progress(f"RNG battery ({shoes:,} shoes a shuffle)",
                                                         done, whole))
    batteries = []
    for name, result in zip(sources, results, strict=True):
        data = result.to_json() | {"shuffle": name}
        data["command"] = (None if name == "live" else
                           f"sidebet rng-test --shuffle {name} --shoes {shoes} "
                           f"--decks {config.decks} --seed {seed} --format json")
        batteries.append(data)
    made = sum(1 for b in batteries for t in b["tests"] if t["passed"] is not None)
    total = sum(len(b["tests"]) for b in batteries)
    failed = [f"{t['name']} ({b['shuffle']})" for b in batteries for t in b["tests"]
              if t["passed"] is False]
    p_values = [(f"{t['name']} ({b['shuffle']})", float(t["p_value"])) for b in batteries
                for t in b["tests"] if t["p_value"] is not None]
    family = holm_failures(p_values)
    if failed:
        chance = len(p_values) * float(1 - LEVEL)
        summary = (f"{made} of {total} tests run; failed at the 95% level: "
                   f"{', '.join(failed)} (by chance alone about {chance:.1f} of {made} "
                   f"fail at that level; held to 95% together, by Holm's correction, "
                   + (f"still failed: {', '.join(family)})" if family else
                      "none fails)"))
    elif made < total or any(b["passed"] is None for b in batteries):
        summary = (f"{made} of {total} tests run, none failed; not passed: the battery needs "
                   f"{batteries[0]['min_shoes']:,} shoes per shuffle and every test made")
    else:
        summary = f"{made} of {total} tests run, all passed"
    return {"shoes": shoes, "decks": config.decks, "seed": seed, "batteries": batteries,
            "tests_run": made, "tests_total": total, "failed": failed,
            "failed_holm": family,
            "passed": all(b["passed"] is True for b in batteries), "summary": summary}


def _document(path: Path, options: ReportOptions, seed: int, digest: str) -> dict[str, Any]:
    """Document control: when, what made it, from what; the id is the digest of the input,
    the version, the revision and the options."""
    import datetime

    revision = _revision()
    version = _version()
    key = "|".join([digest, version, revision, str(seed), str(options.revision),
                    str(options.rounds),
                    str(options.rng_shoes), str(options.vuln_rounds),
                    str(options.confirm_rounds), str(options.rounds_per_hour)])
    reduced = reduced_sizes(options)
    return {
        "id": "SBR-" + hashlib.sha256(key.encode()).hexdigest()[:16].upper(),
        "revision": options.revision,
        "prepared_by": options.prepared_by,
        "approved_by": options.approved_by,
        "reduced": reduced,
        "reduced_sections": sorted({r["section"] for r in reduced}),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "sidebet_version": version,
        "source_revision": revision,
        "modified_tree": revision.endswith("+dirty"),
        "versions": _versions(),
        "precision": "Exact: the PAR sheets' probabilities, house edges, variances, hit "
                     "frequencies, the largest win (fractions). Floating point (double "
                     "precision): the base game and the Press (the Blackjack analyser), the "
                     "hold distributions (FFT convolution, bound on the mass left out "
                     "stated), the normal approximation; simulated with a 95% interval: the "
                     "simulation, the confirmation, the counting figures.",
    }


def build_report(config_path: str | Path, options: ReportOptions,
                 progress: Progress | None = None,
                 shuffles: dict[str, tuple[str, Any]] | None = None) -> dict[str, Any]:
    """Every number of the report for the Rules Submission at ``config_path``;
    ``shuffles`` adds shuffles to the RNG battery (name: description, ``(decks, shoes,
    seed) -> orders``)."""
    from sidebet.regulation.liability import round_liability
    from sidebet.report.confirm import confirm
    from sidebet.report.money import attainable_liability, theoretical_win
    from sidebet.sim.runner import fresh_seed

    def step(what: str) -> None:
        if progress is not None:
            progress(what, 0, 0)

    path = Path(config_path)
    config = load_table_config(path)
    if min(options.rounds, options.rng_shoes, options.vuln_rounds, options.confirm_rounds,
           options.rounds_per_hour) < 1:
        raise SidebetError("the report needs at least 1 simulated round, 1 shoe and 1 round "
                           "per hour")
    flagged = config.paytable_flags()  # a custom paytable is reported, flagged
    broken = [v for v in config.violations() if v not in flagged]
    if broken:
        raise SidebetError(
            f"{path} breaks {len(broken)} rule(s), so no math report is made for it "
            f"(see sidebet check-table {path}): " + "; ".join(str(v) for v in broken))
    seed = fresh_seed() if options.seed is None else options.seed
    if seed < 0:
        raise SidebetError("the seed must not be negative")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    step("PAR sheets and hold distributions")
    wagers = [_wager(config, w) for w in WAGERS if w in config.side_wagers]
    step("the Press")
    press = _press(config)
    step("the base game")
    base = _base_game(config)
    bj_edge = base["house_edge"]["house_edge"]
    step("counting vulnerability")
    context = {"rounds_per_hour": options.rounds_per_hour, "blackjack_edge": bj_edge,
               "press": None if press is None else press["summary"],
               "edges": {w["wager"]: w["par"]["house_edge"] for w in wagers}}
    vuln = _vulnerability(config, str(config_path), options.vuln_rounds, seed, context,
                          progress)
    sim = _simulation(str(config_path), config, options.rounds, seed, press, progress)
    confirmation = confirm(config, options.confirm_rounds, seed, progress).to_json()
    rng = _rng(config, options.rng_shoes, seed, shuffles, progress)
    command = options.command or (
        f"sidebet report {config_path} -o report.html --rounds {options.rounds} "
        f"--rng-shoes {options.rng_shoes} --vuln-rounds {options.vuln_rounds} "
        f"--confirm-rounds {options.confirm_rounds} "
        f"--rounds-per-hour {options.rounds_per_hour} --seed {seed}")
    return {
        "format": FORMAT,
        "title": f"Game-math report: {config.name or path.name}",
        "document": _document(path, options, seed, digest),
        "table": _table(config),
        "compliance": _compliance(config, str(config_path)),
        "liability": round_liability(config).to_json() | {
            "attainable": attainable_liability(config)},
        "wagers": wagers,
        "press": press,
        "base_game": base,
        "theoretical_win": theoretical_win(config, wagers, press, bj_edge,
                                           options.rounds_per_hour),
        "vulnerability": vuln,
        "simulation": sim,
        "confirmation": confirmation,
        "rng": rng,
        "reproducibility": {
            "sidebet_version": _version(),
            "source_revision": _revision(),
            "input_file": str(config_path),
            "input_sha256": digest,
            "seed": seed,
            "simulation_rounds": options.rounds,
            "rng_shoes": options.rng_shoes,
            "vulnerability_rounds": options.vuln_rounds,
            "confirmation_rounds": options.confirm_rounds,
            "rounds_per_hour": options.rounds_per_hour,
            "command": command,
        },
    }
