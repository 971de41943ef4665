"""Dealer-assist tables against a real ``sidebet serve``: a whole round whose cards come
from a card-reading shoe (the example client over the device WebSocket, then the device's
HTTP route), refused cards with their rules, the dealer's settlement instructions in the
regulations' order, corrections a supervisor approves with the ledger reversed exactly, the
audit of the exported log ("physical shoe: cards as entered"), and a round on the dealer's
page in a real browser (one server for them all)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from websockets.sync.client import connect

from sidebet.core.cards import Card
from sidebet.regulation.side_settlement import settle_outcome
from sidebet.regulation.wagers import get_wager
from sidebet.serve.chain import EXPORT_FORMAT
from sidebet.serve.log_audit import audit_lines
from sidebet.surveil.readers import rounds_from_log

from .harness import ROOT, SIX_DECK, Api, Server, database_url
from .pages import Tab

pytestmark = pytest.mark.postgres

CLIENT = ROOT / "examples" / "reading_shoe.py"
STAFF_PASSWORD = "staff-password-1"


CREW = ("dana", "shoe-1")
"""The crew's dealer and reading shoe, assigned to each table :func:`physical_table` opens
(the crew's supervisor is house-wide)."""


def staff(op: Api, url: str, name: str, role: str, tables: list[int] | str | None = None
          ) -> Api:
    """A staff account signed in; at no table unless ``tables`` says which (or "all")."""
    body: dict[str, object] = {"name": name, "password": STAFF_PASSWORD, "role": role}
    if tables is not None:
        body["tables"] = tables
    r = op.post("/api/dealer/staff", body, expect=201)
    assert r.json()["tables"] == ([] if tables is None else tables)
    return Api.login(url, name, STAFF_PASSWORD)


def assign(op: Api, name: str, tables: list[int] | str, expect: int = 200) -> dict[str, Any]:
    r = op.http.put(f"/api/dealer/staff/{name}/tables", json={"tables": tables})
    assert r.status_code == expect, r.text
    return dict(r.json())


def physical_table(op: Api, submission: str = SIX_DECK, seats: int = 3,
                   crew: tuple[str, ...] = CREW) -> int:
    r = op.post("/api/tables", {"submission": submission, "seats": seats, "shoe": "physical"},
                expect=201)
    assert r.json()["algorithm"] == "physical shoe: cards as entered"
    t = int(r.json()["id"])
    for name in crew:  # the crew moves to the new table
        assert assign(op, name, [t])["tables"] == [t]
    return t


def cents(text: str) -> int:
    whole, frac = text.lstrip("-").split(".")
    return (-1 if text.startswith("-") else 1) * (int(whole) * 100 + int(frac))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """This module's server takes a snapshot every few events, so that a table rebuilt
    from its log (:func:`test_tables_rebuilt_from_the_log`) starts from one."""
    srv = Server(database_url(tmp_path_factory.mktemp("dealer")),
                 env={"SIDEBET_SNAPSHOT_EVERY": "4",
                      "SIDEBET_SURVEILLANCE_DELAY": "0"}).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def crew(server: Server, op: Api) -> dict[str, Api]:
    return {"dealer": staff(op, server.url, "dana", "dealer"),
            "supervisor": staff(op, server.url, "sam", "supervisor", "all"),
            "device": staff(op, server.url, "shoe-1", "device")}


def test_round_from_a_reading_shoe(server: Server, op: Api, crew: dict[str, Api],
                                   tmp_path: Path) -> None:
    dealer, device = crew["dealer"], crew["device"]
    t = physical_table(op)
    ann, bob = Api.player(server.url, "ann-da"), Api.player(server.url, "bob-da")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    bob.post(f"/api/tables/{t}/seats/2", expect=201)
    before = {"ann": ann.balance(), "bob": bob.balance()}
    ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    ann.act(t, 1, "bets", {"wager": "trilux", "amount": "5.00"})
    # the dealer enters a wager the player put on the layout
    dealer.post(f"/api/dealer/tables/{t}/seats/2/bets", {"wager": "blackjack",
                                                         "amount": "10.00"}, expect=201)
    dealer.post(f"/api/dealer/tables/{t}/seats/2/bets", {"wager": "upcard-luck",
                                                         "amount": "5.00"}, expect=201)
    # no more bets: the deal waits for its six cards
    r = dealer.post(f"/api/dealer/tables/{t}/seats/1/deal", expect=202)
    assert r.json()["state"]["physical"]["awaiting"] == {"seat": 1, "action": "no-more-bets"}
    assert ann.get(f"/api/tables/{t}/state")["seats"][0]["legal"] == []
    # the reading shoe: the example client plays the deal from a file over the WebSocket
    deal = tmp_path / "deal.txt"
    deal.write_text("# seat 1, seat 2, upcard, seat 1, seat 2, hole card\n"
                    "2h 0.999\nTs 0.97\n9h\n5h 0.99\n7c\n8d 0.995\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(CLIENT), str(deal), "--server", server.url,
                           "--table", str(t), "--name", "shoe-1"], capture_output=True,
                          text=True, timeout=60,
                          env={**os.environ, "SIDEBET_DEVICE_PASSWORD": STAFF_PASSWORD})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "8d at 5: accepted; no-more-bets applied"
    # the dealer's screen: side wagers seat by seat, farthest to the dealer's right first
    screen = dealer.get(f"/api/dealer/tables/{t}")
    assert screen["dealer"] == "9h ??" and screen["phase"] == "press"  # face down
    lines = [(i["seat"], i["wager"], i["action"]) for i in screen["instructions"]]
    assert lines == [(2, "upcard-luck", "collect"), (1, "trilux", "pay")]
    up = Card.parse("9h")
    for item, (first, second, stake) in zip(screen["instructions"],
                                             [("Ts", "7c", 5_00), ("2h", "5h", 5_00)],
                                             strict=True):
        wager = get_wager(item["wager"])
        pair = (Card.parse(first), Card.parse(second))
        want = settle_outcome(wager, wager.paytable({"trilux": "TLX-3",
                                                     "upcard-luck": "standard"}[wager.id]),
                              wager.outcome(*pair, up), stake, pair, up)
        assert (item["line"], item["pays"], item["citation"]) == (
            want.label, want.pays, want.citation)
        # the real stake on every line: a losing wager's is what the dealer collects
        assert cents(item["stake"]) == stake
        assert cents(item["amount"]) == (want.winnings if want.won else stake)
    assert [p["seat"] for p in screen["press"]] == [1] and screen["press"][0]["pressed"] is None
    # the players' pages follow: the hole card hidden, no entered card shown to observers
    seen = ann.get(f"/api/tables/{t}/state")
    assert seen["dealer"]["cards"] == "9h ??"
    public = Api(server.url).get(f"/api/tables/{t}/events", since=0)
    cards = [e for e in public if e["kind"] == "card"]
    assert len(cards) == 6 and all(set(e["payload"]) == {"shoe", "position"} for e in cards)
    # the Press choice entered by the dealer, then the player hits: the hit waits for a card
    dealer.post(f"/api/dealer/tables/{t}/seats/1/press", {"amount": "0"}, expect=201)
    ann.act(t, 1, "hit", expect=202)
    r = device.post(f"/api/device/tables/{t}/cards", {"position": 6, "card": "Th",
                                                      "confidence": 0.99}, expect=201)
    assert r.json()["applied"]["step"] == "hit"
    ann.act(t, 1, "stand")
    bob.act(t, 2, "stand")  # the dealer stands on 17: no card needed, the round ends
    final = dealer.get(f"/api/dealer/tables/{t}")
    assert final["round_open"] is False and final["phase"] == "done"
    assert final["dealer"] == "9h 8d"
    nets = {r["seat"]: cents(r["net"]) for r in final["results"]}
    assert ann.balance() - before["ann"] == nets[1]
    assert bob.balance() - before["bob"] == nets[2]
    assert nets[1] > 0  # TriLux flush paid, 17 after the hit pushes... or wins: the engine says
    game = op.get("/api/games", table=t)[0]
    assert game["algorithm"] == "physical shoe: cards as entered"
    report = audit_lines(op.http.get(f"/api/tables/{t}/export").text.splitlines())
    text = "\n".join(report.lines())
    assert "physical shoe: cards as entered" in text and report.rounds_verified == 1
    assert report.cards_entered == 7


