"""The routes the web table adds to the server, through HTTP against a real ``sidebet serve``:
pages and static files, exact house edges and why a wager is not offered, exact advice, the
card codes and the test-only stacked shoe."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sidebet.core.cards import Card, parse_cards
from sidebet.core.shoe import Shoe
from sidebet.exact.blackjack.ev import decision_evs
from sidebet.regulation.submission import load_table_config
from sidebet.serve.log_audit import audit_lines
from sidebet.table.policy import full_shoe_press_advice

from .harness import ONE_DECK_SHORT, ROOT, Api, Server, database_url, finish_round, make_table

pytestmark = pytest.mark.postgres

SIX = load_table_config(ROOT / "examples" / "table-6deck.toml")


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(database_url(tmp_path_factory.mktemp("webapi")), extra=["--test-stack"]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def wop(web: Server) -> Api:
    return Api.operator(web.url)


def seated(web: Server, wop: Api, name: str, cards: str) -> tuple[Api, int]:
    t = make_table(wop)
    wop.post(f"/api/tables/{t}/test-stack", {"cards": cards}, expect=201)
    api = Api.player(web.url, name)
    api.post(f"/api/tables/{t}/seats/1", expect=201)
    return api, t


def test_pages_and_static_files(web: Server) -> None:
    for path in ("/", "/tables/1", "/tables/1/fair"):
        r = httpx.get(web.url + path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "<script type=\"module\"" in r.text and "http" not in r.text.split("<body>")[0]
    for name in ("common.js", "table.js", "lobby.js", "fair.js"):
        r = httpx.get(f"{web.url}/static/{name}")
        assert r.status_code == 200 and "javascript" in r.headers["content-type"]
        assert "https://" not in r.text and "http://" not in r.text  # nothing fetched elsewhere
    assert httpx.get(web.url + "/static/style.css").headers["content-type"].startswith("text/css")
    assert httpx.get(web.url + "/static/nothing.js").status_code == 404
    assert httpx.get(web.url + "/api/cards").json() == [Card.from_index(i).code
                                                         for i in range(52)]


def test_the_pages_take_the_wagers_names_from_the_api(web: Server) -> None:
    """The registry gives each side wager's name, short label and Press to the pages, in
    the order of settlement; no page names a wager itself."""
    from sidebet.regulation.wagers import WAGERS

    assert httpx.get(web.url + "/api/wagers").json() == [
        {"id": w.id, "name": w.name, "short": w.short, "pressable": w.pressable}
        for w in WAGERS.values()]
    assert [w["short"] for w in httpx.get(web.url + "/api/wagers").json()] == [
        "TLX", "UL", "T3", "B7", "3CP"]
    static = ROOT / "src" / "sidebet" / "serve" / "static"
    for page in sorted([*static.glob("*.js"), *static.glob("*.html")]):
        text = page.read_text(encoding="utf-8")
        for w in WAGERS.values():
            for said in (w.id, w.name, w.short):
                assert not re.search(rf"(?<![\w-]){re.escape(said)}(?![\w-])", text), (
                    page.name, said)


def test_house_edges_and_why_not_offered(web: Server, wop: Api) -> None:
    from sidebet.exact.par import par_sheet

    t = make_table(wop)
    info = httpx.get(f"{web.url}/api/tables/{t}/wagers", timeout=120).json()
    for w in info["wagers"]:
        assert w["offered"]
        sheet = par_sheet(w["id"], 6, SIX.side_wagers[w["id"]])
        assert w["house_edge"]["exact"] == str(sheet.house_edge)
    assert info["blackjack"]["percent"].endswith("%")
    two = 'name = "two"\ndecks = 2\n[side_wagers.trilux]\npaytable = "TLX-2"\n'
    t2 = make_table(wop, two)
    why = {w["id"]: w for w in httpx.get(f"{web.url}/api/tables/{t2}/wagers",
                                         timeout=120).json()["wagers"]}
    assert why["trilux"]["offered"]
    assert [v["rule"] for v in why["upcard-luck"]["why_not"]] == ["§ 633b.15(b)"]
    assert [v["rule"] for v in why["top3"]["why_not"]] == ["§ 633c.7(a)"]
    assert [v["rule"] for v in why["blazing7s"]["why_not"]] == ["§ 601a.2"]
    assert httpx.get(f"{web.url}/api/tables/99999/wagers").status_code == 404


def test_press_and_play_advice(web: Server, wop: Api) -> None:
    api, t = seated(web, wop, "adv-press", "8h 8s 8d 9c 3c Td 9h")
    api.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    api.act(t, 1, "bets", {"wager": "trilux", "amount": "10.00"})
    assert api.get(f"/api/tables/{t}/seats/1/advice") == {"kind": "none"}
    api.act(t, 1, "deal")
    adv = api.get(f"/api/tables/{t}/seats/1/advice")
    p, up, q = parse_cards("8h 8s 8d")
    want = full_shoe_press_advice((p, q), up, 6, SIX.rules)
    assert adv["kind"] == "press" and adv["ev_per_unit"] == want.ev_per_unit
    assert adv["advice"] == ("press all" if want.press else "collect")
    assert adv["winnings"] == "150.00" and adv["max"] == "150.00" and adv["play"] == want.play
    other = Api.player(web.url, "adv-other")
    other.get(f"/api/tables/{t}/seats/1/advice", expect=403)
    api.act(t, 1, "press", {"amount": "0"})
    play = api.get(f"/api/tables/{t}/seats/1/advice")
    evs = decision_evs([p, q], up, Shoe.standard(6).remove([p, q, up]), SIX.rules)
    got = {a["action"]: a["ev"] for a in play["actions"]}
    assert got == {"stand": evs.stand, "hit": evs.hit, "double": evs.double,
                   "split": evs.split, "surrender": evs.surrender}
    assert play["best"] == evs.best


def test_insurance_advice(web: Server, wop: Api) -> None:
    api, t = seated(web, wop, "adv-ins", "9h As 7d 5c")
    api.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    api.act(t, 1, "deal")
    adv = api.get(f"/api/tables/{t}/seats/1/advice")
    cards = parse_cards("9h 7d As")
    evs = decision_evs(cards[:2], cards[2], Shoe.standard(6).remove(cards), SIX.rules)
    assert adv["kind"] == "insurance" and adv["ev_per_unit"] == evs.insurance
    assert adv["advice"] == "decline" and adv["max"] == "5.00"


def test_stacked_shoe_is_never_called_fair(web: Server, wop: Api, tmp_path: Path) -> None:
    t = make_table(wop, ONE_DECK_SHORT)
    player = Api.player(web.url, "stacker")
    r = player.post(f"/api/tables/{t}/test-stack", {"cards": "As Kd"})
    assert r.status_code == 403
    wop.post(f"/api/tables/{t}/test-stack", {"cards": "As As"}, expect=422)  # one deck
    wop.post(f"/api/tables/{t}/test-stack", {"cards": "Xx"}, expect=422)
    wop.post(f"/api/tables/{t}/test-stack", {"cards": "As 5c Kd 9s"}, expect=201)
    player.post(f"/api/tables/{t}/seats/1", expect=201)
    player.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    state = player.act(t, 1, "deal").json()["state"]
    assert state["seats"][0]["hands"][0]["cards"] == "As Kd"
    assert state["shoe"]["stacked"] is True
    while not player.get(f"/api/tables/{t}/shoes")[0]["revealed"]:
        player.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        player.act(t, 1, "deal")
        finish_round({1: player}, t)
    log = wop.http.get(f"/api/tables/{t}/export").text.splitlines()
    report = audit_lines(log)
    assert 0 not in report.shoes_verified
    assert any("shoe 0 was stacked for a test" in n for n in report.not_verified)
    assert [json.loads(x)["kind"] for x in log[1:]].count("shoe-stack") == 1


def test_stacking_is_off_without_the_test_setting(server: Server, op: Api) -> None:
    t = make_table(op)
    op.post(f"/api/tables/{t}/test-stack", {"cards": "As Kd"}, expect=404)


def test_betting_area_limits_and_totals(web: Server, wop: Api) -> None:
    """Each area's limits as the engine gives them with the bets a page shows; bad input
    is refused and changes nothing; the state carries the totals of the cards shown."""
    api, t = seated(web, wop, "web-limits", "Ah 9c 6d 7s")  # Ah 6d against 9, hole 7s
    url = f"/api/tables/{t}/seats/1/limits"
    by = {x["wager"]: x for x in api.get(url, bets="blackjack:10.00,trilux:25.00")}
    assert (by["trilux"]["max"], by["trilux"]["max_rule"]) == ("20.00", "§ 633c.11(c)")
    assert by["trilux"]["violations"] == [{"rule": "§ 633c.11(c)", "message":
                                           "TriLux Deluxe wager 25.00 exceeds twice the "
                                           "Blackjack wager 10.00"}]
    assert by["top3"]["violations"][0]["rule"] == "§ 633c.7(c)"
    assert by["blackjack"]["min"] == "10.00" and by["blackjack"]["violations"] == []
    assert [x["wager"] for x in api.get(url)].index("top3") > \
        [x["wager"] for x in api.get(url)].index("three-card-poker")
    for bad in ("ten", "blackjack:10.005", "x" * 300):
        assert api.get(url, expect=422, bets=bad)["violations"]
    assert api.get(f"/api/tables/{t}/seats/9/limits", expect=404)["detail"]
    api.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    state = api.act(t, 1, "deal").json()["state"]
    assert state["dealer"]["total"] == {"total": 9, "soft": False, "busted": False}
    assert state["seats"][0]["hands"][0]["total"] == {"total": 17, "soft": True,
                                                      "busted": False}
