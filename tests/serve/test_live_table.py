"""The live table players trust, in Debian's Chromium at a phone, a tablet and a desktop:
the wallet shown is the API's balance after every action and in view at every size; a
betting round the whole table shares, with its countdown, that no player's Deal cuts short
for another.  One ``sidebet serve --test-stack`` process serves the module, with a short
betting countdown."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .harness import Api, Server, finish_round, make_table
from .pages import SIZE_NAMES, Tab, stake
from .test_web_table import SIX, SPLIT_ROUND

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
    reason="the pages do not depend on the database: the browser tests run on SQLite")]

SIZES = SIZE_NAMES
BETTING_SECONDS = 8
SERVER_ENV = {"SIDEBET_BETTING_SECONDS": str(BETTING_SECONDS)}


@pytest.fixture(scope="module")
def web(stacked: Server) -> Server:
    return stacked


@pytest.fixture(scope="module")
def op(stacked: Server) -> Api:
    return Api.operator(stacked.url)


def open_seat(page: Page, url: str, t: int, seat: int) -> None:
    page.goto(f"{url}/tables/{t}")
    expect(page.locator("#conn")).to_have_text("live")
    page.click(f"[data-seat='{seat}'] button.sit")
    expect(page.locator(f"[data-seat='{seat}'].mine")).to_be_visible()


def wallet_is_the_apis(tab: Tab, api: Api) -> None:
    """The wallet shown is the API's balance now, labelled play money, in view."""
    expect(tab.page.locator("#wallet")).to_have_text(api.get("/api/me")["balance"])
    expect(tab.page.locator("#wallet-label")).to_have_text("Play money")
    tab.uncovered("#wallet")


# seat 1: Ah 8h (soft 19); upcard 9s; hole 7c (16); the dealer draws Kd and busts
ROUND = "Ah 9s 8h 7c Kd"


@pytest.mark.parametrize("size", SIZES)
def test_wallet_is_the_apis_after_every_action(web: Server, op: Api, browser: Browser,
                                               size: str) -> None:
    """Stakes leave the wallet as they are placed, side wagers as they settle, the main
    wager at the round's end: after every action the figure shown is the API's, in view
    (the dock) at every size, the same after a reload mid-round."""
    t = make_table(op)
    op.post(f"/api/tables/{t}/test-stack", {"cards": ROUND}, expect=201)
    api = Api.player(web.url, f"live-wallet-{size}")
    tab = Tab(browser, api, size)
    page = tab.page
    open_seat(page, web.url, t, 1)
    wallet_is_the_apis(tab, api)
    assert api.get("/api/me")["balance"] == "1000.00"
    stake(page, "blackjack", "20.00")
    page.click("#bet-place")
    expect(page.locator("button.area.placed[data-area='blackjack']")).to_be_visible()
    expect(page.locator("#wallet")).to_have_text("980.00")
    wallet_is_the_apis(tab, api)
    stake(page, "upcard-luck", "5.00")
    page.click("#act-deal")
    expect(page.locator("#act-stand")).to_be_enabled()
    wallet_is_the_apis(tab, api)
    page.reload()  # the same figure after a reload mid-round
    expect(page.locator("#act-stand")).to_be_enabled()
    wallet_is_the_apis(tab, api)
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # reading the log
    wallet_is_the_apis(tab, api)
    page.click("#act-stand")
    expect(page.locator("#phase")).to_have_text("Round over")
    wallet_is_the_apis(tab, api)
    tab.results_in_view(hands=1, sides=1)  # where the eye is, with the bet panel folded
    tab.axe()
    tab.close()