def test_refused_cards_and_roles(server: Server, op: Api, crew: dict[str, Api],
                                 tmp_path: Path) -> None:
    one_deck = 'name = "one deck dealer-assist"\ndecks = 1\n[limits]\nmin = "10.00"\n'
    t = physical_table(op, one_deck, seats=1)
    dealer = crew["dealer"]
    dealer.post(f"/api/dealer/tables/{t}/cards", {"position": 0, "card": "As"}, expect=201)
    r = dealer.post(f"/api/dealer/tables/{t}/cards", {"position": 1, "card": "As"},
                    expect=422)
    assert r.json()["violations"][0]["rule"] == "interpretation 1"
    assert "not left in a shoe of 1 deck" in r.json()["detail"]
    r = dealer.post(f"/api/dealer/tables/{t}/cards", {"position": 3, "card": "Kd"},
                    expect=409)
    assert r.json()["violations"][0]["rule"].startswith("§ 633a.7")
    dealer.post(f"/api/dealer/tables/{t}/cards", {"position": 1, "card": "Xx"}, expect=422)
    # the device WebSocket answers a refusal in order, with the rule
    with connect(server.url.replace("http", "ws") + f"/api/device/tables/{t}/ws") as ws:
        ws.send(json.dumps({"token": crew["device"].http.headers["Authorization"][7:]}))
        assert json.loads(ws.recv())["status"] == 200
        ws.send(json.dumps({"id": "a", "position": 1, "card": "As", "confidence": 0.5}))
        answer = json.loads(ws.recv())
        assert answer["status"] == 422 and answer["id"] == "a"
        ws.send(json.dumps({"position": 1, "card": "Qs"}))
        assert json.loads(ws.recv())["card"]["next_position"] == 2
        ws.send(json.dumps({"position": 1, "card": "Qs"}))  # sent again: answered, no change
        again = json.loads(ws.recv())
        assert again["status"] == 200 and again["card"]["next_position"] == 2
        ws.send(json.dumps({"position": 1, "card": "Qd"}))  # another card there: refused
        assert json.loads(ws.recv())["status"] == 409
        # the device's tokens revoked: its next card is refused at once, socket or not
        r = op.post("/api/operator/accounts/shoe-1/revoke")
        assert r.status_code < 300, r.text
        ws.send(json.dumps({"position": 2, "card": "2c"}))
        assert json.loads(ws.recv())["status"] == 401
    # the example client stops at the first refusal: one line with the rule, exit 2
    shoe_file = tmp_path / "bad.txt"
    shoe_file.write_text("As 0.61\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(CLIENT), str(shoe_file), "--server",
                           server.url, "--table", str(t), "--name", "shoe-1"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "SIDEBET_DEVICE_PASSWORD": STAFF_PASSWORD})
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "[interpretation 1]" in done.stderr
    assert "at position 2 refused (422)" in done.stderr
    # roles: a player may not enter cards, a device may not act for a seat
    player = Api.player(server.url, "cara-da")
    player.post(f"/api/device/tables/{t}/cards", {"position": 2, "card": "2c"}, expect=403)
    device = Api.login(server.url, "shoe-1", STAFF_PASSWORD)  # signed in again
    device.post(f"/api/dealer/tables/{t}/seats/1/deal", expect=403)
    # a fair table has no physical shoe
    fair = int(op.post("/api/tables", {"submission": SIX_DECK}, expect=201).json()["id"])
    dealer.post(f"/api/dealer/tables/{fair}/cards", {"position": 0, "card": "2c"},
                expect=409)


