"""The README's "From Python" example runs as printed, through the public facade."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_from_python_example_runs() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("## From Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    out = subprocess.run([sys.executable, "-c", code.group(1)], capture_output=True,
                         text=True, timeout=300, check=True).stdout.splitlines()
    assert out[0] == "3.2386%"
    assert out[1] == "4059/125333"
    assert re.fullmatch(r"-?\d+/\d+", out[2])
