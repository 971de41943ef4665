"""The web table in a real browser: Playwright drives Debian's Chromium (``make test`` installs
it with ``scripts/ensure-chromium.sh``; Playwright never downloads a browser) against a real
``sidebet serve`` process.

Cases that need particular cards stack the table's first shoe through the server's test-only
setting (``--test-stack``); the fairness case uses a real, unstacked shuffle.  With
``SIDEBET_SCREENSHOTS=DIR`` the screenshots of the README are written to ``DIR``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from .harness import ONE_DECK_SHORT, Api, Server, database_url, finish_round, make_table

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
    reason="the pages do not depend on the database: the browser tests run once, on SQLite "
           "(the routes they use run on PostgreSQL in test_web_api.py)")]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
SHOTS = os.environ.get("SIDEBET_SCREENSHOTS")
WIDE = {"width": 1280, "height": 800}

# Records the layout shifts that no input caused (Chromium's Layout Instability API).
CLS = """
window.__shifts = [];
new PerformanceObserver(list => { for (const e of list.getEntries())
  if (!e.hadRecentInput) window.__shifts.push(e.value); }).observe({type: "layout-shift", buffered: true});
"""


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(database_url(tmp_path_factory.mktemp("web")), extra=["--test-stack"]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def op(web: Server) -> Api:
    return Api.operator(web.url)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Tab:
    """A browser context and its page, collecting the page's script errors."""

    def __init__(self, browser: Browser, api: Api | None = None, viewport: Any = None) -> None:
        self.context: BrowserContext = browser.new_context(viewport=viewport or WIDE)
        self.context.add_init_script(CLS)
        if api is not None:
            token = api.http.headers["Authorization"].split()[1]
            self.context.add_init_script(
                f"localStorage.setItem('sidebet.token', {json.dumps(token)});"
                f"localStorage.setItem('sidebet.name', {json.dumps(api.name)});")
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors


def stack(op: Api, t: int, cards: str) -> None:
    op.post(f"/api/tables/{t}/test-stack", {"cards": cards}, expect=201)


def shot(page: Page, name: str, full_page: bool = False) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / name), full_page=full_page)


def open_table(page: Page, url: str, t: int, seat: int | None = None) -> None:
    page.goto(f"{url}/tables/{t}")
    expect(page.locator("#seats .seat")).to_have_count(7)
    expect(page.locator("#conn")).to_have_text("live")
    if seat is not None:
        page.click(f"[data-seat='{seat}'] button.sit")
        expect(page.locator(f"[data-seat='{seat}'].mine")).to_be_visible()


def bet(page: Page, wager: str, amount: str) -> None:
    page.fill(f"#amount-{wager}", amount)
    page.click(f"#bet-{wager}")
    expect(page.locator(f"form.area.placed[data-area='{wager}']")).to_be_visible()


def state(api: Api, t: int) -> dict[str, Any]:
    return dict(api.get(f"/api/tables/{t}/state"))


# ----- the whole round of one player ----------------------------------------------------