def test_staff_bound_to_their_tables(server: Server, op: Api, crew: dict[str, Api]) -> None:
    """A dealer, a reading shoe and a supervisor work only at the dealer-assist tables an
    operator assigned them (the crew's supervisor is house-wide); a new assignment counts
    at once."""
    one, two = physical_table(op, seats=1, crew=()), physical_table(op, seats=1, crew=())
    dex = staff(op, server.url, "dex-da", "dealer", [one])
    reader = staff(op, server.url, "shoe-da", "device", [one])
    sue = staff(op, server.url, "sue-da", "supervisor", [one])
    card = {"position": 0, "card": "2c"}
    r = dex.post(f"/api/dealer/tables/{two}/cards", card, expect=403)
    assert r.json()["detail"] == (f"house rule: dex-da is not assigned to table {two}: an "
                                  "operator assigns the staff's tables")
    assert r.json()["violations"][0]["rule"] == "house rule"
    reader.post(f"/api/device/tables/{two}/cards", card, expect=403)
    with connect(server.url.replace("http", "ws") + f"/api/device/tables/{two}/ws") as ws:
        ws.send(json.dumps({"token": reader.http.headers["Authorization"][7:]}))
        assert json.loads(ws.recv())["status"] == 200
        ws.send(json.dumps({"id": 1, **card}))
        answer = json.loads(ws.recv())
        assert answer["status"] == 403 and "not assigned to table" in answer["detail"]
    for path in ("/shoes", "/seats/1/deal", "/corrections"):
        dex.post(f"/api/dealer/tables/{two}{path}", {"kind": "misdeal", "reason": "x"},
                 expect=403)
    sue.get(f"/api/dealer/tables/{two}", expect=403)
    crew["supervisor"].get(f"/api/dealer/tables/{two}")  # house-wide
    reader.post(f"/api/device/tables/{one}/cards", card, expect=201)
    assert dex.get(f"/api/dealer/tables/{one}")["shoe"]["next_position"] == 1
    # the operator moves the dealer: refused at once at the old table, let in at the new
    assert assign(op, "dex-da", [two, two])["tables"] == [two]
    dex.get(f"/api/dealer/tables/{one}", expect=403)
    dex.post(f"/api/dealer/tables/{two}/cards", card, expect=201)
    # only a supervisor is house-wide; only dealer-assist tables; only operators assign
    fair = int(op.post("/api/tables", {"submission": SIX_DECK}, expect=201).json()["id"])
    assert "only a supervisor" in assign(op, "dex-da", "all", expect=422)["detail"]
    assign(op, "dex-da", [fair], expect=422)
    assign(op, "ann-nobody", [one], expect=404)
    assert assign(op, "sue-da", "all")["tables"] == "all"
    r = dex.http.put("/api/dealer/staff/dex-da/tables", json={"tables": "all"})
    assert r.status_code == 403
    r = op.http.post("/api/dealer/staff", json={"name": "x-da", "password": STAFF_PASSWORD,
                                                "role": "device", "tables": [two, 10**6]})
    assert r.status_code == 422 and "is not a dealer-assist table" in r.text


