"""Every action and refusal through HTTP against a real ``sidebet serve`` process.

Cases that need particular cards choose a client seed (the server runs with a known test
server seed) whose shuffle deals them: the real commitment/shuffle path, no stacked shoe.
One player at seat 1 receives cards 0 and 2 of the shoe; card 1 is the upcard, card 3 the
hole card, card 4 on the next cards drawn.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import httpx
import pytest

from sidebet.core.cards import Card, Rank
from sidebet.regulation.wagers import get_wager

from .harness import ROOT, Api, Server, choose_client_seed, make_table

pytestmark = pytest.mark.postgres

Cards = list[Card]


def value(c: Card) -> int:
    return c.rank.blackjack_value if c.rank is not Rank.ACE else 11


def ten(c: Card) -> bool:
    return c.rank.blackjack_value == 10 and c.rank is not Rank.ACE


def seated(server: Server, op: Api, name: str, wanted: Callable[[Cards], bool],
           **settings: object) -> tuple[Api, int]:
    """A player alone at seat 1 of a new 6-deck table whose first shoe deals ``wanted``."""
    t = make_table(op, **settings)
    api = Api.player(server.url, name)
    api.post(f"/api/tables/{t}/seats/1", expect=201)
    seed = choose_client_seed(t, 0, 6, wanted)
    api.act(t, 1, "client-seed", {"seed": seed})
    return api, t


def bet(api: Api, t: int, wager: str, amount: str, seat: int = 1, expect: int = 201
        ) -> httpx.Response:
    return api.act(t, seat, "bets", {"wager": wager, "amount": amount}, expect=expect)


def refused(r: httpx.Response, status: int, rule: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert any(v["rule"] == rule for v in body["violations"]), body
    assert body["detail"]


def game_of(api: Api, t: int) -> dict[str, object]:
    games = api.get("/api/games", table=t)
    assert games and games[-1]["status"] == "complete"
    return dict(games[-1])


# ----- accounts, tokens, wallet ---------------------------------------------------------


def test_accounts_and_tokens(server: Server) -> None:
    anon = httpx.Client(base_url=server.url)
    assert anon.post("/api/accounts", json={"name": "acc1", "password": "longenough"}
                     ).status_code == 201
    assert anon.post("/api/accounts", json={"name": "acc1", "password": "longenough"}
                     ).status_code == 409
    assert anon.post("/api/accounts", json={"name": "acc2", "password": "short"}
                     ).status_code == 422
    assert anon.post("/api/tokens", json={"name": "acc1", "password": "wrongwrong"}
                     ).status_code == 401
    assert anon.get("/api/me").status_code == 401
    assert anon.get("/api/me", headers={"Authorization": "Bearer nope"}).status_code == 401
    me = Api.login(server.url, "acc1", "longenough").get("/api/me")
    assert me["name"] == "acc1" and me["role"] == "player" and me["balance"] == "0.00"
    assert anon.post("/api/tokens", json={"name": "house", "password": "anything!"}
                     ).status_code == 401


def test_wallet_is_idempotent(server: Server) -> None:
    api = Api.player(server.url, "wal", deposit=None)
    r = api.http.post("/api/wallet/deposits", json={"amount": "10.00"})
    assert r.status_code == 422 and "Idempotency-Key" in r.json()["detail"]
    first = api.post("/api/wallet/deposits", {"amount": "100.00"}, key="dep-1", expect=201)
    again = api.post("/api/wallet/deposits", {"amount": "100.00"}, key="dep-1", expect=201)
    assert first.json() == again.json() and api.balance() == 100_00
    r = api.post("/api/wallet/deposits", {"amount": "5.00"}, key="dep-1", expect=422)
    assert "different request" in r.json()["detail"]
    for bad in ("-5.00", "0", "1.005", "1e3", "abc"):
        api.post("/api/wallet/deposits", {"amount": bad}, expect=422)
    r = api.post("/api/wallet/withdrawals", {"amount": "100.01"}, key="wd-1", expect=409)
    assert api.post("/api/wallet/withdrawals", {"amount": "100.01"}, key="wd-1",
                    expect=409).json() == r.json()
    api.post("/api/wallet/withdrawals", {"amount": "40.00"}, key="wd-2", expect=201)
    api.post("/api/wallet/withdrawals", {"amount": "40.00"}, key="wd-2", expect=201)
    assert api.balance() == 60_00
    kinds = [(t["kind"], t["amount"]) for t in api.get("/api/wallet")["transactions"]]
    assert kinds == [("deposit", "100.00"), ("withdrawal", "40.00")]


# ----- tables ---------------------------------------------------------------------------


def test_tables_from_rules_submissions(server: Server, op: Api) -> None:
    bad = (ROOT / "examples" / "table-2deck-bad.toml").read_text()
    r = op.post("/api/tables", {"submission": bad}, expect=422)
    rules = [v["rule"] for v in r.json()["violations"]]
    assert rules == ["§ 633c.11(i)", "§ 633b.15(b)", "§ 633c.7(a)"]
    op.post("/api/tables", {"submission": "decks = [1"}, expect=422)
    op.post("/api/tables", {"submission": "colour = 'red'"}, expect=422)
    player = Api.player(server.url, "tab", deposit=None)
    refused(player.post("/api/tables", {"submission": "decks = 6"}), 403, "")
    t = make_table(op)
    info = op.get(f"/api/tables/{t}")
    assert info["submission"]["limits"] == {"min": "10.00", "max": "1000.00"}
    trilux = next(w for w in info["side_wagers"] if w["id"] == "trilux")
    assert trilux["paytable"] == "TLX-3" and trilux["lines"][0]["citation"].startswith("§ 633c")
    assert {w["id"] for w in info["side_wagers"]} == {
        "trilux", "upcard-luck", "three-card-poker", "top3", "blazing7s"}
    assert any(x["id"] == t for x in op.get("/api/tables"))
    op.get("/api/tables/99999", expect=404)


def test_seats(server: Server, op: Api) -> None:
    t = make_table(op)
    ann, bob = Api.player(server.url, "seat-a"), Api.player(server.url, "seat-b")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    refused(bob.post(f"/api/tables/{t}/seats/1"), 409, "house rule")
    refused(ann.post(f"/api/tables/{t}/seats/2"), 409, "house rule")
    bob.post(f"/api/tables/{t}/seats/9", expect=404)
    refused(bob.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"}, expect=None),
            403, "house rule")
    refused(ann.post("/api/wallet/withdrawals", {"amount": "1.00"}), 409, "house rule")
    bet(ann, t, "blackjack", "10.00")
    refused(ann.act(t, 1, "leave", expect=None), 409, "house rule")
    ann.post("/api/wallet/deposits", {"amount": "5.00"}, expect=201)  # while bets are open
    assert ann.get("/api/wallet")["balance"] == "995.00"
    bob.post(f"/api/tables/{t}/seats/2", expect=201)
    state = bob.get(f"/api/tables/{t}/state")
    assert [s["player"] for s in state["seats"][:2]] == ["seat-a", "seat-b"]
    assert {"action": "leave"} in state["seats"][1]["legal"]
    bob.act(t, 2, "leave", expect=201)
    assert bob.get("/api/me")["seat"] is None


def test_the_round_end_frees_a_seat_on_the_balance_after_its_payouts(server: Server,
                                                                    op: Api) -> None:
    """Both players stake their whole wallet against the table minimum: the winner's
    payout, written with the round's last writes, keeps her seat; the loser's is freed."""
    t = make_table(op, 'decks = 6\n[limits]\nmin = "10.00"\n', time_limit=3600)
    win, lose = (Api.player(server.url, n, deposit="10.00") for n in ("end-win", "end-lose"))
    win.post(f"/api/tables/{t}/seats/1", expect=201)
    lose.post(f"/api/tables/{t}/seats/2", expect=201)

    def winner_beats_dealer_beats_loser(c: Cards) -> bool:  # no ace: no blackjack, no insurance
        first, second, dealer = (value(c[0]) + value(c[3]), value(c[1]) + value(c[4]),
                                 value(c[2]) + value(c[5]))  # seats 1, 2, up card and hole
        return all(x.rank is not Rank.ACE for x in c[:6]) and second < 17 <= dealer < first

    win.act(t, 1, "client-seed",
            {"seed": choose_client_seed(t, 0, 6, winner_beats_dealer_beats_loser)})
    bet(win, t, "blackjack", "10.00")
    bet(lose, t, "blackjack", "10.00", seat=2)
    lose.act(t, 2, "deal")
    win.act(t, 1, "deal")
    win.act(t, 1, "stand")
    lose.act(t, 2, "stand")
    state = op.get(f"/api/tables/{t}/state")
    assert not state["round_open"]
    assert win.get("/api/wallet")["balance"] == "20.00"
    assert [s["player"] for s in state["seats"][:2]] == ["end-win", None]
    leave = [e["payload"] for e in op.events(t) if e["kind"] == "leave"]
    assert leave == [{"seat": 2, "account": lose.get("/api/me")["id"],
                      "reason": "no money for the table minimum 10.00"}]


# ----- bets and the deal ----------------------------------------------------------------


def test_bet_refusals_cite_the_rule(server: Server, op: Api) -> None:
    api, t = seated(server, op, "bettor", lambda c: True)
    refused(bet(api, t, "blackjack", "5.00", expect=422), 422, "§ 601a.2")
    refused(bet(api, t, "blackjack", "1000.01", expect=422), 422, "§ 601a.2")
    refused(api.act(t, 1, "deal", expect=None), 409, "§ 633a.6(d)")
    bet(api, t, "blackjack", "10.00")
    refused(bet(api, t, "trilux", "20.01", expect=422), 422, "§ 633c.11(c)")
    refused(bet(api, t, "upcard-luck", "10.01", expect=422), 422, "§ 633b.15(d)")
    refused(bet(api, t, "top3", "5.00", expect=422), 422, "§ 633c.7(c)")
    refused(bet(api, t, "no-such-wager", "5.00", expect=422), 422, "§ 601a.2")
    refused(bet(api, t, "blackjack", "10.00", expect=422), 422, "§ 633a.6(d)")
    poor = Api.player(server.url, "poor", deposit="15.00")
    poor.post(f"/api/tables/{t}/seats/2", expect=201)
    bet(poor, t, "blackjack", "10.00", seat=2)
    r = bet(poor, t, "trilux", "10.00", seat=2, expect=422)
    assert "holds only 5.00" in r.json()["detail"]
    before = api.get(f"/api/tables/{t}/state")["seq"]
    bet(api, t, "trilux", "20.00")
    assert api.get(f"/api/tables/{t}/state")["seq"] == before + 1
    waits = api.act(t, 1, "deal").json()  # seat 2 has neither called the deal nor sat out
    assert waits["record"] == {"step": "ready", "seat": 1, "waiting": [2]}
    assert waits["state"]["phase"] == "betting" and waits["state"]["ready"] == [1]
    bet(poor, t, "upcard-luck", "5.00", seat=2)  # seat 2's bets are still open
    poor.act(t, 2, "deal")  # the last seated player done: the bets close
    refused(bet(api, t, "blackjack", "10.00", expect=409), 409, "§ 633a.6(d)")


def test_state_hides_the_hole_card(server: Server, op: Api) -> None:
    api, t = seated(server, op, "hole", lambda c: not ten(c[1]) and c[1].rank is not Rank.ACE
                    and value(c[0]) + value(c[2]) < 21)
    bet(api, t, "blackjack", "10.00")
    state = api.act(t, 1, "deal").json()["state"]
    _up, hole = state["dealer"]["cards"].split()
    assert hole == "??" and state["phase"] == "play"
    deal = next(r for r in state["records"] if r["step"] == "deal")
    assert deal["cards"].split()[-1] == "??"
    assert "??" in json.dumps(api.get(f"/api/tables/{t}/events"))
    shoes = api.get(f"/api/tables/{t}/shoes")
    assert "server_seed" not in shoes[0] and shoes[0]["sealed"]
    assert len(shoes) == 2 and not shoes[1]["sealed"]  # the next shoe is committed already
    refused(api.post("/api/wallet/deposits", {"amount": "5.00"}), 409, "house rule")
    api.act(t, 1, "stand")
    done = api.get(f"/api/tables/{t}/state")
    assert "??" not in done["dealer"]["cards"] and done["phase"] == "done"


# ----- the round's decisions ------------------------------------------------------------


def test_split_hit_double_stand(server: Server, op: Api) -> None:
    def pair(c: Cards) -> bool:
        return (c[0].rank is Rank.EIGHT and c[2].rank is Rank.EIGHT
                and 2 <= value(c[1]) <= 6 and value(c[4]) + value(c[5]) + 8 < 21)

    api, t = seated(server, op, "splitter", pair)
    bet(api, t, "blackjack", "10.00")
    state = api.act(t, 1, "deal").json()["state"]
    legal = {x["action"]: x for x in state["seats"][0]["legal"]}
    assert legal["split"]["cost"] == "10.00" and set(legal) >= {"hit", "stand", "double"}
    rec = api.act(t, 1, "split").json()["record"]
    assert rec["step"] == "split" and rec["amount"] == "10.00"
    api.act(t, 1, "hit")
    refused(api.act(t, 1, "double", expect=None), 409, "§ 633a.10")
    refused(api.act(t, 1, "split", expect=None), 409, "§ 633a.11")
    api.act(t, 1, "stand")
    refused(api.act(t, 1, "double", {"amount": "10.01"}, expect=None), 422, "§ 633a.10")
    rec = api.act(t, 1, "double", {"amount": "10.00"}).json()["record"]
    assert rec["step"] == "double" and len(rec["cards"].split()) == 1
    refused(api.act(t, 1, "hit", expect=None), 409, "§ 633a.7")
    game = game_of(api, t)
    (me,) = game["players"]  # type: ignore[misc]
    assert me["total_bet"] == "30.00"
    assert api.balance() == 1000_00 + round(float(me["net"]) * 100)
    assert me["credits_end"] == f"{api.balance() // 100}.{api.balance() % 100:02d}"


def trilux_wins(c: Cards) -> bool:
    w = get_wager("trilux")
    return (w.outcome(c[0], c[2], c[1]) != "lose" and not ten(c[1])
            and c[1].rank is not Rank.ACE)


def test_press(server: Server, op: Api) -> None:
    api, t = seated(server, op, "presser", trilux_wins)
    bet(api, t, "blackjack", "10.00")
    bet(api, t, "trilux", "10.00")
    state = api.act(t, 1, "deal").json()["state"]
    assert state["phase"] == "press"
    (offer,) = state["seats"][0]["legal"]
    assert offer["action"] == "press" and offer["unit"] == "1.00"
    refused(api.act(t, 1, "hit", expect=None), 409, "§ 633a.7")
    refused(api.act(t, 1, "press", {"amount": "0.50"}, expect=None), 422, "§ 633c.11(e)")
    too_much = f"{int(offer['max'].split('.')[0]) + 1}.00"
    refused(api.act(t, 1, "press", {"amount": too_much}, expect=None), 422, "§ 633c.11(e)")
    rec = api.act(t, 1, "press", {"amount": "1.00"}).json()
    assert rec["record"] == {"step": "press", "seat": 1, "amount": "1.00",
                             "citation": "§ 633c.11(e)"}
    assert rec["state"]["seats"][0]["hands"][0]["press"] == "1.00"
    refused(api.act(t, 1, "press", {"amount": "0.00"}, expect=None), 409, "§ 633c.11(e)")


def test_insurance(server: Server, op: Api) -> None:
    api, t = seated(server, op, "insurer", lambda c: c[1].rank is Rank.ACE
                    and value(c[0]) + value(c[2]) < 21 and not ten(c[3]))
    bet(api, t, "blackjack", "10.00")
    state = api.act(t, 1, "deal").json()["state"]
    assert state["phase"] == "insurance"
    assert state["seats"][0]["legal"] == [{"action": "insurance", "max": "5.00"}]
    refused(api.act(t, 1, "insurance", {"amount": "5.01"}, expect=None), 422,
            "interpretation 14")
    api.act(t, 1, "insurance", {"amount": "5.00"})
    refused(api.act(t, 1, "insurance", {"amount": "0"}, expect=None), 409, "interpretation 14")
    assert api.get(f"/api/tables/{t}/state")["phase"] == "play"


def test_surrender(server: Server, op: Api) -> None:
    api, t = seated(server, op, "quitter", lambda c: ten(c[1]) and c[3].rank is not Rank.ACE
                    and value(c[0]) + value(c[2]) == 16 and c[0].rank is not Rank.ACE
                    and c[2].rank is not Rank.ACE)
    bet(api, t, "blackjack", "10.00")
    api.act(t, 1, "deal")
    api.act(t, 1, "surrender")
    refused(api.act(t, 1, "surrender", expect=None), 409, "interpretation 14")
    assert api.balance() == 1000_00 - 5_00
    assert game_of(api, t)["outcome"]["hands"][0]["result"] == "surrender"  # type: ignore[index]


def test_turns_and_other_seats(server: Server, op: Api) -> None:
    t = make_table(op)
    ann, bob = Api.player(server.url, "turn-a"), Api.player(server.url, "turn-b")
    ann.post(f"/api/tables/{t}/seats/1", expect=201)
    bob.post(f"/api/tables/{t}/seats/2", expect=201)
    seed = choose_client_seed(t, 0, 6, lambda c: 2 <= value(c[2]) <= 9
                              and value(c[0]) + value(c[3]) < 21
                              and value(c[1]) + value(c[4]) < 21)
    bob.act(t, 2, "client-seed", {"seed": seed})
    bet(ann, t, "blackjack", "10.00")
    bet(bob, t, "blackjack", "10.00", seat=2)
    refused(bob.act(t, 1, "deal", expect=None), 403, "house rule")
    bob.act(t, 2, "deal")
    ann.act(t, 1, "deal")  # every seated player done: the bets close
    refused(bob.act(t, 2, "hit", expect=None), 409, "§ 633a.7")
    refused(bob.act(t, 1, "stand", expect=None), 403, "house rule")
    ann.act(t, 1, "stand")
    bob.act(t, 2, "stand")
    assert ann.get(f"/api/tables/{t}/state")["phase"] == "done"
    assert "own games" in bob.get("/api/games", expect=403, player="turn-a")["detail"]
    assert len(bob.get("/api/games", player="turn-b")) == 1
    games = Api.operator(bob.url).get("/api/games", player="turn-a", table=t)
    assert len(games) == 1
    rec = games[0]
    for field in ("game", "table", "started_at", "ended_at", "status", "game_identifier",
                  "game_version", "algorithm", "paytables", "players", "outcome", "history"):
        assert field in rec
    assert {p["player"] for p in rec["players"]} == {"turn-a", "turn-b"}
    bob.get(f"/api/games/{rec['game']}")
    stranger = Api.player(bob.url, "turn-c", deposit=None)
    stranger.get(f"/api/games/{rec['game']}", expect=403)
    assert Api.operator(bob.url).get("/api/games", since="2999-01-01T00:00:00Z") == []


def test_idempotent_actions(server: Server, op: Api) -> None:
    api, t = seated(server, op, "retrier", lambda c: True)
    first = bet(api, t, "blackjack", "10.00").json()
    again = api.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"}, key="same",
                    expect=None)
    repeat = api.act(t, 1, "bets", {"wager": "blackjack", "amount": "10.00"}, key="same",
                     expect=None)
    assert again.status_code == 422 and repeat.json() == again.json()
    seq = api.get(f"/api/tables/{t}/state")["seq"]
    r = api.http.post(f"/api/tables/{t}/seats/1/deal", headers={"Expected-Seq": str(seq - 1)})
    refused(r, 409, "house rule")
    assert "moved on" in r.json()["detail"]
    r = api.http.post(f"/api/tables/{t}/seats/1/deal",
                      headers={"Expected-Seq": str(seq), "Idempotency-Key": "deal-once"})
    assert r.status_code == 201
    head = api.get(f"/api/tables/{t}/state")["seq"]
    assert api.http.post(f"/api/tables/{t}/seats/1/deal", headers={
        "Expected-Seq": str(seq), "Idempotency-Key": "deal-once"}).json() == r.json()
    assert api.get(f"/api/tables/{t}/state")["seq"] == head
    assert first["record"]["amount"] == "10.00"


def test_reconciliation(server: Server, op: Api) -> None:
    rec = op.get("/api/reconcile")
    assert rec["conserved"] and rec["negative_balances"] == 0
    Api.player(server.url, "not-op", deposit=None).get("/api/reconcile", expect=403)


def test_state_waits_for_the_seats_own_news(server: Server, op: Api) -> None:
    """``?after=SEQ&seat=N`` answers when that seat's legal actions (or the seated players)
    change, not at another seat's side bet, which does answer a plain ``?after``."""
    t = make_table(op)
    a, b = Api.player(server.url, "wait-a"), Api.player(server.url, "wait-b")
    for seat, api in ((1, a), (2, b)):
        api.post(f"/api/tables/{t}/seats/{seat}", expect=201)
        api.act(t, seat, "bets", {"wager": "blackjack", "amount": "10.00"})
    seq = b.get(f"/api/tables/{t}/state")["seq"]
    got: dict[str, dict[str, object]] = {}
    waiters = [threading.Thread(target=lambda k=k, q=q: got.__setitem__(
        k, b.get(f"/api/tables/{t}/state", after=seq, **q)))
        for k, q in (("plain", {}), ("seat", {"seat": 2}))]
    for w in waiters:
        w.start()
    time.sleep(1.0)  # both waiting
    side = a.act(t, 1, "bets", {"wager": "trilux", "amount": "10.00"}).json()["seq"]
    waiters[0].join(15)
    assert got["plain"]["seq"] == side
    time.sleep(0.5)
    assert "seat" not in got and waiters[1].is_alive()
    dealt = a.act(t, 1, "deal").json()["seq"]
    waiters[1].join(15)
    shown = got["seat"]
    assert isinstance(shown["seq"], int) and shown["seq"] >= dealt > side
