"""The report as one self-contained HTML file (styles and SVG plots inline) and as PDF.

The HTML is rendered by Jinja2 from the report's data only.  Every number is written by one
of the filters below as ``<span class="n" data-key="wagers.0.par.house_edge"
data-value="0.2325...">23.2521%</span>``: ``data-key`` is the number's path in the report's
JSON and ``data-value`` its value there, so a test can check every number on the page
against the JSON, and the JSON against each command's own ``--format json``.

The PDF is Chromium's print of the same HTML (``chromium --headless --print-to-pdf``);
each section starts a page (CSS ``break-before: page``).  ``scripts/ensure-chromium.sh``
installs Debian's Chromium; ``SIDEBET_CHROMIUM`` names another executable.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

from sidebet.core.errors import SidebetError

__all__ = ["Node", "chromium_path", "render_html", "write_pdf"]


class Node:
    """A value of the report's data together with its path (``wagers.0.par.house_edge``)."""

    __slots__ = ("path", "v")

    def __init__(self, value: Any, path: str = "") -> None:
        self.v = value
        self.path = path

    def _child(self, key: str | int) -> Node:
        return Node(self.v[key], f"{self.path}.{key}" if self.path else str(key))

    def __getattr__(self, name: str) -> Node:
        if name.startswith("__") or not isinstance(self.v, dict) or name not in self.v:
            raise AttributeError(name)
        return self._child(name)

    def __getitem__(self, key: str | int) -> Node:
        return self._child(key)

    def __iter__(self) -> Iterator[Node]:
        if isinstance(self.v, dict):
            return (self._child(k) for k in self.v)
        return (self._child(i) for i in range(len(self.v)))

    def __len__(self) -> int:
        return len(self.v)

    def __bool__(self) -> bool:
        return bool(self.v)

    def __str__(self) -> str:
        return str(self.v)


def _span(node: Node, text: str, kind: str) -> Any:
    from markupsafe import Markup, escape

    return Markup(
        f'<span class="n" data-key="{escape(node.path)}" data-kind="{kind}" '
        f"data-value=\"{escape(json.dumps(node.v))}\">{escape(text)}</span>"
    )


def _fixed(value: float, spec: str, sign: bool) -> str:
    """``value`` formatted by ``spec`` (``",.3f"``, ``".2%"``), ``+`` before a positive
    number when ``sign``; a value that rounds to zero is a plain zero, never ``-0.000``.

    >>> _fixed(-0.0001, ",.3f", True), _fixed(-0.00001, ".2%", False), _fixed(0.25, ",.3f", True)
    ('0.000', '0.00%', '+0.250')
    """
    text = f"{value:z{spec}}"
    if sign and text.lstrip("0.,%") != "" and not text.startswith("-"):
        return "+" + text
    return text


def pct(node: Node, digits: int = 4, sign: bool = False) -> Any:
    """A fraction of 1 as a percentage."""
    return _span(node, _fixed(node.v, f".{digits}%", sign), f"pct{digits}")


def num(node: Node, digits: int = 4, sign: bool = False) -> Any:
    """A number with ``digits`` decimals (thousands separated)."""
    return _span(node, _fixed(node.v, f",.{digits}f", sign), f"num{digits}")


def count(node: Node) -> Any:
    """A whole number, thousands separated."""
    return _span(node, f"{node.v:,}", "int")


def one_in(node: Node) -> Any:
    """A probability as "1 in N"."""
    text = f"1 in {1 / node.v:,.1f}" if node.v else "never"
    return _span(node, text, "onein")


def money(value: Any, missing: str = "") -> str:
    """An amount of money (a decimal string, or a :class:`Node` of one) with thousands
    separated; ``missing`` where there is none.

    >>> money("1000000.00"), money(None, "none"), money("-2500.50")
    ('1,000,000.00', 'none', '-2,500.50')
    """
    from decimal import Decimal

    raw = value.v if isinstance(value, Node) else value
    return missing if raw is None or raw == "" else f"{Decimal(str(raw)):,.2f}"


def _template() -> Any:
    from jinja2 import Environment, StrictUndefined

    env = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True)
    env.filters.update(pct=pct, num=num, count=count, one_in=one_in, money=money)
    source = resources.files("sidebet.report").joinpath("report.html.j2").read_text("utf-8")
    return env.from_string(source)


def render_html(data: dict[str, Any]) -> str:
    """The whole report as HTML text (self-contained: no link, script or font to fetch)."""
    from markupsafe import Markup

    from sidebet.report import plots

    exact = {w["wager"]: w["par"]["expected_return"] for w in data["wagers"]}
    if data["base_game"] is not None:
        exact["blackjack"] = data["base_game"]["house_edge"]["player_ev"]
    names = {w["wager"]: w["name"] for w in data["wagers"]} | {"blackjack": "Blackjack"}
    svg: dict[str, Any] = {
        "wager": {w["wager"]: Markup(plots.wager_svg(w)) for w in data["wagers"]},
        "hold": {w["wager"]: Markup(plots.hold_svg(w)) for w in data["wagers"]},
        "convergence": Markup(plots.convergence_svg(data["simulation"], exact, names)),
        "press": Markup(plots.press_svg(data["press"])) if data["press"] else None,
        "strategy": Markup(plots.strategy_svg(data["base_game"])),
        "vulnerability": {v["wager"]: Markup(plots.vulnerability_svg(v))
                          for v in (data["vulnerability"] or {}).get("wagers", [])},
    }
    from sidebet.regulation.wagers import PRESSABLE

    text: str = _template().render(D=Node(data), raw=data, svg=svg, pressable=PRESSABLE.id)
    return text


def chromium_path() -> str:
    """The Chromium executable: ``$SIDEBET_CHROMIUM``, else ``chromium`` on the PATH."""
    found = os.environ.get("SIDEBET_CHROMIUM") or shutil.which("chromium") or shutil.which(
        "chromium-browser")
    if not found:
        raise SidebetError("--pdf needs Chromium: run scripts/ensure-chromium.sh (Debian's "
                           "chromium) or set SIDEBET_CHROMIUM")
    return found


def write_pdf(html: str, pdf: str | Path) -> None:
    """Print ``html`` to ``pdf`` with headless Chromium (one page per section start)."""
    exe = chromium_path()
    target = Path(pdf).resolve()
    with tempfile.TemporaryDirectory(prefix="sidebet-report-") as tmp:
        page = Path(tmp) / "report.html"
        page.write_text(html, encoding="utf-8")
        out = Path(tmp) / "report.pdf"
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-dev-shm-usage", f"--user-data-dir={tmp}/profile",
               "--no-pdf-header-footer", f"--print-to-pdf={out}", page.as_uri()]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SidebetError(f"Chromium could not print the PDF: {exc}") from None
        if done.returncode != 0 or not out.exists() or out.stat().st_size == 0:
            tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
            raise SidebetError(f"Chromium could not print the PDF ({tail[0]})")
        try:
            shutil.copyfile(out, target)
        except OSError as exc:
            raise SidebetError(f"cannot write {pdf}: {exc.strerror or exc}") from None
