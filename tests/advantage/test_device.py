"""A counter's rounds on a CUDA device (``sim/device.py``'s counter kernel), checked where no
GPU is: on numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, in subprocesses) the
device's sums equal the CPU kernel's shoe by shoe, for several shoes and for a chunk cut
inside a shoe (true and running counts, side wagers by count, by EV and flat, none, and
shoes that run out; spots by count, cover, burn cards, a cut card spread and an ace side
count); ``advantage --device gpu`` reports what ``--device cpu`` does; without a
device ``--device gpu`` says so in one line (exit 2) and ``--device auto`` plays on the
CPU."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests import device_check as dc

HERE = Path(__file__).resolve().parent
TIMING = ("elapsed_s", "rounds_per_s", "rounds_per_hour_run", "workers")


@pytest.mark.slow
def test_the_device_kernel_counts_bets_and_books_the_cpus_shoes_exactly() -> None:
    lines = dc.device_lines(HERE / "device_compare.py", 5)
    for line in lines:
        assert line["bet"] > 0 and line["traced"] > 0, line
    assert [line["side_bets"] > 0 for line in lines] == [True, True, False, True, True]
    assert [line["traced"] for line in lines[:2] + lines[3:]] == [50, 50, 50, 50]


def advantage(device: str, *args: str, **env: str) -> dc.Done:
    options = list(args) or ["--spots", "2", "--ramp", "1-8", "--side", "blazing7s=flat"]
    return dc.run(["-m", "sidebet", "advantage", "--rounds", "120", *options, "--seed", "7",
                "--format", "json", "--no-progress", "--device", device], **env)


def results(done: dc.Done) -> dict[str, object]:
    data = dc.report(done, TIMING)
    if "games" in data:  # --compare: each game's report less its timings
        for game in data["reports"]:
            game["report"] = {k: v for k, v in game["report"].items() if k not in TIMING}
        data["games"] = [{k: v for k, v in g.items() if k not in TIMING}
                         for g in data["games"]]
    return data


@pytest.mark.slow
def test_advantage_on_the_device_reports_what_the_cpu_does() -> None:
    dc.assert_device_reports_the_cpus(advantage, results)


def test_without_a_device_gpu_is_one_line_and_auto_plays_on_the_cpu() -> None:
    if dc.has_device():
        pytest.skip("this machine has a CUDA device")
    dc.assert_no_device_is_one_line(advantage, results)


@pytest.mark.slow
def test_surveils_plays_and_compare_on_the_device_report_what_the_cpu_does(
        tmp_path: Path) -> None:
    """Spots by count, cover, burn cards, a cut card spread and an ace side count, alone
    and in ``--compare``, on the device (numba's CUDA simulator) as on the CPU."""
    plays = ["--spots-by", "1:2", "--cover", "jump:2,parlay", "--burn", "2", "--cut-spread",
             "26", "--ace-bet", "2", "--ace-insurance", "-1"]
    a = tmp_path / "deep.toml"
    a.write_text('penetration = 0.83\nburn = 1\ncut_spread = 20\n[bet]\nramp = "1-12"\n'
                 'cover = "jump:2"\n')
    b = tmp_path / "spots.toml"
    b.write_text('spots = 2\nspots_by = "2:2"\n[count]\nace_bet = 1\n[bet]\nramp = "1-8"\n')
    for args in (plays, ["--compare", str(a), "--compare", str(b)]):
        dc.assert_device_reports_the_cpus(advantage, results, *args)
