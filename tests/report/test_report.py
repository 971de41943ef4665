"""The game-math report: every number on the page equals the report's JSON, which equals each
command's own JSON; the derived figures follow from the PAR sheets; the HTML opens in
Chromium without a console error; the PDF renders with one page per section start.

The report is generated once (a real ``sidebet report`` process, small simulation and RNG
sample) and shared by the tests of this module.
"""

from __future__ import annotations

import io
import json
import math
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from scipy import stats
from typer.testing import CliRunner

from sidebet.cli.main import app
from sidebet.report.build import TIMINGS

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "table-6deck.toml"
SEED = 11
ROUNDS = 20_000
SHOES = 300
VULN_ROUNDS = 20_000
runner = CliRunner()


def _chromium() -> str:
    exe = shutil.which("chromium")
    assert exe, "these tests need Debian's Chromium: run scripts/ensure-chromium.sh"
    return exe


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    _chromium()
    out = tmp_path_factory.mktemp("report")
    html, pdf, data = out / "report.html", out / "report.pdf", out / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "sidebet", "report", str(CONFIG), "-o", str(html), "--pdf",
         str(pdf), "--json", str(data), "--rounds", str(ROUNDS), "--rng-shoes", str(SHOES),
         "--vuln-rounds", str(VULN_ROUNDS), "--confirm-rounds", str(ROUNDS), "--seed",
         str(SEED), "--quiet"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return {"html": html, "pdf": pdf, "data": json.loads(data.read_text()),
            "text": html.read_text()}


class _Numbers(HTMLParser):
    """Collects every ``span.n`` (key, kind, value, text) and the section headings, and
    those of sections that follow on in print (``section.flow``)."""

    def __init__(self) -> None:
        super().__init__()
        self.numbers: list[tuple[str, str, Any, str]] = []
        self.headings: list[str] = []
        self.flowing: set[str] = set()
        self._open: dict[str, str] | None = None
        self._text = ""
        self._h2 = False
        self._flow = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "section":
            self._flow = "flow" in a.get("class", "").split()
        if tag == "span" and a.get("class") == "n":
            self._open, self._text = a, ""
        if tag in ("h1", "h2"):
            self._h2, self._text = True, ""

    def handle_data(self, data: str) -> None:
        if self._open is not None or self._h2:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self._open is not None:
            a = self._open
            self.numbers.append((a["data-key"], a["data-kind"], json.loads(a["data-value"]),
                                 self._text))
            self._open = None
        if tag in ("h1", "h2") and self._h2:
            self.headings.append(self._text.strip())
            if self._flow:
                self.flowing.add(self._text.strip())
            self._h2 = False


def _at(data: Any, key: str) -> Any:
    for part in key.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def _shown(kind: str, text: str) -> tuple[float, float]:
    """The number a cell shows (N of "1 in N") and half its last digit."""
    clean = text.removeprefix("1 in ").replace(",", "").rstrip("%")
    decimals = len(clean.split(".")[1]) if "." in clean else 0
    scale = 100 if kind.startswith("pct") else 1
    return float(clean) / scale, 0.5 * 10.0**-decimals / scale


@pytest.mark.browser
@pytest.mark.slow
def test_every_number_on_the_page_is_the_reports_json(made: dict[str, Any]) -> None:
    parser = _Numbers()
    parser.feed(made["text"])
    assert len(parser.numbers) > 300
    keys = set()
    for key, kind, value, text in parser.numbers:
        assert _at(made["data"], key) == value, key
        shown, half = _shown(kind, text)
        if kind == "onein":  # "1 in N": N is 1/value
            value = 1 / value
        assert abs(shown - value) <= half * 1.0001, (key, text, value)
        keys.add(key)
    # the headline figures of every wager are among them
    for i, _ in enumerate(made["data"]["wagers"]):
        for field in ("house_edge", "hit_frequency", "std_dev", "total_combinations"):
            assert f"wagers.{i}.par.{field}" in keys


