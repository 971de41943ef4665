"""``sidebet simulate`` prints what ``tests/fixtures/simulate/`` holds, byte for byte but
for the elapsed time and the rate."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "simulate"
CONFIG = str(ROOT / "examples" / "table-6deck-custom-pays.toml")

CASES = {
    "default": ["--rounds", "2e4"],
    "seats3-advice": ["--rounds", "2e4", "--seats", "3", "--press", "advice"],
    "side-only-2decks": ["--rounds", "2e4", "--side-only", "--decks", "2"],
    "config-custom-pays": ["--rounds", "1e4", "--config", CONFIG],
    "press-rule-bets": ["--rounds", "1e4", "--press", "rule", "--side", "trilux", "--bet", "5",
                        "--side-bet", "2"],
    "json-2seats": ["--rounds", "1e4", "--seats", "2", "--format", "json"],
    "csv-2seats": ["--rounds", "1e4", "--seats", "2", "--format", "csv"],
}

_TIMING = re.compile(r"[0-9.]+ s, [0-9,]+ rounds/s")


def masked(text: str) -> str:
    """``text`` without the elapsed time and the rate: gone from a JSON document; in the
    tables' first paragraph (whose lines wrap where the figures' widths say) replaced,
    that paragraph's lines joined.  Everything after it is kept byte for byte."""
    if text.startswith("{"):
        data = json.loads(text)
        for key in ("elapsed_s", "rounds_per_s"):
            assert isinstance(data.pop(key), float)
        return json.dumps(data, indent=2, ensure_ascii=False)
    head, sep, rest = text.partition("Return per unit bet")
    if not sep:
        return text
    joined, n = _TIMING.subn("(time)", " ".join(head.split()))
    assert n == 1, head
    return joined + "\n" + sep + rest


@pytest.mark.parametrize("name", CASES)
def test_simulate_prints_what_it_printed(name: str) -> None:
    # two threads, as when the fixtures were written: the JSON and CSV report the chunk
    # size, which the threads decide (by default one per idle core: the machine's load)
    got = CliRunner().invoke(app, ["simulate", "--seed", "1", "--no-progress", "--threads", "2",
                                   *CASES[name]])
    assert got.exit_code == 0, got.output
    want = (FIXTURES / f"{name}.txt").read_text(encoding="utf-8")
    assert masked(got.stdout) == masked(want)
