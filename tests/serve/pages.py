"""What the browser tests measure on a page: elements inside the viewport, nothing clipped
(each element's box inside its container's, no region that scrolls inside itself),
axe-core (vendored from npm, never fetched at run time) with no serious or critical
violation, the layout shift (CLS) since the page opened, and the requests an action made.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from .harness import Api

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1024, "height": 768}
SIZES = {"wide": WIDE, "phone": PHONE, "tablet": TABLET}
SIZE_NAMES = ("phone", "tablet", "wide")
"""The sizes every browser test runs at: a phone, a tablet, a desktop."""
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
SHOTS = os.environ.get("SIDEBET_SCREENSHOTS")

# Records the layout shifts that no input caused (Chromium's Layout Instability API), with
# their times and the elements that moved: CLS is the largest session window's sum (shifts
# less than 1 s apart, the window at most 5 s long), as the Web Vitals define it.  Chromium
# leaves out a shift within 500 ms of an input's time stamp.  The page's answer to an input
# is left out however long the server took: a shift within 500 ms of the page's handling
# of an input, while a request the input made is under way, or within 500 ms of its answer
# (a request started in those times is the input's too: a Deal sends the bets, then the
# deal).  What the table's own news moves (another seat's play, a countdown) still counts.
CLS = """
window.__shifts = [];
window.__handled = -1e9;
window.__asked = [];  // the input's requests: [sent, answered (null while under way)]
for (const type of ["keydown", "pointerdown", "mousedown", "touchstart"])
  addEventListener(type, () => { window.__handled = performance.now(); }, true);
const __answering = t => t - window.__handled < 500 ||
  window.__asked.some(([sent, done]) => sent <= t && (done === null || t - done < 500));
const __fetch = window.fetch;
window.fetch = function (...args) {
  const now = performance.now();
  if (!__answering(now)) return __fetch.apply(this, args);
  const asked = [now, null];
  window.__asked.push(asked);
  return __fetch.apply(this, args).finally(() => { asked[1] = performance.now(); });
};
const __name = n => !n ? "?" : n.nodeType !== 1 ? "#text in " + __name(n.parentElement) :
  n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") +
  (typeof n.className === "string" && n.className.trim() ? "." + n.className.trim().split(/\\s+/).join(".") : "");