def ann_deals_bob_watches(web: Server, op: Api, browser: Browser, t: int, name: str,
                          sizes: tuple[str, str]) -> tuple[Api, Api, Tab, Tab]:
    """Two players seated at table ``t`` (seats 1 and 2); the first stakes 10.00 on
    Blackjack and presses Deal."""
    ann, bob = Api.player(web.url, f"{name}-a"), Api.player(web.url, f"{name}-b")
    a, b = Tab(browser, ann, sizes[0]), Tab(browser, bob, sizes[1])
    open_seat(a.page, web.url, t, 1)
    open_seat(b.page, web.url, t, 2)
    stake(a.page, "blackjack", "10.00")
    a.page.click("#act-deal")
    return ann, bob, a, b


# ----- the shared betting round ---------------------------------------------------------


@pytest.mark.parametrize("players", [2, 7])
def test_deal_pressed_together(web: Server, op: Api, browser: Browser, players: int) -> None:
    """Every seated player stakes, then all press Deal in the same instant: every seat's
    bets are placed, the deal includes them all, and no page shows an error."""
    t = make_table(op)
    sizes = SIZES * 3
    apis = [Api.player(web.url, f"live-together-{players}-{i}") for i in range(players)]
    tabs = [Tab(browser, api, sizes[i]) for i, api in enumerate(apis)]
    for i, tab in enumerate(tabs):
        open_seat(tab.page, web.url, t, i + 1)
    for i, tab in enumerate(tabs):
        stake(tab.page, "blackjack", "10.00")
        if i % 2:
            stake(tab.page, "upcard-luck", "5.00")
    for tab in tabs:  # the same instant: no page waits for another's answer
        tab.page.evaluate("document.querySelector('#act-deal').click()")
    for tab in tabs:
        expect(tab.page.locator("#phase")).not_to_have_text("Bets open", timeout=15000)
    seen = op.get(f"/api/tables/{t}/state")
    assert seen["phase"] != "betting"
    for i, (api, tab) in enumerate(zip(apis, tabs, strict=True)):
        seat = seen["seats"][i]
        assert seat["bets"]["blackjack"] == "10.00", seat
        assert ("upcard-luck" in seat["bets"]) == bool(i % 2), seat
        expect(tab.page.locator(f"[data-seat='{i + 1}'] .hand .card")).to_have_count(2)
        assert tab.page.locator("#toast").is_hidden(), tab.page.locator("#toast-text").inner_text()
        wallet_is_the_apis(tab, api)
    for tab in tabs:
        tab.close()


@pytest.mark.parametrize("sizes", [("phone", "tablet"), ("wide", "phone")])
def test_countdown_and_who_is_waited_for(web: Server, op: Api, browser: Browser,
                                         sizes: tuple[str, str]) -> None:
    """Bets open with a countdown every seat sees; one player's Deal waits for the other
    (whose chips stay placed and can still be added to); sitting out is a choice; when the
    countdown ends the house closes the bets."""
    t = make_table(op)
    name = f"live-count-{sizes[0]}"
    ann, _, a, b = ann_deals_bob_watches(web, op, browser, t, name, sizes)
    for tab in (a, b):
        expect(tab.page.locator("#timer")).to_contain_text("Bets close in")
        tab.in_view("#timer")
    expect(a.page.locator("#status")).to_have_text(
        f"You are ready. Waiting for {name}-b (seat 2); bets close when all are done or "
        "the countdown ends.")
    expect(b.page.locator("#bet-decline")).to_be_visible()
    a.axe()
    b.axe()
    if sizes == ("phone", "tablet"):  # the README's: the player ready, the one waited for
        a.shot("betting-round")
        b.shot("betting-round")
    b.page.click("#bet-decline")  # bob sits this one out: every seated player is done
    expect(a.page.locator("[data-seat='1'] .hand .card")).to_have_count(2)
    assert a.page.locator("#toast").is_hidden() and b.page.locator("#toast").is_hidden()
    finish_round({1: ann}, t)
    # the next round: bob bets and walks away from the screen; the countdown closes it
    stake(b.page, "blackjack", "10.00")
    b.page.click("#bet-place")
    expect(b.page.locator("#timer")).to_contain_text("Bets close in")
    expect(a.page.locator("#timer")).to_contain_text("Bets close in")
    expect(b.page.locator("[data-seat='2'] .hand .card")).to_have_count(
        2, timeout=(BETTING_SECONDS + 5) * 1000)
    expect(a.page.locator("[data-seat='2'] .hand .card")).to_have_count(2)
    a.close()
    b.close()


