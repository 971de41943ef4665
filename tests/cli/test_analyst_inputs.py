"""The analyst's inputs answered plainly: a Rules Submission that offers nothing, the
counts ``--count`` takes, one minimum for ``--samples``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sidebet.cli.main import app

runner = CliRunner()


@pytest.mark.parametrize("text", ["", "decks = 6\n", "[rules]\nlate_surrender = false\n"])
def test_a_submission_without_side_wagers_says_what_is_missing(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(text)
    result = runner.invoke(app, ["check-table", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["offers"] == ["blackjack"]
    assert data["missing"][0].startswith("no side wager is offered: add [side_wagers.NAME]")
    words = runner.invoke(app, ["check-table", str(path)], terminal_width=200).stdout
    assert "compliant for Blackjack alone" in words and "[side_wagers.NAME]" in words


def test_count_error_lists_what_help_lists() -> None:
    helped = runner.invoke(app, ["vulnerability", "--help"], terminal_width=400).stdout
    result = runner.invoke(app, ["vulnerability", "trilux", "--count", "nope"])
    assert result.exit_code == 2
    listed = re.search(r"\(counts: (.*)\)$", result.stderr.strip())
    assert listed is not None
    names = re.findall(r"(?:linear(?:-[\w-]+)?|suits|ranks|sevens)", listed.group(1))
    flat = " ".join(helped.split())
    assert names and all(name in flat for name in names)


def test_samples_has_one_minimum() -> None:
    answers = {runner.invoke(app, ["vulnerability", "trilux", "--cards-left", "100",
                                   "--samples", n]).stderr for n in ("0", "1")}
    assert len(answers) == 2 and all("from 2 to" in a for a in answers)
