"""The live table players trust, in Debian's Chromium at a phone, a tablet and a desktop:
the wallet shown is the API's balance after every action and in view at every size.  One
``sidebet serve --test-stack`` process serves the module."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import Browser, Page, expect

from .harness import Api, Server, make_table
from .pages import Tab, stake

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    bool(os.environ.get("SIDEBET_TEST_POSTGRES")),
    reason="the pages do not depend on the database: the browser tests run on SQLite")]

SIZES = ["phone", "tablet", "wide"]


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
    tab.axe()
    tab.close()