def test_void_approved_by_a_supervisor(server: Server, op: Api,
                                       crew: dict[str, Api]) -> None:
    dealer, supervisor = crew["dealer"], crew["supervisor"]
    t = physical_table(op, seats=1)
    dee = Api.player(server.url, "dee-da")
    dee.post(f"/api/tables/{t}/seats/1", expect=201)
    dee_id = dee.get("/api/me")["id"]
    start = dee.balance()
    dee.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    dee.act(t, 1, "bets", {"wager": "trilux", "amount": "10.00"})
    for position, card in enumerate(["6h", "9h", "7h"]):  # a TriLux winner so far
        dealer.post(f"/api/dealer/tables/{t}/cards", {"position": position, "card": card},
                    expect=201)
    dee.act(t, 1, "deal", expect=202)
    r = dealer.post(f"/api/dealer/tables/{t}/cards", {"position": 3, "card": "2c"},
                    expect=201)
    assert r.json()["applied"]["step"] == "no-more-bets"
    won = dee.balance() - start
    assert won > -20_00  # the TriLux winnings came back with its stake
    # a dealer asks, a supervisor approves; a dealer cannot approve
    r = dealer.post(f"/api/dealer/tables/{t}/corrections",
                    {"kind": "void", "reason": "the hole card was exposed"}, expect=201)
    request = r.json()["request"]
    dealer.post(f"/api/dealer/tables/{t}/corrections/{request}/approve", expect=403)
    done = supervisor.post(f"/api/dealer/tables/{t}/corrections/{request}/approve",
                           expect=201).json()
    assert dee.balance() == start  # every cent of the round undone
    # the wallet gives back what it won; the house takes back what it paid, and the
    # Blackjack stake still on the layout goes back to the wallet
    assert cents(done["moves"][str(dee_id)]) == -won
    assert cents(done["house"]) == won + 10_00
    rec = op.get("/api/reconcile")
    assert rec["conserved"] and rec["layout"] == 0
    screen = dealer.get(f"/api/dealer/tables/{t}")
    assert screen["voided"] and not screen["round_open"]
    supervisor.post(f"/api/dealer/tables/{t}/corrections/{request}/approve", expect=404)
    events = op.events(t)
    fix = next(e for e in events if e["kind"] == "correction")["payload"]
    assert (fix["asked_by"], fix["approved_by"], fix["reason"]) == (
        "dana", "sam", "the hole card was exposed")
    game = op.get(f"/api/games/T{t}-R1")
    assert game["status"] == "void"
    # a new shoe between rounds: its positions start again at 0; not while a round is open
    r = dealer.post(f"/api/dealer/tables/{t}/shoes", expect=201)
    assert r.json()["shoe"] == 1
    screen = dealer.get(f"/api/dealer/tables/{t}")
    assert screen["shoe"]["shoe"] == 1 and screen["shoe"]["next_position"] == 0
    # the next round plays on, and the whole log audits
    dee.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    dealer.post(f"/api/dealer/tables/{t}/shoes", expect=409)
    dealer.post(f"/api/dealer/tables/{t}/cards", {"position": 0, "card": "6h"}, expect=201)
    export = op.http.get(f"/api/tables/{t}/export").text.splitlines()
    report = audit_lines(export)
    assert report.corrections == 1 and report.physical
    # surveillance leaves the voided round out: only the round now open is unfinished
    seen = rounds_from_log(export, EXPORT_FORMAT)
    assert seen.rounds == () and seen.not_finished == 1


def test_a_finished_round_voided_leaves_surveillance(server: Server, op: Api,
                                                     crew: dict[str, Api]) -> None:
    """A finished round voided (before the next opens) is not a round surveillance
    values: the live report counts the round before it only."""
    dealer, supervisor = crew["dealer"], crew["supervisor"]
    t = physical_table(op, seats=1)
    eve = Api.player(server.url, "eve-da")
    eve.post(f"/api/tables/{t}/seats/1", expect=201)
    for first in (0, 4):  # two rounds: 13 stands against the dealer's 18
        eve.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        eve.act(t, 1, "bets", {"wager": "trilux", "amount": "5.00"})
        eve.act(t, 1, "deal", expect=202)
        for offset, card in enumerate(["6h", "Tc", "7s", "8d"]):
            dealer.post(f"/api/dealer/tables/{t}/cards",
                        {"position": first + offset, "card": card}, expect=201)
        eve.act(t, 1, "stand")
        assert dealer.get(f"/api/dealer/tables/{t}")["round_open"] is False
    r = dealer.post(f"/api/dealer/tables/{t}/corrections",
                    {"kind": "void", "reason": "cards from the wrong shoe"}, expect=201)
    supervisor.post(f"/api/dealer/tables/{t}/corrections/{r.json()['request']}/approve",
                    expect=201)
    assert op.get(f"/api/games/T{t}-R2")["status"] == "void"
    watched = op.get("/api/surveillance", table=t, decisions=10)["tables"][0]
    assert watched["error"] is None and watched["rounds"] == 1
    assert {d["game"] for d in watched["decisions"]} == {f"T{t}-R1"}


