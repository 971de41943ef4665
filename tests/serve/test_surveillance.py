"""Surveillance of a live table against a real ``sidebet serve`` process:
a constructed play whose answer is known, the delay, and the refusals.

The table deals one deck, cut at half, offering Blazing 7's; each shoe is stacked so that
its first 13 cards hold no seven and the four sevens follow: the exact edge rises above 0
after about two rounds and falls far below once the sevens are out.  At seat 1 a perfect
player bets Blazing 7's exactly when its edge (computed here from the rounds' records, as
anyone who saw the cards could) is positive; at seat 2 a flat bettor bets it every round.
The server's surveillance must flag the first and not the second, and value every betting
decision at the edge this test computed.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from sidebet.serve.chain import EXPORT_FORMAT
from sidebet.surveil import AlarmRule, survey
from sidebet.surveil.edge import EdgeTracker
from sidebet.surveil.readers import round_from_event, rounds_from_log
from sidebet.vuln.side_ev import ev_tables

from .harness import Api, Server, database_url, finish_round, make_table
from .pages import Tab

"""Debian's Chromium under Playwright, as the web table's tests start it (a fixture)."""

DELAY = 2
"""The server's surveillance delay in these tests, seconds (the alarm is set loose too,
``alpha`` 0.2 for both tests, 0.1 each, within 50 decisions, so that a short play raises
it)."""
ROUNDS = 18
SHOE = "2c 3d 4h 5s 6c 8d 9h Ts Jc Qd Kh As 2d 3h 4s 5c 6d 8h 9s 7h 7d 7c 7s"
"""The first cards of every shoe: 19 without a seven, then the four sevens."""
TABLE = ('name = "surveillance: one deck"\ndecks = 1\n[rules]\npenetration = 0.5\n'
         '[side_wagers.blazing7s]\npaytable = "A"\n')


pytestmark = [pytest.mark.postgres, pytest.mark.skipif(
    bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
    reason="surveillance reads the log with one plain SELECT, as every other read does; the "
           "constructed play runs once, on SQLite (CI time)")]


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Any:
    env = {"SIDEBET_SURVEILLANCE_DELAY": str(DELAY), "SIDEBET_SURVEILLANCE_WARMUP": "2",
           "SIDEBET_SURVEILLANCE_ALPHA": "0.2", "SIDEBET_SURVEILLANCE_HORIZON": "50"}
    srv = Server(database_url(tmp_path_factory.mktemp("watch")), extra=["--test-stack"],
                 env=env).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def play(watched: Server) -> dict[str, Any]:
    """The constructed play: ``ROUNDS`` rounds, the perfect player's edges by game."""
    op = Api.operator(watched.url)
    t = make_table(op, TABLE, seats=2)
    perfect, flat = Api.player(watched.url, "perfect"), Api.player(watched.url, "flat")
    perfect.post(f"/api/tables/{t}/seats/1", expect=201)
    flat.post(f"/api/tables/{t}/seats/2", expect=201)
    cut = next(e["payload"]["cut"] for e in op.events(t) if e["kind"] == "shoe-commit")
    edges = EdgeTracker(1, {"blazing7s": "A"})
    values = ev_tables((("blazing7s", "A"),))
    stacked = {int(op.post(f"/api/tables/{t}/test-stack", {"cards": SHOE},
                           expect=201).json()["shoe"])}
    shoe, dealt = 0, 0
    by_game: dict[str, float] = {}
    for n in range(1, ROUNDS + 1):
        if dealt >= cut:  # the cut card came out: the next round deals from a new shoe
            shoe, dealt = shoe + 1, 0
        edge = float(values.expected_returns(edges.remaining(shoe))[0])
        game = f"T{t}-R{n}"
        by_game[game] = edge
        perfect.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        if edge > 0:
            perfect.act(t, 1, "bets", {"wager": "blazing7s", "amount": "5.00"})
        flat.act(t, 2, "bets", {"wager": "blackjack", "amount": "10.00"})
        flat.act(t, 2, "bets", {"wager": "blazing7s", "amount": "5.00"})
        perfect.act(t, 1, "deal")
        perfect.act(t, 1, "stand", expect=None)  # refused when insurance or a blackjack
        flat.act(t, 2, "stand", expect=None)     # comes first: then finish_round plays it
        finish_round({1: perfect, 2: flat}, t)
        rnd = round_from_event({"game": game, "record": op.get(f"/api/games/{game}")}, game)
        edges.remove(rnd)
        last = rnd.spans[-1]
        shoe, dealt = last.shoe, last.start + last.cards
        if shoe + 1 not in stacked:  # committed once this shoe dealt its first card
            stacked.add(int(op.post(f"/api/tables/{t}/test-stack", {"cards": SHOE},
                                    expect=201).json()["shoe"]))
    return {"table": t, "op": op, "perfect": perfect, "edges": by_game,
            "ended": time.monotonic()}