def test_sign_up_bet_press_split_double(web: Server, op: Api, browser: Browser) -> None:
    """Sign up, deposit, sit, bet Blackjack and side wagers (chips and typed amounts), see
    TriLux Deluxe win with its paytable line, take the exact advice, press part of the win,
    split and double by keyboard; the wallet ends where the ledger says."""
    from sidebet.exact.par import par_sheet

    two = 'name = "Two-deck table"\ndecks = 2\n[limits]\nmin = "5.00"\n[side_wagers.trilux]\n' \
          'paytable = "TLX-2"\n'
    t2 = make_table(op, two)
    t = make_table(op)
    # seat 1: 8h 8d; upcard 8s; hole 9c; then 3c (split hand 1), Td (its double), 9h (hand 2)
    stack(op, t, "8h 8s 8d 9c 3c Td 9h")
    tab = Tab(browser)
    page = tab.page
    page.goto(web.url + "/")
    page.fill("#name", "web-ann")
    page.fill("#password", "password-web-ann")
    page.click("#signup-btn")
    expect(page.locator("#balance")).to_have_text("0.00")
    page.fill("#deposit-amount", "1000.00")
    page.dblclick("#deposit-btn")  # one deposit: the form keeps its Idempotency-Key
    expect(page.locator("#balance")).to_have_text("1000.00")
    edge = str(par_sheet("trilux", 6, "TLX-3").house_edge)
    card = page.locator(f"[data-table='{t}']")
    expect(card.locator("[data-edge='trilux']")).to_contain_text(edge, timeout=90_000)
    expect(card.locator("[data-edge='blackjack']")).to_contain_text("%")
    small = page.locator(f"[data-table='{t2}']")
    expect(small.locator("[data-wager='upcard-luck']")).to_contain_text(
        "§ 633b.15(b): Upcard Luck may be offered only with 4, 6 or 8 decks, not 2")
    expect(small.locator("[data-wager='top3']")).to_contain_text("§ 633c.7(a)")
    expect(small).to_contain_text("7 of 7 seats free")
    shot(page, "lobby.png", full_page=True)

    card.locator("a.open").click()
    expect(page.locator("#conn")).to_have_text("live")
    page.click("[data-seat='1'] button.sit")
    expect(page.locator("[data-seat='1'].mine")).to_be_visible()
    assert page.locator("#act-hit").is_disabled() and page.locator("#act-deal").is_disabled()
    bet(page, "blackjack", "10.00")
    page.click("button.chipbtn[aria-label='chip 5.00']")
    page.fill("#amount-trilux", "")
    page.click("[data-area='trilux'] .add-chip")
    page.click("[data-area='trilux'] .add-chip")
    expect(page.locator("#amount-trilux")).to_have_value("10.00")
    page.click("#bet-trilux")
    expect(page.locator("form.area.placed[data-area='trilux']")).to_be_visible()
    bet(page, "upcard-luck", "10.00")
    bet(page, "three-card-poker", "10.00")
    bet(page, "top3", "10.00")
    expect(page.locator("[data-seat='1'] [data-bet='top3']")).to_be_visible()
    page.keyboard.press("n")  # deal
    # the side wagers settle before the dealer checks for Blackjack; the Press is offered
    expect(page.locator("#press-offer")).to_be_visible()
    expect(page.locator("[data-seat='1'] [data-side='trilux']")).to_have_text("TLX WIN +150.00")
    trilux = page.locator("#my-results [data-result='trilux']")
    expect(trilux).to_contain_text("WIN")
    expect(trilux).to_contain_text("Three-of-a-kind, 15 to 1 (paytable TLX-3)")
    expect(trilux).to_contain_text("§ 633c.11(h)")
    expect(trilux).to_contain_text("+150.00")
    expect(page.locator("[data-seat='1'] [data-side='upcard-luck']")).to_contain_text("LOSE")
    expect(page.locator("#dealer-cards .card")).to_have_count(2)
    expect(page.locator("#dealer-cards .card.back")).to_have_count(1)
    expect(page.locator("#dealer-cards .card").first).to_have_attribute("aria-label", "8 of spades")
    assert page.locator("#act-hit").is_disabled()
    page.keyboard.press("a")
    expect(page.locator("#advice")).to_contain_text("Exact advice:", timeout=60_000)
    expect(page.locator("#advice")).to_contain_text("per unit pressed")
    page.fill("#press-units", "4")
    expect(page.locator("#press-amount")).to_have_text("4.00")
    shot(page, "press-offer.png")
    page.click("#press-btn")
    expect(page.locator("#act-split")).to_be_enabled()
    expect(page.locator("#act-split")).to_contain_text("14.00")  # the server's split cost
    page.keyboard.press("p")  # split
    expect(page.locator("[data-seat='1'] .hand")).to_have_count(2)
    expect(page.locator("#act-double")).to_be_enabled()
    expect(page.locator("#act-split")).to_be_disabled()
    shot(page, "table-mid-round.png")
    page.keyboard.press("d")  # double the first split hand
    expect(page.locator("[data-seat='1'] .hand.current[data-hand='1']")).to_be_visible()
    page.keyboard.press("s")
    expect(page.locator("#phase")).to_have_text("Round over")
    expect(page.locator("[data-seat='1'] [data-hand='0'] .result")).to_have_text("WIN")
    expect(page.locator("[data-seat='1'] [data-hand='1'] .result")).to_have_text("PUSH")

    api = Api.login(web.url, "web-ann", "password-web-ann")
    (game,) = api.get("/api/games", table=t)
    (me,) = game["players"]
    assert me["credits_start"] == "1000.00" and me["credits_end"] == api.get("/api/me")["balance"]
    assert api.get("/api/wallet")["balance"] == me["credits_end"]
    expect(page.locator("#wallet")).to_have_text(me["credits_end"])
    steps = [r["step"] for r in game["history"]["records"]]
    assert steps.count("press") == 1 and steps.count("split") == 1 and steps.count("double") == 1
    press = next(r for r in game["history"]["records"] if r["step"] == "press")
    assert press["amount"] == "4.00"
    tab.close()