def test_a_dealt_card_corrected(server: Server, op: Api, crew: dict[str, Api]) -> None:
    """A misread card of the round in progress, corrected on a supervisor's approval: the
    round is replayed on the true card, its money undone and redone."""
    dealer, supervisor = crew["dealer"], crew["supervisor"]
    t = physical_table(op, seats=1)
    fay = Api.player(server.url, "fay-da")
    fay.post(f"/api/tables/{t}/seats/1", expect=201)
    start = fay.balance()
    fay.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    fay.act(t, 1, "bets", {"wager": "trilux", "amount": "5.00"})
    dealer.post(f"/api/dealer/tables/{t}/seats/1/deal", expect=202)
    for position, card in enumerate(["2h", "9h", "5h", "8s"]):  # seat 1: a flush so far
        dealer.post(f"/api/dealer/tables/{t}/cards", {"position": position, "card": card},
                    expect=201)
    flush = dealer.get(f"/api/dealer/tables/{t}")["instructions"][0]
    assert flush["action"] == "pay"
    paid = fay.balance() - start
    r = dealer.post(f"/api/dealer/tables/{t}/corrections",
                    {"kind": "card", "reason": "the reader misread 5c", "position": 2,
                     "card": "5c"}, expect=201)
    done = supervisor.post(f"/api/dealer/tables/{t}/corrections/{r.json()['request']}"
                           "/approve", expect=201).json()
    screen = dealer.get(f"/api/dealer/tables/{t}")
    assert screen["instructions"][0]["action"] == "collect" and screen["press"] == []
    assert screen["seats"][0]["hands"][0]["cards"] == "2h 5c"
    # the flush's winnings and its stake went back; the TriLux stake is lost as dealt
    assert fay.balance() - start == -10_00 - 5_00
    assert cents(done["moves"][str(fay.get("/api/me")["id"])]) == -10_00 - 5_00 - paid
    assert op.get("/api/reconcile")["conserved"]


def test_tables_rebuilt_from_the_log(server: Server, op: Api) -> None:
    """Every dealer-assist table of this module rebuilt from its log (from its last
    snapshot, and from the first event) is the table the server serves."""
    from sidebet.serve.db import make_engine
    from sidebet.serve.physical import PhysicalTable
    from sidebet.serve.service.core import Core
    from sidebet.serve.settings import load_settings

    core = Core(make_engine(server.db_url), load_settings(database_url=server.db_url))
    tables = [t["id"] for t in op.get("/api/tables")]
    rebuilt = 0
    for t in tables:
        served = op.get(f"/api/tables/{t}/state")
        for snapshots in (True, False):
            live = core.load(t, snapshots=snapshots)
            if not isinstance(live, PhysicalTable):
                continue
            view = live.view()
            assert (view["seq"], view["round"], view["phase"], view["physical"],
                    view["dealer"]["cards"]) == (
                served["seq"], served["round"], served["phase"], served["physical"],
                served["dealer"]["cards"])
            rebuilt += 1
    assert rebuilt >= 8 and any(core.load(t).snapshot_seq for t in tables)
    core.engine.dispose()


@pytest.mark.browser
@pytest.mark.skipif(bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
                    reason="the page does not depend on the database: its routes run on "
                           "PostgreSQL in the tests above")