def test_the_delay_hides_the_newest_rounds_then_the_counter_is_flagged(
        play: dict[str, Any]) -> None:
    op: Api = play["op"]
    t = play["table"]
    early = op.get("/api/surveillance", table=t)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert early["delay_seconds"] == DELAY and early["as_of"] < now
    (table,) = early["tables"]
    assert table["rounds"] < ROUNDS  # the rounds of the last DELAY seconds are not shown
    assert table["last_round_at"] is None or table["last_round_at"] <= early["as_of"]
    time.sleep(max(0.0, play["ended"] + DELAY + 0.2 - time.monotonic()))
    report = op.get("/api/surveillance", table=t, decisions=1000)
    (table,) = report["tables"]
    assert table["rounds"] == ROUNDS and table["error"] is None
    assert [(a["player"], a["wager"]) for a in report["alarms"]] == [("perfect", "blazing7s")]
    stats = {p["player"]: p for p in table["players"] if p["wager"] == "blazing7s"}
    assert stats["perfect"]["alarm"] is not None and stats["flat"]["alarm"] is None
    assert stats["flat"]["placed"] == ROUNDS and stats["flat"]["correlation_float"] is None
    assert stats["perfect"]["correlation_float"] > 0.5
    assert 0 < stats["perfect"]["placed"] < ROUNDS
    assert float(stats["perfect"]["mean_edge_placed_float"]) > 0
    expected = sum(500 * e for e in play["edges"].values())  # the flat bettor's, in cents
    assert stats["flat"]["expected_float_cents"] == pytest.approx(expected, abs=0.01)
    # every betting decision valued at the exact edge of its moment, placed or not
    mine = [d for d in table["decisions"]
            if d["player"] == "perfect" and d["wager"] == "blazing7s"]
    assert len(mine) == ROUNDS
    for d in mine:
        assert d["edge_float"] == pytest.approx(play["edges"][d["game"]], abs=1e-12)
        assert d["placed"] == (play["edges"][d["game"]] > 0)
        assert d["bet"] == ("5.00" if d["placed"] else "0.00")
    # the same as `sidebet surveil` on the table's export, with the same alarm
    export = op.http.get(f"/api/tables/{t}/export").text.splitlines()
    offline = rounds_from_log(export, EXPORT_FORMAT)
    rule = AlarmRule(alpha=0.2, horizon=50, warmup=2)
    again = survey(offline.config.decks, offline.sides, offline.rounds, rule,
                   rules=offline.config.rules)
    assert table["players"] == again.to_json(decisions=False)["players"]
    # two players, each on the Blackjack wager and Blazing 7's, every round
    assert table["decisions"][-4 * ROUNDS:] == [d.to_json() for d in again.decisions]
    only = op.get("/api/surveillance", table=t, player="flat", decisions=5)
    assert {p["player"] for p in only["tables"][0]["players"]} == {"flat"}
    assert [d["player"] for d in only["tables"][0]["decisions"]] == ["flat"] * 5
    assert only["alarms"] == []


def test_players_are_refused(play: dict[str, Any], watched: Server) -> None:
    r = play["perfect"].http.get("/api/surveillance")
    assert r.status_code == 403 and r.json()["detail"] == "operators only"
    anon = Api(watched.url)
    assert anon.http.get("/api/surveillance").status_code == 401
    assert play["op"].get("/api/surveillance", expect=404, table=999)["detail"] == "no table 999"
    assert anon.http.get("/surveillance").status_code == 200  # the page; its data is refused


@pytest.mark.browser
@pytest.mark.parametrize("size", ["phone", "tablet", "wide"])
def test_the_operator_page(play: dict[str, Any], watched: Server, browser: Browser,
                           size: str) -> None:
    """The alarms by table and player and the delay on the page, at each size: axe-core
    finds no serious or critical violation, nothing is clipped; a player (on a phone) is
    asked for an operator's sign-in and shown no data."""
    time.sleep(max(0.0, play["ended"] + DELAY + 0.2 - time.monotonic()))
    play["op"].get("/api/surveillance")  # the first report loads the analysis (its kernels)
    tab = Tab(browser, play["op"], size)
    page = tab.page
    page.goto(f"{watched.url}/surveillance")
    expect(page.locator("#alarms li[data-player='perfect']")).to_contain_text("Blazing 7's")
    expect(page.locator("#delay")).to_contain_text(f"more than {DELAY} s ago")
    t = play["table"]
    expect(page.locator(f"section[data-table='{t}'] article.pw.alarm")).to_have_count(1)
    expect(page.locator("article.pw.alarm[data-player='perfect']")).to_contain_text("ALARM")
    for wager in ("blackjack", "blazing7s"):  # the Blackjack wager surveyed beside the side wager
        expect(page.locator(f"article.pw[data-player='flat'][data-wager='{wager}']")
               ).to_contain_text("no alarm")
    page.click(f"section[data-table='{t}'] details summary")
    expect(page.locator("ol.decisions li").first).to_be_visible()
    tab.unclipped("main")
    tab.axe()
    tab.shot("surveillance", full_page=True)
    if size == "phone":  # one player's cards only
        page.fill("#player-filter", "flat")
        page.click("#refresh")
        expect(page.locator("article.pw")).to_have_count(2)
        expect(page.locator("#alarms li.none")).to_be_visible()
        page.fill("#player-filter", "")
        page.click("#refresh")
        expect(page.locator("article.pw")).to_have_count(4)
    tab.close()
    if size != "phone":
        return
    player = Tab(browser, play["perfect"], size)
    player.page.goto(f"{watched.url}/surveillance")
    expect(player.page.locator("#signin-panel")).to_be_visible()
    expect(player.page.locator("#signin-why")).to_contain_text("signed in as a player")
    assert player.page.locator("article.pw").count() == 0
    player.unclipped("main")
    player.axe()
    player.close()