def _cli_json(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.browser
@pytest.mark.slow
def test_par_sheets_equal_sidebet_par(made: dict[str, Any]) -> None:
    for w in made["data"]["wagers"]:
        assert w["par"] == _cli_json("par", w["wager"], "--decks", "6", "--paytable",
                                     w["paytable"], "--format", "json")


@pytest.mark.browser
@pytest.mark.slow
def test_compliance_equals_check_table(made: dict[str, Any]) -> None:
    cli = _cli_json("check-table", str(CONFIG), "--format", "json")
    ours = made["data"]["compliance"]
    assert (ours["compliant"], ours["violations"]) == (cli["compliant"], cli["violations"])


@pytest.mark.browser
@pytest.mark.slow
def test_base_game_equals_sidebet_strategy(made: dict[str, Any]) -> None:
    # the example table's rules are the defaults of `sidebet strategy`
    assert made["data"]["base_game"] == _cli_json("strategy", "--decks", "6", "--sd", "--format",
                                                  "json")


@pytest.mark.browser
@pytest.mark.slow
def test_press_equals_sidebet_press(made: dict[str, Any]) -> None:
    cli = _cli_json("press", "--decks", "6", "--format", "json")
    press = made["data"]["press"]
    assert press["cells"] == cli["cells"] and press["rules"] == cli["rules"]
    summary = next(s for s in cli["summary"] if s["decks"] == 6)
    summary.pop("optimal_per_blackjack_unit")
    assert press["summary"] == summary


@pytest.mark.browser
@pytest.mark.slow
def _compliant(cli: dict[str, Any]) -> dict[str, Any]:
    """A command's JSON less its ``violations`` (a custom paytable's flags), which the
    example table, on the paytables the regulation lists, does not have."""
    assert cli.pop("violations", []) == []
    return cli


def test_simulation_equals_sidebet_simulate(made: dict[str, Any]) -> None:
    sim = made["data"]["simulation"]
    args = sim["command"].split()[1:]
    assert args[args.index("--seed") + 1] == str(SEED)
    cli = _compliant(_cli_json(*args, "--no-progress"))
    for key in TIMINGS:
        cli.pop(key)
    assert sim["result"] == cli
    assert sim["convergence"][-1]["rounds"] == ROUNDS
    for c in sim["comparisons"]:
        assert c["within"] == (c["ci95"][0] <= c["exact"] <= c["ci95"][1])


@pytest.mark.browser
@pytest.mark.slow
def test_rng_section_equals_sidebet_rng_test(made: dict[str, Any]) -> None:
    rng = made["data"]["rng"]
    assert [b["shuffle"] for b in rng["batteries"]] == ["table", "live", "simulator", "server"]
    for b in rng["batteries"]:
        assert b["shoes"] == SHOES
        if b["command"] is None:  # the live shuffle is not reproducible
            continue
        ours = {k: v for k, v in b.items() if k not in ("shuffle", "command")}
        assert ours == _cli_json(*b["command"].split()[1:])
    # 300 shoes are below the battery's minimum: the report never calls it passed
    assert rng["passed"] is False and "all passed" not in rng["summary"]
    assert "all passed" not in made["text"].split('id="configuration"')[0]


@pytest.mark.browser
@pytest.mark.slow
def test_vulnerability_equals_sidebet_eor_and_vulnerability(made: dict[str, Any]) -> None:
    vuln = made["data"]["vulnerability"]
    assert [v["wager"] for v in vuln["wagers"]] == [w["wager"] for w in made["data"]["wagers"]]
    for v in vuln["wagers"]:
        assert v["eor"] == _compliant(_cli_json(*v["eor_command"].split()[1:]))
        args = v["sweep_command"].split()[1:]
        assert args[args.index("--seed") + 1] == str(SEED)
        assert args[args.index("--rounds") + 1] == str(VULN_ROUNDS)
        cli = _compliant(_cli_json(*args, "--no-progress"))
        for point in cli["points"]:
            for key in TIMINGS:
                point.pop(key, None)
        assert v["sweep"] == cli
        # the summary follows from the sweep: a count wins when its interval is above zero
        summary = v["summary"]
        table = v["sweep"]["points"][summary["at_table"]]
        assert table["penetration"] == pytest.approx(0.75)
        assert summary["count_wins"] == any(r["units_per_100_ci"][0] > 0 for r in table["rows"])
        assert "continuous shuffler" in summary["no_count_wins_at"]
        assert v["sweep"]["points"][-1]["label"] == "continuous shuffler"
        assert summary["perfect_play_fails_at"] == [
            p["label"] for p in v["sweep"]["points"]
            if not p["perfect_play"]["units_per_100_ci"][0] > 0]


@pytest.mark.browser
@pytest.mark.slow
def test_limits_liability_and_theoretical_win(made: dict[str, Any]) -> None:
    data = made["data"]
    cli = _cli_json("check-table", str(CONFIG), "--format", "json", "--attainable")
    assert data["liability"] == cli["liability"]
    rows = {r["wager"]: r for r in data["theoretical_win"]["rows"]}
    bj = rows["blackjack"]
    edge = data["base_game"]["house_edge"]["house_edge"]
    assert bj["per_hour_at_max"] == f"{edge * 1000 * 80:.2f}"
    assert {"trilux+press", "blazing7s"} <= set(rows)
    assert "H17" not in data["vulnerability"]["house_rules"]
    assert data["table"]["rules"] in data["vulnerability"]["house_rules"]


@pytest.mark.browser
@pytest.mark.slow
def test_derived_figures_follow_from_the_par_sheets(made: dict[str, Any]) -> None:
    for w in made["data"]["wagers"]:
        par = w["par"]
        for vi in w["volatility_index"]:
            z = stats.norm.ppf((1 + vi["confidence"]) / 2)
            assert vi["value"] == pytest.approx(z * par["std_dev"], rel=1e-12)
        assert len(w["hold_ranges"]) == 15
        assert w["hold_ranges"][-1]["wagers"] == par["total_combinations"]  # the cycle
        top = max(o["pays"] for o in par["outcomes"] if o["combinations"])
        for h in w["hold_ranges"]:
            z = stats.norm.ppf((1 + h["confidence"]) / 2)
            half = z * par["std_dev"] / math.sqrt(h["wagers"])
            assert -top <= h["low"] <= h["high"] <= 1.0 and h["covered"] >= h["confidence"]
            band = h["normal"] or h["normal_rejected"]
            assert band["low"] == pytest.approx(par["house_edge"] - half, rel=1e-12)
            assert band["high"] == pytest.approx(par["house_edge"] + half, rel=1e-12)
            if h["normal"] is not None:
                assert -top <= band["low"] and band["high"] <= 1.0
        best = max(o["pays"] for o in par["outcomes"] if o["pays"] > 0 and o["combinations"])
        win = w["largest_win"]
        assert win["pays"] == best
        assert win["probability"] == pytest.approx(sum(
            o["probability"] for o in par["outcomes"] if o["pays"] == best), rel=1e-12)
    press = made["data"]["press"]
    trilux = next(w for w in made["data"]["wagers"] if w["wager"] == "trilux")["par"]
    policies = {p["policy"]: p for p in press["policies"]}
    for name in ("optimal", "always", "never"):
        p = policies[name]
        assert p["press_value"] == press["summary"][name]
        assert p["house_edge"] == pytest.approx(-(trilux["expected_return"] + p["press_value"]))
        assert p["element_of_risk"] == pytest.approx(p["house_edge"] / (1 + p["expected_pressed"]))
        assert p["element_of_risk"] == pytest.approx(press["summary"]["element_of_risk"][name])
    # the Press adds money at risk: pressing right lowers the edge per unit at risk further
    assert policies["never"]["element_of_risk"] == policies["never"]["house_edge"]
    assert policies["optimal"]["element_of_risk"] < policies["optimal"]["house_edge"]
    assert policies["optimal"]["house_edge"] < policies["always"]["house_edge"] < policies[
        "never"]["house_edge"]


@pytest.mark.browser
@pytest.mark.slow
def test_reproducibility_section(made: dict[str, Any]) -> None:
    import hashlib

    rep = made["data"]["reproducibility"]
    assert rep["input_sha256"] == hashlib.sha256(CONFIG.read_bytes()).hexdigest()
    assert rep["seed"] == SEED and rep["simulation_rounds"] == ROUNDS
    assert f"--seed {SEED}" in rep["command"] and rep["command"].startswith("sidebet report")
    assert re.fullmatch(r"[0-9a-f]{40}(\+dirty)?|unknown.*", rep["source_revision"])
    doc = made["data"]["document"]
    assert re.fullmatch(r"SBR-[0-9A-F]{16}", doc["id"]) and doc["id"] in made["text"]
    assert doc["modified_tree"] == rep["source_revision"].endswith("+dirty")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", doc["date"])
    assert {"python", "numpy", "numba", "chromium"} <= set(doc["versions"])
    assert doc["versions"]["chromium"].startswith("Chromium")
    # document control: revision, prepared/approved lines to sign, every run size
    assert doc["revision"] == 1 and doc["prepared_by"] == doc["approved_by"] == ""
    assert f"--vuln-rounds {VULN_ROUNDS}" in rep["command"]
    assert rep["vulnerability_rounds"] == VULN_ROUNDS
    text = made["text"]
    assert "Approved by" in text and "Prepared by" in text and "Counting rounds" in text
    # a reduced run says so on page 1 and beside what it weakens
    assert {r["option"] for r in doc["reduced"]} == {"--rounds", "--vuln-rounds",
                                                     "--confirm-rounds", "--rng-shoes"}
    assert text.count("Reduced run, not for submission") >= 5
    assert text.count("(reduced run, not for submission)") >= 5


@pytest.mark.browser
@pytest.mark.slow
def test_html_is_self_contained(made: dict[str, Any]) -> None:
    text = made["text"]
    assert "<script" not in text and "<link" not in text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)
    assert text.count("<svg") >= 2 * len(made["data"]["wagers"]) + 3