def test_a_round_on_the_dealer_page(server: Server, op: Api, crew: dict[str, Api],
                                    browser: Browser) -> None:
    """The dealer's page (Playwright on Debian's Chromium, axe-core at both sizes): a
    whole round with the cards typed and tapped, a refused card shown with its rule, the
    settlement instructions and the Press entered by the dealer, while the player's own
    page follows live."""
    web, dealer = server, crew["dealer"]
    t = physical_table(op, seats=2)
    eve = Api.player(web.url, "eve-dp")
    eve.post(f"/api/tables/{t}/seats/1", expect=201)
    eve.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    eve.act(t, 1, "bets", {"wager": "trilux", "amount": "5.00"})
    player = Tab(browser, eve)
    player.page.goto(f"{web.url}/tables/{t}")
    expect(player.page.locator("#conn")).to_have_text("live")
    tab = Tab(browser, dealer, "wide")
    page = tab.page
    page.goto(f"{web.url}/dealer?table={t}")
    expect(page.locator("#next")).to_contain_text("no more bets")
    expect(player.page.locator("#shoe-kind")).to_contain_text("Physical shoe")
    page.click("[data-seat='1'] button[data-act='deal']")
    expect(page.locator("#next")).to_have_text(re.compile(r"^Deal card 1 of the shoe"))
    # the player's page says what the table waits for, in the status line kept in view
    expect(player.page.locator("#status")).to_have_text(
        "Waiting for the dealer's cards (seat 1: no more bets).")
    expect(player.page.locator("#status")).to_be_in_viewport()
    player.axe()  # the physical shoe shown on the felt and in its panel
    page.fill("#card", "2h")
    page.press("#card", "Enter")
    expect(page.locator("#next-position")).to_have_text("2")
    page.fill("#card", "Kc")  # mistyped: taken back before it is dealt
    page.press("#card", "Enter")
    expect(page.locator("#next-position")).to_have_text("3")
    page.click("#undo-card")
    expect(page.locator("#next-position")).to_have_text("2")
    expect(page.locator("#waiting")).to_contain_text("2")
    page.fill("#card", "9h")
    page.click("#card-enter")
    expect(page.locator("#next-position")).to_have_text("3")
    page.fill("#card", "Zz")  # not a card: refused with the rule, nothing changes
    page.click("#card-enter")
    expect(page.locator("#message")).to_contain_text("interpretation 1")
    expect(page.locator("#next-position")).to_have_text("3")
    page.click("button[data-rank='5']")  # tapped: rank, then suit
    page.click("button[data-suit='h']")
    expect(page.locator("#next-position")).to_have_text("4")
    page.fill("#card", "8d")
    page.click("#card-enter")
    # the deal is in: what to pay, seat by seat, with the paytable line and citation
    line = page.locator("#instructions li[data-seat='1']")
    expect(line).to_contain_text("pay")
    expect(line).to_contain_text("§ 633c.11")
    expect(line).to_contain_text("(stake 5.00)")
    expect(page.locator("#dealer-cards .card")).to_have_count(2)
    expect(player.page.locator("#dealer-cards .card")).to_have_count(2)  # follows live
    # the shoe numbered as the players' log numbers it; the Press entry starts at 0
    expect(page.locator("#shoe-no")).to_have_text(str(eve.get(f"/api/tables/{t}/state")
                                                      ["shoe"]["shoe"]))
    expect(page.locator("#press li[data-seat='1'] input")).to_have_value("0.00")
    expect(player.page.locator("#status")).not_to_contain_text("Waiting for the dealer")
    tab.axe()
    tab.shot("dealer", full_page=True)
    phone = Tab(browser, dealer, "phone")  # the same screen on a phone
    phone.page.goto(f"{web.url}/dealer?table={t}")
    expect(phone.page.locator("#instructions li[data-seat='1']")).to_contain_text("pay")
    phone.axe()
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= 390
    phone.shot("dealer", full_page=True)
    phone.close()
    tablet = Tab(browser, dealer, "tablet")  # the instruction and a refusal stay in view
    tablet.page.goto(f"{web.url}/dealer?table={t}")
    expect(tablet.page.locator("#next")).to_contain_text("Press")
    tablet.page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    tablet.page.click("#fix-ask")  # no reason given: refused, said in view
    tablet.page.fill("#fix-reason", "x")
    tablet.page.fill("#fix-position", "99")
    tablet.page.select_option("#fix-kind", "card")
    tablet.page.click("#fix-ask")
    expect(tablet.page.locator("#message")).not_to_be_empty()
    tablet.uncovered("#next", "#message")
    tablet.axe()
    tablet.shot("dealer-scrolled")
    tablet.close()
    page.click("#press li[data-seat='1'] button[data-act='collect']")
    expect(page.locator("#press li[data-seat='1']")).to_contain_text("collected")
    page.click("[data-seat='1'] button[data-act='stand']")
    expect(page.locator("#results li[data-seat='1']")).to_contain_text("net")
    expect(page.locator("#phase")).to_have_text("Round over")  # as the players read it
    # a second round under an ace: insurance offered with its most, taken with an amount
    eve.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    page.click("[data-seat='1'] button[data-act='deal']")
    for position, card in enumerate(["Th", "Ac", "9d", "7s"], start=4):
        dealer.post(f"/api/dealer/tables/{t}/cards", {"position": position, "card": card},
                    expect=201)
    most = eve.get(f"/api/tables/{t}/state")["seats"][0]["legal"][0]
    assert most["action"] == "insurance"
    amount = page.locator("[data-seat='1'] input[aria-label='Seat 1 insurance amount']")
    expect(amount).to_have_value(most["max"])
    expect(page.locator("[data-seat='1'] .acts")).to_contain_text(f"up to {most['max']}")
    tab.axe()  # the insurance controls too
    amount.fill("2.00")
    page.click("[data-seat='1'] button[data-act='insure']")
    expect(page.locator("[data-seat='1'] button[data-act='stand']")).to_be_visible()
    page.click("[data-seat='1'] button[data-act='stand']")  # 19 against 18; insurance lost
    expect(page.locator("#results li[data-seat='1']")).to_have_text("Seat 1: net 8.00")
    tab.close()
    player.close()
    final = eve.get(f"/api/tables/{t}/state")
    assert final["round_open"] is False