def test_refused_bet_shows_its_citation(web: Server, op: Api, browser: Browser) -> None:
    t = make_table(op)
    tab = Tab(browser, Api.player(web.url, "web-refused"))
    page = tab.page
    open_table(page, web.url, t, seat=1)
    page.fill("#amount-blackjack", "1000.01")
    page.click("#bet-blackjack")
    expect(page.locator("#err-blackjack")).to_contain_text("§ 601a.2")
    bet(page, "blackjack", "10.00")
    page.fill("#amount-trilux", "25.00")
    page.click("#bet-trilux")
    expect(page.locator("#err-trilux")).to_have_text(
        "§ 633c.11(c): TriLux Deluxe wager 25.00 exceeds twice the Blackjack wager 10.00")
    expect(page.locator("form.area.placed[data-area='trilux']")).to_have_count(0)
    page.fill("#amount-top3", "5.00")
    page.click("#bet-top3")
    expect(page.locator("#err-top3")).to_contain_text("§ 633c.7(c)")
    tab.close()


# ----- two players, live --------------------------------------------------------------


def test_two_contexts_see_each_other(web: Server, op: Api, browser: Browser) -> None:
    """Two browser contexts at one table see each other's bets and actions live; no layout
    shift when the cards arrive; neither can act for the other's seat, even by crafting a
    request."""
    t = make_table(op)
    # seat 1: 9h 7h (16); seat 2: 9d 8d (17); upcard 6c; hole Ts; the dealer draws Ks
    stack(op, t, "9h 9d 6c 7h 8d Ts Ks")
    ann, bob = Api.player(web.url, "web-two-a"), Api.player(web.url, "web-two-b")
    a, b = Tab(browser, ann), Tab(browser, bob)
    open_table(a.page, web.url, t, seat=1)
    open_table(b.page, web.url, t, seat=2)
    expect(a.page.locator("[data-seat='2'] .player")).to_have_text("web-two-b")
    bet(a.page, "blackjack", "10.00")
    expect(b.page.locator("[data-seat='1'] [data-bet='blackjack']")).to_be_visible()
    bet(b.page, "blackjack", "20.00")
    expect(a.page.locator("[data-seat='2'] [data-bet='blackjack']")).to_contain_text("20")
    before = b.page.locator("#seats").bounding_box()
    settle = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    b.page.evaluate(settle)
    b.page.wait_for_timeout(200)  # layout-shift entries of earlier renders arrive late
    b.page.evaluate("window.__shifts = []")
    a.page.click("#act-deal")
    expect(b.page.locator("[data-seat='1'] .card")).to_have_count(2)
    expect(b.page.locator("#status")).to_contain_text("Seat 1 (web-two-a) to act")
    assert b.page.locator("#seats").bounding_box() == before
    b.page.evaluate(settle)
    b.page.wait_for_timeout(200)
    assert b.page.evaluate("window.__shifts.reduce((x, y) => x + y, 0)") < 0.01
    assert b.page.locator("#act-stand").is_disabled()
    # a crafted request for the other seat is refused, with the reason
    answer = b.page.evaluate("""async t => {
        const r = await fetch(`/api/tables/${t}/seats/1/stand`, {method: "POST",
          headers: {Authorization: `Bearer ${localStorage.getItem("sidebet.token")}`,
                    "Idempotency-Key": "crafted-1"}});
        return [r.status, await r.json()];
    }""", t)
    assert answer[0] == 403 and "not yours" in answer[1]["detail"]
    a.page.keyboard.press("s")
    expect(b.page.locator("#act-stand")).to_be_enabled()
    expect(a.page.locator("#status")).to_contain_text("Seat 2 (web-two-b) to act")
    b.page.keyboard.press("s")
    for tab in (a, b):
        expect(tab.page.locator("#phase")).to_have_text("Round over")
        expect(tab.page.locator("#dealer-cards .card")).to_have_count(3)
        expect(tab.page.locator("[data-seat='2'] .result")).to_have_text("WIN")
    expect(a.page.locator("#log")).to_contain_text(re.compile(r"Seat 2 .*stand"))
    assert ann.balance() == 1010_00 and bob.balance() == 1020_00
    a.close()
    b.close()