# ----- decision timers ------------------------------------------------------------------


@pytest.mark.parametrize("sizes", [("wide", "phone"), ("tablet", "wide")])
def test_decision_timer_and_the_default_action(web: Server, op: Api, browser: Browser,
                                               sizes: tuple[str, str]) -> None:
    """The seat to act sees its time, the other seat whose turn it is and how long is left;
    when the time runs out each page says which default the house took, and the table log
    records it with the rule."""
    t = make_table(op, time_limit=3)
    op.post(f"/api/tables/{t}/test-stack", {"cards": "Th 9c 8h 7d"}, expect=201)
    name = f"live-timer-{sizes[0]}"
    _, _, a, b = ann_deals_bob_watches(web, op, browser, t, name, sizes)
    b.page.click("#bet-decline")
    expect(a.page.locator("#timer")).to_contain_text("Your time:")
    expect(b.page.locator("#timer")).to_have_attribute("aria-label", re.compile(f"{name}-a: "))
    a.in_view("#timer")
    b.in_view("#timer")
    a.axe()
    said = "Your time ran out: the house stood for you on hand 1 (the table's default action)."
    expect(a.page.locator("#toast-text")).to_have_text(said, timeout=8000)
    expect(b.page.locator("#toast-text")).to_have_text(
        "Seat 1's time ran out: the house stood on hand 1 (the table's default action).")
    a.in_view("#toast-text")
    b.in_view("#toast-text")
    if sizes == ("wide", "phone"):  # the README's: the seat timed out, the one watching
        a.shot("time-ran-out")
        b.shot("time-ran-out")
    expect(a.page.locator("#phase")).to_have_text("Round over")
    expect(b.page.locator("#status")).not_to_contain_text(". .")
    (action,) = [e for e in op.get(f"/api/tables/{t}/events") if e["kind"] == "action"
                 and e["payload"]["auto"]]
    assert action["payload"]["rule"] == (
        "house rule: the time limit of 3 s ran out; the table's default action")
    expect(a.page.locator("#log")).to_contain_text(  # in words, no "house rule:"
        "Seat 1 hand 1 stands (the time limit of 3 s ran out; the table's default action)")
    a.close()
    b.close()


# ----- at the table ---------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_at_the_table(web: Server, op: Api, browser: Browser, size: str) -> None:
    """A natural reads "Blackjack" and the dealer's ace "1 or 11"; the paytables of the
    wagers offered; the player's rounds with readable times; the responsible-gaming link
    with the player's own limits; the betting areas in the table's order, after a server
    restart too."""
    t = make_table(op)
    # round 1: seat 1 Ah Kd, a natural against the dealer's 9c (hole 7s);
    # round 2: seat 1 Th 9h against the dealer's ace
    op.post(f"/api/tables/{t}/test-stack", {"cards": "Ah 9c Kd 7s Th As 9h 7c"}, expect=201)
    api = Api.player(web.url, f"live-at-table-{size}")
    api.http.put("/api/wallet/limits", json={"session_reminder_minutes": 60})
    tab = Tab(browser, api, size)
    page = tab.page
    open_seat(page, web.url, t, 1)
    order = [w["id"] for w in api.get("/api/wagers")]
    areas = page.locator("#areas button.area")
    shown = [areas.nth(i).get_attribute("data-area") for i in range(areas.count())]
    assert shown[0] == "blackjack" and shown[1:] == [w for w in order if w in shown], shown
    expect(page.locator("#rg-limits")).to_have_text(
        "Your limits: a reminder every 60 minutes.")
    expect(page.locator("#rg a")).to_have_attribute("href", "/#limits-panel")
    expect(page.locator("#paytables h3").first).to_contain_text("paytable")
    expect(page.locator("#paytables")).to_contain_text("to 1")
    stake(page, "blackjack", "10.00")
    page.click("#act-deal")
    expect(page.locator("[data-seat='1'] .hand .total")).to_have_text("Blackjack")
    expect(page.locator("#phase")).to_have_text("Round over")
    when = page.locator("#history li time").first
    expect(when).to_be_attached()
    assert not re.match(r"\d{4}-\d\d-\d\dT", when.inner_text()), when.inner_text()
    expect(page.locator("#history li").first).to_contain_text("round 1")
    page.click("#rr-next")
    stake(page, "blackjack", "10.00")
    page.click("#act-deal")
    expect(page.locator("#dealer-total")).to_have_text("1 or 11")
    expect(page.locator("#summary-line")).to_be_hidden()  # the last round's, gone
    tab.axe()
    web.stop()
    web.start()
    page.reload()
    expect(page.locator("#conn")).to_have_text("live")
    again = [areas.nth(i).get_attribute("data-area") for i in range(areas.count())]
    assert again == shown
    tab.close()