@pytest.mark.browser
@pytest.mark.skipif(bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
                    reason="the page does not depend on the database")
@pytest.mark.parametrize("size", ["phone", "tablet", "wide"])
def test_corrections_seen_by_players(server: Server, op: Api, crew: dict[str, Api],
                                     browser: Browser, size: str) -> None:
    """A corrected card and a void are announced on the player's page with their money
    effect; after the void the felt shows no voided cards and no "to act" marker."""
    dealer, supervisor = crew["dealer"], crew["supervisor"]
    t = physical_table(op, seats=1)
    gil = Api.player(server.url, f"gil-fix-{size}")
    gil.post(f"/api/tables/{t}/seats/1", expect=201)
    gil.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    gil.act(t, 1, "bets", {"wager": "trilux", "amount": "5.00"})
    tab = Tab(browser, gil, size)
    page = tab.page
    page.goto(f"{server.url}/tables/{t}")
    expect(page.locator("#conn")).to_have_text("live")
    gil.act(t, 1, "deal", expect=202)
    for position, card in enumerate(["2h", "9c", "5h", "8s"]):  # seat 1: 2h 5h, 7 to act
        dealer.post(f"/api/dealer/tables/{t}/cards", {"position": position, "card": card},
                    expect=201)

    def approve(body: dict[str, Any]) -> None:
        r = dealer.post(f"/api/dealer/tables/{t}/corrections", body, expect=201)
        supervisor.post(f"/api/dealer/tables/{t}/corrections/{r.json()['request']}/approve",
                        expect=201)

    expect(page.locator("[data-seat='1'] .hand .card")).to_have_count(2)
    approve({"kind": "card", "reason": "the reader misread 5c", "position": 2, "card": "5c"})
    toast = page.locator("#toast-text")
    expect(toast).to_contain_text("A card of round 1 was corrected (the reader misread 5c)")
    expect(toast).to_contain_text(gil.get("/api/me")["balance"])
    expect(page.locator("[data-seat='1'] .hand .card").nth(1)).to_have_attribute(
        "aria-label", "5 of clubs")
    tab.in_view("#toast-text")
    # a card drawn for the round, waiting; the last entered only can be taken back
    dealer.post(f"/api/dealer/tables/{t}/cards", {"position": 4, "card": "Kd"}, expect=201)
    dealer.post(f"/api/dealer/tables/{t}/cards/3/undo", expect=409)
    approve({"kind": "void", "reason": "the hole card was exposed"})
    screen = dealer.get(f"/api/dealer/tables/{t}")
    assert screen["shoe"]["waiting"] == [] and screen["shoe"]["next_position"] == 4
    assert all(e["payload"].get("card") is None for e in gil.get(f"/api/tables/{t}/events")
               if e["kind"] in ("card", "card-undo"))  # players never see them
    expect(toast).to_contain_text("Round 1 was voided (the hole card was exposed)")
    expect(toast).to_contain_text(f"Your wallet +15.00: now {gil.get('/api/me')['balance']}")
    expect(page.locator("#dealer-cards .card")).to_have_count(0)
    expect(page.locator("[data-seat='1'] .hand")).to_have_count(0)
    expect(page.locator(".seat.turn")).to_have_count(0)
    expect(page.locator("#status")).to_have_text("Choose a chip, tap the areas, then Deal.")
    tab.in_view("#toast-text")
    tab.shot("void-announced")
    tab.axe()
    tab.close()


@pytest.mark.browser
@pytest.mark.skipif(bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
                    reason="the page does not depend on the database")