# ----- reload, stale pages, double clicks --------------------------------------------------


def test_reload_mid_round_resumes(web: Server, op: Api, browser: Browser) -> None:
    t = make_table(op)
    stack(op, t, "Th 5c 7d 9s Kc")  # 17 against 5; the dealer's 14 draws Kc and busts
    tab = Tab(browser, Api.player(web.url, "web-reload"))
    page = tab.page
    open_table(page, web.url, t, seat=1)
    bet(page, "blackjack", "10.00")
    page.click("#act-deal")
    expect(page.locator("#act-stand")).to_be_enabled()
    page.reload()
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("[data-seat='1'] .card")).to_have_count(2)
    expect(page.locator("#dealer-cards .card.back")).to_have_count(1)
    expect(page.locator("#act-stand")).to_be_enabled()
    expect(page.locator("[data-seat='1'] [data-bet='blackjack']")).to_be_visible()
    page.click("#act-stand")
    expect(page.locator("[data-seat='1'] .result")).to_have_text("WIN")
    tab.close()


def test_double_click_acts_once(web: Server, op: Api, browser: Browser) -> None:
    t = make_table(op)
    stack(op, t, "2h 6c 3d Ts 4s 5h")  # 5 against 6: hits are safe
    api = Api.player(web.url, "web-dbl")
    tab = Tab(browser, api)
    page = tab.page
    open_table(page, web.url, t, seat=1)
    page.fill("#amount-blackjack", "10.00")
    page.dblclick("#bet-blackjack")
    expect(page.locator("form.area.placed[data-area='blackjack']")).to_be_visible()
    page.dblclick("#act-deal")
    expect(page.locator("#act-hit")).to_be_enabled()
    page.dblclick("#act-hit")
    expect(page.locator("[data-seat='1'] .card")).to_have_count(3)
    page.wait_for_timeout(300)
    records = state(api, t)["records"]
    assert [r["step"] for r in records].count("hit") == 1
    assert [r["step"] for r in records].count("bet") == 1
    assert [r["step"] for r in records].count("no-more-bets") == 1
    expect(page.locator("[data-seat='1'] .card")).to_have_count(3)
    # the page's own actions reach its log through the stream, once each
    expect(page.locator("#log li", has_text=re.compile(r"^Seat 1 .*hit"))).to_have_count(1)
    tab.close()


def test_stale_page_is_told_the_round_moved_on(web: Server, op: Api, browser: Browser) -> None:
    t = make_table(op)
    stack(op, t, "Th 5c 7d 9s Kc")
    api = Api.player(web.url, "web-stale")
    tab = Tab(browser, api)
    page = tab.page
    # this page's live stream never connects: it goes stale
    page.route_web_socket(re.compile(r".*/ws.*"), lambda ws: None)
    page.goto(f"{web.url}/tables/{t}")
    page.click("[data-seat='1'] button.sit")
    expect(page.locator("[data-seat='1'].mine")).to_be_visible()
    bet(page, "blackjack", "10.00")
    page.click("#act-deal")
    expect(page.locator("#act-hit")).to_be_enabled()
    # elsewhere the same player finishes the round and starts the next one
    api.act(t, 1, "stand")
    api.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
    seq = state(api, t)["seq"]
    page.click("#act-hit")
    expect(page.locator("#error")).to_contain_text(
        f"the table moved on: its last event is {seq}, not ")
    expect(page.locator("#error")).to_contain_text("The page now shows the table as it stands")
    expect(page.locator("#round")).to_have_text("2")
    assert state(api, t)["seq"] == seq  # nothing was done
    tab.close()