@pytest.mark.parametrize("size", SIZES)
def test_refusals_in_plain_words(web: Server, op: Api, browser: Browser, size: str) -> None:
    """A refusal of the page's own (a wager that needs another first) and one of the
    server's (more insurance than half the Blackjack bet) in a player's words, in view, the
    rule behind each one tap away; axe-core with the rule shown."""
    t = make_table(op)
    op.post(f"/api/tables/{t}/test-stack", {"cards": "Th As 9h 7c"}, expect=201)
    api = Api.player(web.url, f"live-plain-{size}")
    tab = Tab(browser, api, size)
    page = tab.page
    open_seat(page, web.url, t, 1)
    stake(page, "blackjack", "10.00")
    expect(page.locator("button.area[data-area='top3'] .lim")).to_have_text(
        "needs Three Card Poker first")  # the rule: on the toast a tap shows
    page.click("button.area[data-area='top3']")
    text = tab.plain("#toast-text", "#toast-why", "#toast-rule", "§ 633c.7(c)")
    assert "Three Card Poker" in text, text
    tab.axe()
    page.click("#act-deal")
    expect(page.locator("#insurance-offer")).to_be_visible()
    page.fill("#ins-amount", "9.00")
    page.click("#insure-btn")  # the server's refusal: at most half of 10.00
    expect(page.locator("#toast-text")).to_contain_text("5.00")
    text = tab.plain("#toast-text", "#toast-why", "#toast-rule", "interpretation 14")
    assert "9.00" in text, text
    tab.axe()
    tab.shot("refusal")
    page.click("#decline-btn")
    expect(page.locator("#act-stand")).to_be_enabled()
    tab.close()