@pytest.mark.browser
@pytest.mark.slow
def test_html_opens_in_chromium_without_console_errors(made: dict[str, Any],
                                                       tmp_path: Path) -> None:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(made["html"].as_uri(), wait_until="load")
            headings = page.locator("h2").all_inner_texts()
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert errors == []
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    assert "Configuration and compliance" in headings and "RNG" in headings
    with Image.open(shot) as image:
        width, height = image.size
        colours = image.convert("RGB").resize((200, 600)).getcolors(maxcolors=1 << 20)
    assert width >= 1000 and height > 10 * 900  # the whole report, not an empty page
    assert colours is not None and len(colours) > 50  # plots and tables, not a blank page


@pytest.mark.browser
@pytest.mark.slow
def test_pdf_renders_with_one_page_per_section_start(made: dict[str, Any],
                                                     tmp_path: Path) -> None:
    """Each section's heading is the first line of a page, but a wager's, which follows
    on from the section before and is never a page's last line; every page numbered."""
    pdftoppm = shutil.which("pdftoppm")
    assert pdftoppm, "pdftoppm (poppler-utils) is needed: run scripts/ensure-chromium.sh"
    done = subprocess.run([pdftoppm, "-r", "30", "-png", str(made["pdf"]), str(tmp_path / "p")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    pages = sorted(tmp_path.glob("p-*.png"))
    parser = _Numbers()
    parser.feed(made["text"])
    sections = parser.headings
    assert len(pages) >= len(sections)
    assert len(parser.flowing) == len(made["data"]["wagers"]) > 0
    tops, bottoms = [], []
    for k in range(1, len(pages) + 1):
        text = subprocess.run(["pdftotext", "-f", str(k), "-l", str(k), "-layout",
                               str(made["pdf"]), "-"], capture_output=True, text=True,
                              check=True).stdout
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        tops.append(lines[0] if lines else "")
        bottoms.append(lines[-2] if len(lines) > 1 else "")  # the last is the footer
    for heading in sections:
        if heading in parser.flowing:
            assert not any(b.startswith(heading[:40]) for b in bottoms), (heading, bottoms)
        else:
            assert any(top.startswith(heading[:40]) for top in tops), (heading, tops)
    # every page is numbered and carries the document id
    doc_id = made["data"]["document"]["id"]
    for k in range(1, len(pages) + 1):
        text = subprocess.run(["pdftotext", "-f", str(k), "-l", str(k), str(made["pdf"]), "-"],
                              capture_output=True, text=True, check=True).stdout
        assert f"Page {k} of {len(pages)}" in text and doc_id in text


def test_help_imports_no_plotting_or_statistics() -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "sidebet", "report",
                           "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0
    loaded = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert not {"matplotlib", "jinja2"} & loaded
    if "numba" not in loaded:  # numba itself imports scipy; the commands' lazy imports do not
        assert "scipy" not in loaded


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["/nonexistent.toml"], "cannot read"),
        ([str(CONFIG), "--rounds", "0"], "--rounds must be a whole number from 1 to"),
        ([str(CONFIG), "--rng-shoes", "many"], "--rng-shoes must be a whole number"),
        ([str(CONFIG), "-o", "/"], "is a folder"),
        ([str(CONFIG), "-o", "/nonexistent-folder/report.html"],
         "the folder /nonexistent-folder does not exist"),
        ([str(CONFIG), "--json", "/nonexistent-folder/r.json"], "does not exist"),
        ([str(CONFIG), "--format", "csv", "-o", "r.csv"], "goes to standard output"),
        ([str(CONFIG), "--seed", "-4", "--rounds", "10", "--rng-shoes", "1"],
         "seed must not be negative"),
        ([str(ROOT / "examples" / "table-2deck-bad.toml")],
         "breaks 3 rule(s), so no math report is made for it"),
    ],
)
def test_report_bad_input_exits_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["report", *args, "--quiet"])
    assert result.exit_code == 2, result.output
    assert message in result.output