new PerformanceObserver(list => { for (const e of list.getEntries())
  if (!e.hadRecentInput && !__answering(e.startTime))
    window.__shifts.push([e.startTime, e.value, (e.sources || []).map(x =>
      `${__name(x.node)} ${Math.round(x.previousRect.y)}->${Math.round(x.currentRect.y)}`).join(", ")]);
}).observe({type: "layout-shift", buffered: true});
"""

# Every visible element of `root` that its container cuts: a box outside the box of an
# ancestor that clips (overflow other than visible), or content wider or taller than a
# box that clips it (a cut text, an inner scroll region).  The table log alone scrolls: a
# focusable list of every event, kept to its panel's height.
CLIPPED = """
root => {
  const out = [];
  const clips = e => { const s = getComputedStyle(e); return s.overflowX !== "visible" || s.overflowY !== "visible"; };
  const name = e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().replace(/\\s+/g, ".") : "");
  for (const e of document.querySelectorAll(root + ", " + root + " *")) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || e.closest("[hidden]") || e.closest(".sr") || e.closest("#log li")) continue;
    if (clips(e) && e.id !== "log" && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1))
      out.push(`${name(e)} scrolls or cuts its content (${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight})`);
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (!clips(a)) continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1)
        out.push(`${name(e)} is cut by ${name(a)}`);
      break;
    }
  }
  return out;
}
"""

# Each element's box against its container's (the seat, the dock): inside, not over it.
OUTSIDE = """
([sel, box]) => {
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    const c = e.closest(box);
    if (!c) continue;
    const r = e.getBoundingClientRect(), b = c.getBoundingClientRect();
    if (r.width && (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1))
      out.push(`${sel} #${[...document.querySelectorAll(sel)].indexOf(e)} outside ${box}`);
  }
  return out;
}
"""


# Each element of a selector: its box inside the viewport, and the element the browser finds
# at its centre is itself or inside it (not the sticky dock, nothing drawn over it).
COVERED = """
sel => {
  const out = [];
  const all = document.querySelectorAll(sel);
  if (!all.length) out.push(`${sel}: none shown`);
  all.forEach((e, i) => {
    const r = e.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (!r.width || r.left < -1 || r.top < -1 || r.right > innerWidth + 1 || r.bottom > innerHeight + 1) {
      out.push(`${sel} #${i} at ${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.right)},${Math.round(r.bottom)} is outside ${innerWidth}x${innerHeight}`);
      return;
    }
    const top = document.elementFromPoint(x, y);
    if (!top || !(top === e || e.contains(top)))
      out.push(`${sel} #${i} is covered by ${top ? top.tagName.toLowerCase() + (top.id ? "#" + top.id : "") + "." + top.className : "nothing"}`);
  });
  return out;
}
"""


# What no player or dealer should read as a message's main text: citations, the engine's
# or the server's internal words, event numbers, pydantic's and Python's phrasing.
INTERNAL = re.compile(r"house rule:|moved on|last event|\bevent \d|§|interpretation \d|"
                      r"\bbody\.|\(phase |Input should|String should|[Ff]ield required|"
                      r"HTTP \d|Traceback|undefined|\bnull\b|NaN|\[object|\bseat \d+ (?:has|holds)")


# The pages' one wording of a refusal (common.js's plainWords), run in the page.
WORDS = """async refusals => {
  const m = await import("/static/common.js");
  return refusals.map(([status, body, seat]) => m.plainWords(new m.Refusal(status, body), { seat }));
}"""


class Tab:
    """A browser context and its page at one size, collecting the page's script errors
    and its requests."""

    def __init__(self, browser: Browser, api: Api | None = None, size: str = "wide") -> None:
        self.size = size
        self.context: BrowserContext = browser.new_context(viewport=SIZES[size])  # type: ignore[arg-type]
        self.context.add_init_script(CLS)
        if api is not None:
            token = api.http.headers["Authorization"].split()[1]
            self.context.add_init_script(
                f"localStorage.setItem('sidebet.token', {json.dumps(token)});"
                f"localStorage.setItem('sidebet.name', {json.dumps(api.name)});")
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(f"{r.method} {r.url}"))

    def hide_accounts(self) -> None:
        """The table's answers as a server that shows no seat's account or chips (only
        names and what is on the felt): the page must not need them."""

        def strip(o: Any) -> None:
            if isinstance(o, dict):
                seats = o.get("seats")
                for seat in seats if isinstance(seats, list) else []:
                    if isinstance(seat, dict):
                        seat.pop("account", None)
                        seat.pop("chips", None)
                for v in o.values():
                    strip(v)
            elif isinstance(o, list):
                for v in o:
                    strip(v)

        def private(route: Route) -> None:
            answer = route.fetch()
            try:
                body = answer.json()
            except ValueError:
                route.fulfill(response=answer)
                return
            strip(body)
            route.fulfill(response=answer, json=body)

        self.page.route("**/api/tables/**", private)

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors

    @contextmanager
    def counting(self) -> Iterator[list[str]]:
        """The requests made while the block runs (method and path)."""
        start = len(self.requests)
        out: list[str] = []
        yield out
        self.page.wait_for_timeout(150)  # a request the last event schedules
        out.extend(r.split("?")[0].replace(self.page.url.split("/tables")[0], "")
                   for r in self.requests[start:])

    def in_view(self, *selectors: str) -> None:
        """Every selector's element lies wholly inside the viewport."""
        vw, vh = SIZES[self.size]["width"], SIZES[self.size]["height"]
        for sel in selectors:
            box = self.page.locator(sel).first.bounding_box()
            assert box is not None, f"{sel} is not shown ({self.size})"
            assert (box["x"] >= -1 and box["y"] >= -1 and box["x"] + box["width"] <= vw + 1
                    and box["y"] + box["height"] <= vh + 1), f"{sel} at {box} is outside {vw}x{vh}"

    def uncovered(self, *selectors: str) -> None:
        """Every element of each selector wholly inside the viewport and on top at its
        centre (``elementFromPoint``): seen, not under the sticky dock or anything else."""
        found = [x for sel in selectors for x in self.page.evaluate(COVERED, sel)]
        assert found == [], f"{self.size}: {found}"

    def results_in_view(self, hands: int, sides: int) -> None:
        """The round's results in the dock, each line (a hand's, a side wager's), the net
        and the way on wholly inside the viewport and on top (bounding boxes,
        ``elementFromPoint``); the bet panel folded until the player goes on."""
        expect(self.page.locator("#rr-list li")).to_have_count(hands + sides)
        expect(self.page.locator("#summary-line")).to_be_visible()
        expect(self.page.locator("#betting")).to_be_hidden()
        self.uncovered("#rr-list li", "#summary-line", "#rr-h", "#rr-next")

    def unclipped(self, root: str = "main") -> None:
        """Nothing under ``root`` cut or scrolling inside itself; every chip, hand, result
        and side-wager line inside its seat; the dock's controls inside the dock; no
        sideways scrolling."""
        cut = self.page.evaluate(CLIPPED, root)
        for sel, box in ((".seat .bet", ".seat"), (".seat .hand", ".seat"),
                         (".seat .side li", ".seat"), (".seat .result", ".hand"),
                         (".hand .total", ".hand"), ("#dock button", "#dock")):
            cut += self.page.evaluate(OUTSIDE, [sel, box])
        assert cut == [], f"{self.size}: {cut}"
        assert self.page.evaluate("document.documentElement.scrollWidth") <= SIZES[self.size]["width"]

    def plain(self, sel: str, why: str, cited: str, rule: str) -> str:
        """The message ``sel`` reads in plain words (nothing of :data:`INTERNAL` in its
        visible text, the rule folded away), in view and on top; one tap on ``why`` shows
        the rule (``cited``), which contains ``rule``.  Its visible words."""
        expect(self.page.locator(sel)).to_have_text(re.compile(r"\S"))
        expect(self.page.locator(cited)).to_be_hidden()
        text = self.page.locator(sel).inner_text()
        assert text.strip() and not INTERNAL.search(text), f"{self.size}: {text!r}"
        self.uncovered(sel, why)
        self.page.click(why)
        expect(self.page.locator(cited)).to_be_visible()
        expect(self.page.locator(cited)).to_contain_text(rule)
        self.in_view(cited)
        return text

    def worded(self, refusals: list[tuple[Any, int | None]]) -> list[dict[str, str]]:
        """Each refusal the server answered (an ``httpx`` answer, and the seat of the page
        that would show it) in the pages' words (``plainWords``, run in this page): no
        internal phrasing, and the rule kept behind them whenever the server cited one."""
        bodies = [[r.status_code, r.json(), seat] for r, seat in refusals]
        for (status, body, _), (r, _) in zip(bodies, refusals, strict=True):
            assert 400 <= status < 500 and "violations" in body, (status, r.text)
        out: list[dict[str, str]] = self.page.evaluate(WORDS, bodies)
        for (_, body, _), words in zip(bodies, out, strict=True):
            assert words["text"] and not INTERNAL.search(words["text"]), (body, words)
            if any(v["rule"] for v in body["violations"]) and "moved on" not in body["detail"]:
                assert words["rule"], (body, words)
        return out

    def axe(self) -> None:
        """axe-core finds no serious or critical violation on the page as it is."""
        if not self.page.evaluate("!!window.axe"):
            # Through the DevTools protocol: the pages' CSP (script-src 'self') rightly
            # refuses an inline script tag, and the page is tested as served.
            cdp = self.context.new_cdp_session(self.page)
            cdp.send("Runtime.evaluate", {"expression": AXE.read_text(encoding="utf-8")})
            cdp.detach()
        found = self.page.evaluate("""async () => (await axe.run(document, {resultTypes: ["violations"]}))
            .violations.filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => `${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", ")}`)""")
        assert found == [], f"{self.size}: {found}"

    def cls(self) -> float:
        """The page's cumulative layout shift so far (no input caused it): the largest
        session window."""
        return self._window()[0]

    def shifted(self) -> str:
        """The largest session window's shifts: when, how much, which elements moved
        (their top before and after), for an assertion's message."""
        best, shifts = self._window()
        return f"{self.size}: CLS {best:.3f}: " + "; ".join(
            f"{at:.0f} ms {value:.3f} {moved}" for at, value, moved in shifts)

    def _window(self) -> tuple[float, list[tuple[float, float, str]]]:
        self.page.wait_for_timeout(100)
        shifts: list[tuple[float, float, str]] = [
            (float(at), float(value), str(moved))
            for at, value, moved in self.page.evaluate("window.__shifts")]
        best = total = 0.0
        window: list[tuple[float, float, str]] = []
        worst: list[tuple[float, float, str]] = []
        first = last = -1e9
        for shift in shifts:
            at, value, _ = shift
            if at - last >= 1000 or at - first >= 5000:
                first, total, window = at, 0.0, []
            total += value
            window.append(shift)
            last = at
            if total > best:
                best, worst = total, list(window)
        return best, worst

    def shot(self, name: str, full_page: bool = False) -> None:
        """The README's screenshot ``name-<size>.png`` (with ``SIDEBET_SCREENSHOTS=DIR``)."""
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(SHOTS) / f"{name}-{self.size}.png"),
                                 full_page=full_page, animations="disabled")


def chips_for(amount: str) -> list[str]:
    """The chips making up ``amount`` (whole units), largest first."""
    left = int(amount.split(".")[0])
    out: list[str] = []
    for c in (1000, 500, 100, 25, 5, 1):
        while left >= c:
            out.append(f"{c}.00")
            left -= c
    return out


def stake(page: Page, wager: str, amount: str) -> None:
    """Choose chips and tap the wager's area until it shows ``amount`` (not sent yet)."""
    for c in chips_for(amount):
        page.click(f"button.chipbtn:has(.sr:text-is('Chip {c}'))")
        page.click(f"button.area[data-area='{wager}']")
    page.wait_for_function(
        f"document.querySelector(\"button.area[data-area='{wager}'] .amt\").textContent === {amount!r}")


def state(api: Api, t: int) -> dict[str, Any]:
    return dict(api.get(f"/api/tables/{t}/state"))