def test_every_refusal_in_words(web: Server, op: Api, browser: Browser) -> None:
    """The refusals the server answers a player's page (bets, limits, decisions out of turn
    or phase, a stale page, another's seat, the wallet, malformed amounts) each in the
    pages' words, with its rule kept behind them."""
    t = make_table(op)
    op.post(f"/api/tables/{t}/test-stack", {"cards": "Th 9c 8h 7d"}, expect=201)
    ann, bob = Api.player(web.url, "live-words-a"), Api.player(web.url, "live-words-b")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    seq = op.get(f"/api/tables/{t}/state")["seq"]
    bets = f"/api/tables/{t}/seats/1/bets"
    asked: list[tuple[Any, int | None]] = [
        (bob.post(f"/api/tables/{t}/seats/1"), None),  # taken
        (ann.post(bets, {"wager": "blackjack", "amount": "5.00"}), 1),  # under the minimum
        (ann.post(bets, {"wager": "blackjack", "amount": "abc"}), 1),
        (ann.post(bets, {"wager": "roulette", "amount": "5.00"}), 1),
        (ann.post(bets, {"wager": "trilux", "amount": "5.00"}), 1),  # no Blackjack wager
        (ann.act(t, 1, "hit", expect=None), 1),  # no hand yet
        (ann.act(t, 1, "press", {"amount": "1.00"}, expect=None), 1),
        (ann.act(t, 1, "insurance", {"amount": "1.00"}, expect=None), 1),
        (ann.post("/api/wallet/withdrawals", {"amount": "99999.00"}), 1),
        (ann.post("/api/wallet/deposits", {"amount": "-5"}), 1),
    ]
    ann.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    asked += [
        (ann.post(bets, {"wager": "trilux", "amount": "50.00"}), 1),  # over twice 10.00
        (ann.post(bets, {"wager": "top3", "amount": "5.00"}), 1),  # Three Card Poker first
        (ann.post(bets, {"wager": "blackjack", "amount": "10.00"}), 1),  # placed already
        (bob.act(t, 1, "deal", expect=None), None),  # not bob's seat
    ]
    ann.act(t, 1, "deal", expect=None)
    asked += [
        (ann.http.post(f"/api/tables/{t}/seats/1/hit", headers={"Expected-Seq": str(seq)}), 1),
        (ann.post(bets, {"wager": "upcard-luck", "amount": "5.00"}), 1),  # bets closed
        (ann.act(t, 1, "split", expect=None), 1),  # 10 and 8
        (ann.act(t, 1, "double", {"amount": "500.00"}, expect=None), 1),
        (ann.act(t, 1, "deal", expect=None), 1),
    ]
    tab = Tab(browser, ann, "phone")
    tab.page.goto(f"{web.url}/tables/{t}")
    said = tab.worded(asked)
    assert said[6]["rule"] and said[11]["rule"] == "§ 633c.7(c)", said
    tab.close()


@pytest.mark.parametrize("size", SIZES)
def test_results_in_view_at_the_round_end(web: Server, op: Api, browser: Browser,
                                          size: str) -> None:
    """Six wagers, the Press collected, a split into three hands and a double: the moment
    the round ends, every result (three hands, five side wagers, the largest win among
    them) and the net are inside the viewport and on top, before any bet panel opens; the
    results go once the next round is dealt."""
    t = make_table(op)
    op.post(f"/api/tables/{t}/test-stack", {"cards": SPLIT_ROUND + " " + ROUND}, expect=201)
    api = Api.player(web.url, f"live-results-{size}")
    tab = Tab(browser, api, size)
    page = tab.page
    open_seat(page, web.url, t, 1)
    for wager, amount in SIX:
        stake(page, wager, amount)
    page.click("#act-deal")
    expect(page.locator("#press-offer")).to_be_visible()
    page.click("#collect-btn")  # the TriLux Deluxe win collected
    expect(page.locator("#act-split")).to_be_enabled()
    for key, hands in (("p", 2), ("p", 3)):
        page.keyboard.press(key)
        expect(page.locator("[data-seat='1'] .hand")).to_have_count(hands)
    page.keyboard.press("d")
    expect(page.locator("[data-seat='1'] .hand.current[data-hand='1']")).to_be_visible()
    page.keyboard.press("s")
    expect(page.locator("[data-seat='1'] .hand.current[data-hand='2']")).to_be_visible()
    page.keyboard.press("s")
    expect(page.locator("#phase")).to_have_text("Round over")
    tab.results_in_view(hands=3, sides=5)
    expect(page.locator("#rr-list [data-rr='top3']")).to_have_text("Top 3: WIN +450.00")
    tab.axe()
    page.keyboard.press("n")
    stake(page, "blackjack", "10.00")
    page.click("#act-deal")
    expect(page.locator("#act-stand")).to_be_enabled()
    expect(page.locator("#round-results")).to_be_hidden()  # the last round's, gone
    expect(page.locator("#summary-line")).to_be_hidden()
    tab.close()