def _csv_sections(text: str) -> dict[str, list[dict[str, str]]]:
    """The sections of ``sidebet report --format csv``: ``# name``, a header row, rows."""
    import csv

    out = {}
    for block in text.strip().split("\n\n"):
        name, _, body = block.partition("\n")
        assert name.startswith("# ")
        out[name[2:]] = list(csv.DictReader(io.StringIO(body)))
    return out


def _check_exports(data: dict[str, Any]) -> None:
    from openpyxl import load_workbook

    from sidebet.cli.export import MONEY_FORMAT, sections_csv, xlsx_bytes
    from sidebet.cli.report_cmds import PAR_LINES, report_tables

    tables, formats = report_tables(data)
    text = sections_csv(tables)
    assert text.startswith(f"# {PAR_LINES}\n")
    got = _csv_sections(text)
    lines = [(w["wager"], o) for w in data["wagers"] for o in w["par"]["outcomes"]]
    csv_lines = got[PAR_LINES]
    assert len(csv_lines) == len(lines)
    for row, (wager, o) in zip(csv_lines, lines, strict=True):
        assert row["wager"] == wager and row["outcome"] == o["outcome"]
        assert int(row["pays"]) == o["pays"] and int(row["combinations"]) == o["combinations"]
        assert float(row["probability"]) == o["probability"]
    book = load_workbook(io.BytesIO(xlsx_bytes(tables, formats)))
    sheet = book.worksheets[0]
    head = [c.value for c in sheet[1]]
    for row, (wager, o) in zip(sheet.iter_rows(min_row=2, values_only=True), lines,
                               strict=True):
        cells = dict(zip(head, row, strict=True))
        assert cells["wager"] == wager and cells["pays"] == o["pays"]
        # a workbook keeps 15 to 16 significant digits, as Excel does
        assert cells["probability"] == pytest.approx(o["probability"], rel=1e-14)
    money_cells = 0
    for ws in book.worksheets:
        for row in ws.iter_rows(min_row=2):
            for cell in row:
                # money is a number (card labels such as "2" stay labels)
                assert not (isinstance(cell.value, str)
                            and re.fullmatch(r"-?\d+\.\d\d", cell.value)), (
                    ws.title, cell.coordinate, cell.value)
                if cell.number_format == MONEY_FORMAT:
                    assert isinstance(cell.value, int | float)
                    money_cells += 1
    if data.get("liability", {}).get("per_round"):
        assert money_cells > 0
        liab = next(t for t in tables if t.name == "report")
        col = liab.columns.index("liability_per_round")
        assert liab.rows[0][col] == float(data["liability"]["per_round"])


def test_exports_read_back_equal_the_json_on_a_small_document() -> None:
    data = {"title": "t", "liability": {"per_round": "1000000.00", "per_seat": None},
            "wagers": [{"wager": "top3", "name": "Top 3", "paytable": "A", "par": {"outcomes": [
                {"outcome": "three_of_a_kind", "pays": 90, "combinations": 12,
                 "probability": 0.25, "return": 0.5, "citation": "§ 633c.7(e)"},
                {"outcome": "lose", "pays": -1, "combinations": 36, "probability": 0.75,
                 "return": -0.75, "citation": ""}]}}],
            "theoretical_win": {"rows": [{"wager": "top3", "min_bet": "5.00",
                                          "per_hour_at_min": "1234.56"}]}}
    _check_exports(data)


@pytest.mark.browser
@pytest.mark.slow
def test_exports_read_back_equal_the_json(made: dict[str, Any]) -> None:
    _check_exports(made["data"])