@pytest.mark.parametrize("size", ["phone", "tablet", "wide"])
def test_dealer_refusals_in_plain_words(server: Server, op: Api, crew: dict[str, Api],
                                        browser: Browser, size: str) -> None:
    """Every refusal on the dealer's page in a dealer's words, in view at the top, the
    rule behind it one tap away ("Rule"): a card no longer in the shoe, a card that is no
    card, a void with no round, a position that is no number, a supervisor's task tapped
    by a dealer; axe-core with the rule open."""
    one_deck = 'name = "one deck, refusals"\ndecks = 1\n[limits]\nmin = "10.00"\n'
    t = physical_table(op, one_deck, seats=1)
    dealer = crew["dealer"]
    tab = Tab(browser, dealer, size)
    page = tab.page
    page.goto(f"{server.url}/dealer?table={t}")
    expect(page.locator("#next")).to_have_text(re.compile(r"^Take the bets"))
    message, why, cited = "#message", "#message details.why summary", "#message details.why .rule"

    def enter(card: str) -> None:
        page.fill("#card", card)
        page.click("#card-enter")

    enter("As")
    expect(page.locator("#next-position")).to_have_text("2")
    enter("As")  # one deck holds one ace of spades
    expect(page.locator(message)).to_contain_text("not left in a shoe of 1 deck")
    tab.plain(message, why, cited, "interpretation 1")
    tab.axe()  # the rule shown
    enter("Zz")
    expect(page.locator(message)).to_contain_text("Zz")
    tab.plain(message, why, cited, "interpretation 1")
    expect(page.locator("#next-position")).to_have_text("2")  # nothing entered
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.fill("#fix-reason", "the shoe was dropped")
    page.click("#fix-ask")  # a void with no round played
    expect(page.locator(message)).to_contain_text("no round to void")
    tab.plain(message, why, cited, "a house rule")
    page.select_option("#fix-kind", "card")
    page.fill("#fix-position", "two")
    page.fill("#fix-card", "2c")
    page.click("#fix-ask")  # no number: no position
    expect(page.locator(message)).to_contain_text("names the position and the true card")
    tab.plain(message, why, cited, "a house rule")
    page.fill("#fix-position", "1")  # asked: the dealer cannot approve it
    page.click("#fix-ask")
    approve = page.locator("button[data-approve]").first
    approve.click()
    expect(page.locator(message)).to_contain_text("supervisor")
    text = tab.plain(message, why, cited, "a house rule")
    assert text.startswith("This is a task of the supervisor role"), text
    tab.axe()
    tab.shot("dealer-refusal")
    tab.close()


@pytest.mark.browser
@pytest.mark.skipif(bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
                    reason="the page does not depend on the database")
def test_every_dealer_refusal_in_words(server: Server, op: Api, crew: dict[str, Api],
                                       browser: Browser) -> None:
    """The refusals the server answers the dealer's page (cards, undo, corrections, roles,
    seats, a table that is not dealer-assist, malformed fields) each in the pages' words,
    the rule kept behind them."""
    one_deck = 'name = "one deck, every refusal"\ndecks = 1\n[limits]\nmin = "10.00"\n'
    t = physical_table(op, one_deck, seats=2)
    fair = int(op.post("/api/tables", {"submission": SIX_DECK}, expect=201).json()["id"])
    dealer, supervisor = crew["dealer"], crew["supervisor"]
    at = f"/api/dealer/tables/{t}"
    dealer.post(f"{at}/cards", {"position": 0, "card": "As"}, expect=201)
    asked: list[tuple[Any, int | None]] = [(r, None) for r in (
        dealer.post(f"{at}/cards", {"position": 1, "card": "As"}),  # not left in the shoe
        dealer.post(f"{at}/cards", {"position": 5, "card": "Kd"}),  # out of the dealing order
        dealer.post(f"{at}/cards", {"position": 1, "card": "Zz"}),  # no card
        dealer.post(f"{at}/cards", {"position": "one", "card": "Kd"}),
        dealer.post(f"{at}/cards/3/undo"),  # not the last card entered
        dealer.post(f"{at}/corrections", {"kind": "void", "reason": "x"}),  # no round
        dealer.post(f"{at}/corrections", {"kind": "misdeal", "reason": "x"}),
        dealer.post(f"{at}/corrections", {"kind": "card", "reason": "x"}),  # no position
        dealer.post(f"{at}/corrections", {"kind": "card", "reason": " ", "position": 0,
                                          "card": "2c"}),  # no reason
        dealer.post(f"{at}/corrections", {"kind": "nonsense", "reason": "x"}),
        dealer.post(f"{at}/corrections/99/approve"),  # a supervisor's task
        supervisor.post(f"{at}/corrections/99/approve"),  # no such request
        dealer.post(f"{at}/seats/1/bets", {"wager": "blackjack", "amount": "10.00"}),
        dealer.post(f"{at}/seats/1/bets", {"wager": "blackjack", "amount": "ten"}),
        dealer.post(f"{at}/seats/1/stand"),
        dealer.post(f"{at}/seats/1/press", {"amount": "1.00"}),
        dealer.post(f"/api/dealer/tables/{fair}/cards", {"position": 0, "card": "2c"}),
        dealer.post(f"/api/dealer/tables/{fair}/shoes"),
    )]
    tab = Tab(browser, dealer, "tablet")
    tab.page.goto(f"{server.url}/dealer?table={t}")
    said = tab.worded(asked)
    assert said[0]["rule"] == "interpretation 1" and said[1]["rule"].startswith("§ 633a.7"), said
    tab.close()