def test_insurance_offer_and_a_lost_connection(web: Server, op: Api, browser: Browser) -> None:
    """Insurance with its exact advice; the stream drops, the table moves on meanwhile, and
    the page reconnects from the last event it saw and catches up."""
    t = make_table(op)
    stack(op, t, "9h As 7d 5c 4d")  # 16 against an ace; no dealer Blackjack; A 5 4 stands
    api = Api.player(web.url, "web-ins")
    tab = Tab(browser, api)
    page = tab.page
    sockets: list[Any] = []

    def through(ws: Any) -> None:
        ws.connect_to_server()
        sockets.append(ws)

    page.route_web_socket(re.compile(r".*/ws.*"), through)
    open_table(page, web.url, t, seat=1)
    bet(page, "blackjack", "10.00")
    page.click("#act-deal")
    expect(page.locator("#insurance-offer")).to_be_visible()
    expect(page.locator("#ins-amount")).to_have_value("5.00")
    assert page.locator("#act-hit").is_disabled()
    page.keyboard.press("a")
    expect(page.locator("#advice")).to_contain_text("Exact advice: DECLINE", timeout=60_000)
    page.keyboard.press("c")  # decline
    expect(page.locator("#insurance-offer")).to_be_hidden()
    expect(page.locator("#act-stand")).to_be_enabled()
    sockets[0].close()
    expect(page.locator("#conn")).to_have_text("reconnecting")
    api.act(t, 1, "stand")  # elsewhere, while this page is cut off
    expect(page.locator("#conn")).to_have_text("live")
    expect(page.locator("#phase")).to_have_text("Round over")
    expect(page.locator("[data-seat='1'] .result")).to_have_text("LOSE")
    expect(page.locator("#dealer-cards .card")).to_have_count(3)
    expect(page.locator("#log li", has_text=re.compile(r"^Seat 1 .*stand"))).to_have_count(1)
    assert len(sockets) == 2
    tab.close()


# ----- fairness -------------------------------------------------------------------------


def test_fairness_view_verifies_a_finished_shoe(web: Server, op: Api, browser: Browser) -> None:
    """A real (unstacked) shuffle: after the shoe, the browser recomputes the commitment and
    the HMAC Fisher–Yates shuffle with Web Crypto and finds every card dealt; each round can
    be replayed step by step."""
    t = make_table(op, ONE_DECK_SHORT)
    api = Api.player(web.url, "web-fair")
    api.post(f"/api/tables/{t}/seats/1", expect=201)
    api.act(t, 1, "client-seed", {"seed": "my seed ✓"})
    rounds = 0
    while not api.get(f"/api/tables/{t}/shoes")[0]["revealed"]:
        api.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"})
        api.act(t, 1, "deal")
        finish_round({1: api}, t)
        rounds += 1
        assert rounds < 10
    tab = Tab(browser, api)
    page = tab.page
    page.goto(f"{web.url}/tables/{t}/fair")
    page.click("button.verify-btn[data-shoe='0']")
    expect(page.locator("[data-check='commitment']")).to_contain_text("✓ Commitment verified",
                                                                      timeout=30_000)
    expect(page.locator("[data-check='rounds']")).to_contain_text("✓ Shuffle verified")
    expect(page.locator("[data-check='rounds']")).to_contain_text(f"of your {rounds} round")
    page.locator("button.replay-btn").first.click()
    first = page.locator("[data-step]").inner_text()
    assert "bet" in first
    page.keyboard.press("Enter")  # the focused "Next step" button
    page.keyboard.press("Enter")
    expect(page.locator("[data-step]")).to_have_attribute("data-step", "2")
    expect(page.locator("#replay h3")).to_contain_text("step 3 of")
    tab.close()


# ----- a phone ------------------------------------------------------------------------


def test_phone_width(web: Server, op: Api, browser: Browser) -> None:
    t = make_table(op)
    stack(op, t, "Ah 5c Kd 9s")
    tab = Tab(browser, Api.player(web.url, "web-phone"), viewport={"width": 390, "height": 844})
    page = tab.page
    open_table(page, web.url, t, seat=3)
    bet(page, "blackjack", "10.00")
    page.click("#act-deal")
    expect(page.locator("[data-seat='3'] .result")).to_have_text("BLACKJACK")
    expect(page.locator("#wallet")).to_have_text("1015.00")  # paid 3 to 2, shown with the result
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "table-phone.png")
    page.goto(web.url + "/")
    expect(page.locator(f"[data-table='{t}']")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    tab.close()
