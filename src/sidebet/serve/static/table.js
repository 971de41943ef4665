// The table page. Every button follows the server's `legal` list for the seat (the table
// engine's answer); every limit shown is the engine's (the seat's `limits` route); every
// refusal shown is the server's, with its citation. The page keeps the table's state from
// the answers to its own actions and asks for it again only when the stream says another
// seat moved.
import { api, el, cards, chip, cents, money, token, signOut, header, newKey, describe, phaseWords, plainWords, violationWords, withRule, WAGER_NAMES, WAGER_SHORT, PRESSABLE, loadWagers, Refusal } from "/static/common.js";

const $ = s => document.querySelector(s);
const tableId = Number(location.pathname.split("/")[2]);
const UNITS = [1, 5, 25, 100, 500, 1000];
const HEARTBEAT = 1000, DEAD = 3500;  // a dead connection is told within 5 s

let info = null;        // the table's rules, paytables and limits
let state = null;       // the live state (hole card hidden)
let me = null;          // the signed-in account
let loggedSeq = 0;      // the last event written to the table log
let busy = false;
let conn = "connecting";
let keys = new Map();   // one Idempotency-Key per action per state shown: a double click acts once
let chipValue = null;
let pending = {};       // wager -> cents chosen on this page, not sent yet
let undo = [];          // [wager, cents] in the order the chips landed
let limits = {};        // wager -> the engine's limits with the bets shown
let limitAsk = 0;
let limitsFor = null;   // the bets the limits were asked with
let shownCards = null;  // the cards already on the page (null before the first render)
let pressRound = null;  // the round whose Press offer the units field belongs to
let summarized = null;  // the game whose summary is shown
let resultsFor = null;  // the round whose results the dock shows, until the player goes on
let wentOn = null;      // the round whose results the player closed ("Next round")
let socket = null, heard = 0, beat = null;

const $$ = s => Array.from(document.querySelectorAll(s));
// my seat: the one my name sits at (the table shows names, not other players' accounts)
const isMine = x => !!(me && x.player != null && x.player === me.name);
const mySeat = () => (me && state ? state.seats.find(isMine) || null : null);
const legalOf = seat => Object.fromEntries((seat ? seat.legal : []).map(x => [x.action, x]));
const live = () => conn === "live";
const store = (k, v) => { try { localStorage.setItem(k, JSON.stringify(v)); } catch { /* private mode */ } };
const load = (k, d) => { try { return JSON.parse(localStorage.getItem(k)) ?? d; } catch { return d; } };

function keyFor(action) {
  const k = `${state ? state.seq : 0}:${action}`;
  if (!keys.has(k)) keys.set(k, newKey());
  return keys.get(k);
}

// ----- answers where the player looks ----------------------------------------------------

/** A message where the player looks: plain words; the rule behind it (a citation), when
 *  there is one, one tap away ("Rule"). */
function toast(text, kind = "bad", rule = "") {
  $("#toast").className = `toast ${kind}`;
  $("#toast-text").textContent = text;
  $("#toast-rule").textContent = rule ? `Rule: ${rule}` : "";
  $("#toast-rule").hidden = true;
  $("#toast-why").hidden = !rule;
  $("#toast-why").setAttribute("aria-expanded", "false");
  $("#toast").hidden = false;
  placeToast();
}
/** A refusal or failure as a toast: the words, the rule behind its button. */
function refused(e) { const { text, rule } = plainWords(e, { seat: mySeat() ? mySeat().seat : null }); toast(text, "bad", rule); }
/** The message just above the dock; under it when the dock has scrolled up; under the
 *  sticky header when neither has room: always in view, never over the dock's buttons. */
function placeToast() {
  const t = $("#toast");
  if (t.hidden) return;
  const d = $("#dock").getBoundingClientRect(), h = t.offsetHeight, gap = 6;
  const head = Math.max(0, $("header.top").getBoundingClientRect().bottom);  // the sticky header
  let lift = gap;
  if (d.top < innerHeight && d.top - h - gap >= head) lift = innerHeight - d.top + gap;
  else if (d.top < innerHeight && d.bottom + h + gap > innerHeight) lift = innerHeight - h - gap - head;
  t.style.setProperty("--lift", `${Math.max(gap, lift)}px`);
}
let placing = false;
for (const ev of ["scroll", "resize"]) addEventListener(ev, () => {
  if (placing) return;
  placing = true;
  requestAnimationFrame(() => { placing = false; placeToast(); if (!$("#see-results").hidden) revealResults("look"); });
}, { passive: true });
function clearToast() { $("#toast").hidden = true; $("#toast-text").textContent = ""; $("#toast-rule").textContent = ""; }

const CONN_TOAST = /offline|stopped answering/;
let held = null;  // a message a connection toast covers, shown again once live

/** A message that must outlive a connection blip (the session reminder). */
function notice(text) {
  if (!$("#toast").hidden && CONN_TOAST.test($("#toast-text").textContent)) held = text;
  else toast(text, "info");
}

function setConn(c) {
  if (conn === c) return;
  conn = c;
  const words = { live: "live", reconnecting: "reconnecting", lost: "connection lost", offline: "offline", connecting: "connecting" };
  $("#conn").textContent = words[c];
  $("#conn").className = `tag ${c}`;
  const shown = $("#toast").hidden ? "" : $("#toast-text").textContent;
  if ((c === "offline" || c === "lost") && shown && !CONN_TOAST.test(shown) && $("#toast").classList.contains("info")) held = shown;
  if (c === "offline") toast("Your browser is offline: the buttons are off until it is back online.");
  else if (c === "lost") toast("The table stopped answering: the buttons are off while the page reconnects.");
  else if (c === "live" && CONN_TOAST.test(shown)) {
    clearToast();
    if (held) toast(held, "info");
    held = null;
  }
  if (state) render();
}

// ----- sound (Web Audio, made in the page; the mute is remembered) -------------------------

let audio = null;
const soundOn = () => load("sidebet.sound", true);
function tone(freq, at, dur, type = "sine", gain = 0.06) {
  const o = audio.createOscillator(), g = audio.createGain();
  o.type = type; o.frequency.value = freq;
  g.gain.setValueAtTime(gain, audio.currentTime + at);
  g.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + at + dur);
  o.connect(g).connect(audio.destination);
  o.start(audio.currentTime + at); o.stop(audio.currentTime + at + dur + 0.02);
}
function sound(kind, delays = []) {
  if (!soundOn() || !audio) return;
  if (kind === "card") for (const d of delays) tone(900, d / 1000, 0.05, "triangle", 0.04);
  if (kind === "win") { tone(660, 0, 0.15); tone(880, 0.12, 0.25); }
  if (kind === "lose") tone(220, 0, 0.3, "sine", 0.05);
}
function renderSound() {
  const on = soundOn();
  $("#sound").setAttribute("aria-pressed", String(on));
  $("#sound").textContent = on ? "Sound on" : "Sound off";
}
document.addEventListener("pointerdown", () => {
  if (!audio && window.AudioContext) audio = new AudioContext();
}, { once: true });

// ----- acting -------------------------------------------------------------------------

const RETRIED = new Set(["bets", "deal", "press", "insurance", "leave"]);
/** Decisions the engine judges on their own at my seat, whatever another seat did meanwhile:
 *  sent without `Expected-Seq`, so players betting and calling the deal together never
 *  refuse each other. */
const OWN = new Set(["bets", "deal"]);

function stillOpen(action, body, before) {
  const legal = legalOf(mySeat());
  if (action === "bets") return !!(legal.bet && legal.bet.wagers.includes(body.wager));
  if (!legal[action === "bets" ? "bet" : action]) return false;
  if (RETRIED.has(action)) return true;
  return JSON.stringify(state.current) === JSON.stringify(before);  // the same hand is to act
}

/** One decision at my seat: sent with the last event the page shows; when the only
 *  refusal is that the table moved on (another seat acted), the page catches up and sends
 *  it again if the engine still offers it. */
async function send(action, body) {
  const seat = mySeat();
  for (let attempt = 0; ; attempt++) {
    const before = state.current;
    try {
      const r = await api(`/api/tables/${tableId}/seats/${seat.seat}/${action}`, { method: "POST", body,
        key: keyFor(action + (body ? JSON.stringify(body) : "")), headers: OWN.has(action) ? {} : { "Expected-Seq": String(state.seq) } });
      if (r && r.state) setState(r.state);
      return r;
    } catch (e) {
      const stale = e instanceof Refusal && e.status === 409 && /moved on/.test(e.message);
      if (!stale) throw e;
      await refresh();
      if (attempt >= 3 || !stillOpen(action, body, before)) {
        throw new Refusal(409, { detail: "The table changed while you chose: it now shows where the round stands.", violations: [] });
      }
    }
  }
}

async function run(work) {
  if (busy || !live()) return;
  busy = true;
  clearToast();
  $("#advice").textContent = "";
  renderControls();
  try { await work(); } catch (e) {
    refused(e);
    if (!(e instanceof Refusal)) setConn("lost");
  } finally {
    busy = false;
    if (walletAgain) { walletAgain = false; syncWallet(); }
    renderControls();
    keepFocus();
    if (!Object.keys(pending).length) askLimits();  // the areas' limits for the next bets
  }
}

function act(action, body) { return run(() => send(action, body)); }

async function sit(n) {
  await run(async () => {
    const r = await api(`/api/tables/${tableId}/seats/${n}`, { method: "POST", key: keyFor(`sit${n}`) });
    setState(r.state);
  });
}

/** Focus stays on the control used, or moves to the next sensible one when it went away. */
function keepFocus() {
  const a = document.activeElement;
  if (a && a !== document.body && !a.disabled && !a.closest("[hidden]") && a.isConnected) return;
  const next = ["#rr-next", "#press-units", "#insure-btn", "#act-hit", "#act-stand", "#bet-rebet-deal", "#act-deal", "button.area:not(:disabled)", "#bet-rebet"]
    .map(s => $(s)).find(b => b && !b.disabled && !b.closest("[hidden]"));
  const still = { preventScroll: readingDown() };  // the reader is not moved (revealResults)
  if (next) next.focus(still);
  else $("#dock").focus(still);
}
/** The player has scrolled down to the panels under the table (the log, the session). */
const readingDown = () => $(".lower").getBoundingClientRect().top < innerHeight / 2;

// ----- betting: chips on areas, sent on Deal --------------------------------------------

const placedNow = seat => (seat && state.round_open && state.phase === "betting" && seat.bets) || {};

/** The bets shown, but for `w` (what `w`'s limits depend on), as the limits route reads them. */
function betsBut(w, from = pending) {
  return Object.entries(from).filter(([x, c]) => x !== w && c > 0).map(([x, c]) => `${x}:${money(c)}`).sort().join(",");
}

function addChip(w) {
  const seat = mySeat();
  if (!seat || !chipValue) return;
  // the engine's limits, if they were asked with the other bets now shown (else the server judges)
  const lim = limits[w] && limitsFor !== null && betsBut(w, limitsFor) === betsBut(w) ? limits[w] : null;
  const now = pending[w] || 0;
  if (lim && !now && lim.violations.length) {
    const { text, rule } = violationWords(lim.violations[0], { seat: mySeat().seat });
    toast(text, "bad", rule);
    return;
  }
  const next = now + cents(chipValue);
  if (lim && lim.max && next > cents(lim.max)) {
    toast(`Your ${WAGER_NAMES[w]} bet can be at most ${lim.max} here${lim.max_rule === "§ 633c.11(c)" ? ": twice your Blackjack bet" : ""}.`, "bad", lim.max_rule || "");
    return;
  }
  clearToast();
  pending[w] = next;
  undo.push([w, cents(chipValue)]);
  sound("card", [0]);
  askLimits();
  renderControls();
}

function bettingOrder() {
  // sent in the engine's order (the limits route's: a wager needing another comes after it)
  const offered = Object.keys(limits).length ? Object.keys(limits) : info.offered;
  return offered.filter(w => pending[w] > 0);
}

async function sendBets(thenDeal) {
  for (const w of bettingOrder()) {
    await send("bets", { wager: w, amount: money(pending[w]) });
    delete pending[w];
    undo = undo.filter(([x]) => x !== w);
  }
  undo = [];
  const seat = mySeat();
  if (seat && seat.bets && Object.keys(seat.bets).length) store(`sidebet.rebet.${tableId}`, seat.bets);
  if (thenDeal) await callDeal();
  else askLimits();
}

/** Call the deal (done betting), or sit the round out with no Blackjack wager.  When the
 *  bets have closed meanwhile (the countdown, or every other player done) with my bets in
 *  the round, the deal included me: nothing to say. */
async function callDeal() {
  try { await send("deal"); } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    await refresh();
    const seat = mySeat();
    if (state.phase !== "betting" && seat && seat.bets && seat.bets.blackjack) return;
    throw e;
  }
}

function rebet() {
  pending = {};
  undo = [];
  for (const [w, a] of Object.entries(load(`sidebet.rebet.${tableId}`, {}))) {
    if (info.offered.includes(w)) { pending[w] = cents(a); undo.push([w, cents(a)]); }
  }
  askLimits();
  renderControls();
}

/** Ask the engine for each area's limits with the bets shown (debounced; the last answer wins). */
function askLimits() {
  const seat = mySeat();
  if (!seat || !legalOf(seat).bet) return;  // no bet open: no limits to show
  const n = ++limitAsk;
  const asked = { ...pending };
  const bets = betsBut(null, asked);
  setTimeout(async () => {
    if (n !== limitAsk) return;
    try {
      const list = await api(`/api/tables/${tableId}/seats/${seat.seat}/limits?bets=${encodeURIComponent(bets)}`);
      if (n === limitAsk) { limits = Object.fromEntries(list.map(x => [x.wager, x])); limitsFor = asked; renderControls(); }
    } catch { /* the limits stay as last shown */ }
  }, 60);
}

function buildBetting() {
  const top = info.submission.limits && info.submission.limits.max ? cents(info.submission.limits.max) : Infinity;
  const units = UNITS.map(u => u * 100).filter(c => c <= top);
  chipValue = money(units.includes(500) ? 500 : units[0]);
  $("#chips").replaceChildren(...units.map(c => el("button", { type: "button", class: "chipbtn", "aria-pressed": String(money(c) === chipValue),
    onclick: ev => {
      chipValue = money(c);
      for (const b of $$(".chipbtn")) b.setAttribute("aria-pressed", String(b === ev.currentTarget));
    } }, chip(money(c), { "aria-hidden": "true" }), el("span", { class: "sr" }, `Chip ${money(c)}`))));
  $("#areas").replaceChildren(...info.offered.map(w => el("button", { type: "button", class: "area", "data-area": w, onclick: () => addChip(w) },
    el("span", { class: "name" }, WAGER_NAMES[w]), el("span", { class: "amt" }, "—"), el("span", { class: "lim" }, ""))));
}

function limitText(w) {
  const l = limits[w];
  if (!l) return "";
  const now = pending[w] || 0;
  if (l.violations.length && (now || !placedNow(mySeat())[w])) {
    const v = l.violations[0];  // the rule: on the toast a tap on the area shows
    const needs = /requires an? (.+?) wager first/.exec(v.message);  // the engine's words, shortened
    return needs ? `needs ${needs[1]} first` : violationWords(v, { seat: mySeat().seat }).text.replace(/\.$/, "");
  }
  const parts = [];
  if (l.min) parts.push(`min ${l.min}`);
  parts.push(l.max ? `max ${l.max}` : "no maximum");
  return parts.join(" · ");
}

// ----- rendering ------------------------------------------------------------------------

/** A total as players read it: "Blackjack" for a natural, "Bust 26", a soft total as its
 *  two counts ("7 or 17"; the dealer's lone ace "1 or 11"), 21 as 21. */
function totalText(t, blackjack) {
  if (!t) return "";
  if (blackjack) return "Blackjack";
  if (t.busted) return `Bust ${t.total}`;
  return t.soft && t.total < 21 ? `${t.total - 10} or ${t.total}` : String(t.total);
}
/** Whether a hand is a natural: two cards making 21, not from a split. */
const natural = (h, seat) => (seat.hands || []).length === 1 && h.cards.split(/\s+/).length === 2 && h.total && h.total.total === 21;

function won(x) { return x.outcome !== "lose"; }

function sideLine(x) {
  const name = WAGER_NAMES[x.wager] || x.wager;
  return el("li", { class: won(x) ? "won" : "lost", "data-side": x.wager, "data-outcome": x.outcome },
    el("abbr", { title: name }, WAGER_SHORT[x.wager] || x.wager), won(x) ? ` WIN +${x.winnings}` : ` LOSE −${x.bet}`,
    el("span", { class: "sr" }, ` ${name}${won(x) ? `, ${x.label}` : ""}`));
}

const newCards = [];  // [element, seat order, card index, dealer?] of this render, to deal in order

function dealtCards(codes, key, order) {
  const box = cards(codes);
  Array.from(box.children).forEach((c, i) => {
    const k = `${state.round}:${key}:${i}:${codes.split(/\s+/)[i]}`;
    if (shownCards && !shownCards.has(k)) newCards.push([c, order, i, key === "d"]);
    (shownCards || (shownCards = new Set())).add(k);
  });
  return box;
}

function handBox(h, i, seat, current, order) {
  const res = h.result ? h.result.toUpperCase() : (h.surrendered ? "SURRENDER" : "");
  const bits = [`bet ${h.bet}`];
  if (h.press !== "0.00") bits.push(`press ${h.press}`);
  if (h.double !== "0.00") bits.push(`double ${h.double}`);
  return el("div", { class: `hand${current ? " current" : ""}`, "data-hand": i, role: "group",
    "aria-label": `hand ${i + 1}${current ? ", to act" : ""}` },
    dealtCards(h.cards, `${seat}:${i}`, order),
    el("div", {}, el("span", { class: "total", "data-total": "" }, totalText(h.total, h.result === "blackjack" || natural(h, seatOf(seat)))),
      current ? el("span", { class: "sr" }, " (to act)") : null),
    el("div", { class: "money" }, bits.map((b, k) => el("span", {}, k ? el("span", { class: "dot" }, " · ") : null, b))),
    el("div", { class: `result ${h.result || ""}` }, res));
}

const seatOf = n => state.seats.find(x => x.seat === n) || { hands: [] };

function seatBox(s, order) {
  const mine = isMine(s);
  const turn = state.current && state.current.seat === s.seat;
  const box = el("section", { class: `seat${mine ? " mine" : ""}${turn ? " turn" : ""}${s.player ? "" : " free"}`, "data-seat": s.seat,
    "aria-label": `Seat ${s.seat}${s.player ? `, ${s.player}` : ", free"}${turn ? ", to act" : ""}` });
  box.append(el("h3", {}, `Seat ${s.seat}`, turn ? el("span", { class: "toact" }, " ▸ to act") : null));
  if (s.player) box.append(el("div", { class: "player" }, s.player + (mine ? " (you)" : "")));
  else {
    const canSit = me && !mySeat();
    box.append(el("div", { class: "player" }, canSit
      ? el("button", { class: "sit", onclick: () => sit(s.seat), disabled: !live() }, "Sit here", el("span", { class: "sr" }, ` at seat ${s.seat}`))
      : "free"));
  }
  const bets = el("div", { class: "bets" });
  for (const [w, a] of Object.entries(s.bets || {})) {
    bets.append(el("span", { class: "bet", "data-bet": w }, chip(a, { "aria-hidden": "true" }),
      el("abbr", { title: WAGER_NAMES[w] || w, "aria-label": `${WAGER_NAMES[w] || w} ${a}` }, WAGER_SHORT[w] || w)));
  }
  box.append(bets);
  const hands = el("div", { class: `hands${(s.hands || []).length > 1 ? " split" : ""}` });
  (s.hands || []).forEach((h, i) => hands.append(handBox(h, i, s.seat, turn && state.current.hand === i, order)));
  box.append(hands);
  box.append(el("ul", { class: "side", "aria-label": "Side wagers" }, (s.side || []).map(sideLine)));
  return box;
}

function dealerWords(d) {
  if (!d.total) return "";
  if (d.blackjack) return "The dealer has Blackjack.";
  if (d.cards.includes("??")) return `The dealer shows ${totalText(d.total)}.`;
  return d.total.busted ? `Dealer busts with ${d.total.total}.` : `Dealer stands on ${totalText(d.total)}.`;
}

function statusText() {
  const s = state, mine = mySeat();
  // short (the message above the dock says the rest): the line keeps its height
  if (!live() && conn !== "connecting") return conn === "offline" ? "Offline: the buttons are off." : "Reconnecting: the buttons are off.";
  const awaiting = s.physical && s.physical.awaiting;  // a dealer-assist table
  if (awaiting) return `Waiting for the dealer's cards (seat ${awaiting.seat}: ${awaiting.action.replace(/-/g, " ")}).`;
  if (s.phase === "betting") {
    if (!mine) return me ? "Bets are open. Take a free seat to play." : "Bets are open. Sign in in the lobby to play.";
    const done = s.round_open && (s.ready || []).includes(mine.seat);
    if (done) {
      const others = s.seats.filter(x => x.player && x.seat !== mine.seat && !(s.ready || []).includes(x.seat)).map(x => `${x.player} (seat ${x.seat})`);
      const bets = mine.bets && mine.bets.blackjack;
      return `${bets ? "You are ready" : "You sit this round out"}. Waiting for ${others.join(", ") || "the deal"}; bets close when all are done or the countdown ends.`;
    }
    return legalOf(mine).deal ? "Your bets are in. Add more, or Deal when you are done." : "Choose a chip, tap the areas, then Deal.";
  }
  if (s.phase === "press") return legalOf(mine).press ? `Your ${PRESSABLE.name} won: press some units onto your Blackjack wager, or collect.`
    : `Side wagers are settled. Waiting for ${PRESSABLE.name} winners to decide on the Press.`;
  if (s.phase === "insurance") return legalOf(mine).insurance ? "The dealer shows an ace: insurance?" : "Waiting for the insurance decisions.";
  if (s.phase === "play" && s.current) {
    const seat = s.seats.find(x => x.seat === s.current.seat);
    const hand = seat && seat.hands ? seat.hands[s.current.hand] : null;
    const vs = `against the dealer's ${totalText(s.dealer.total)}`;
    if (mine && seat.seat === mine.seat) return `Your turn: hand ${s.current.hand + 1}${hand ? `, ${totalText(hand.total)}` : ""} ${vs}.`;
    return `${seat && seat.player ? seat.player : `Seat ${s.current.seat}`} (seat ${s.current.seat}) is playing ${vs}.`;
  }
  if (s.phase === "done") {
    const parts = [`Round ${s.round} is over.`, dealerWords(s.dealer)];
    if (mine && mine.hands && mine.hands.length) parts.push(mine.hands.map((h, i) => `Your hand ${i + 1}: ${totalText(h.total, h.result === "blackjack")}, ${(h.result || "").toUpperCase()}`).join("; ") + ".");
    return parts.join(" ");
  }
  return "";
}

/** At the round's end, my hands' results and side-wager lines in view above the sticky
 *  dock (a phone's dock covers the felt's lower part): the page scrolls as little as it
 *  must, their bottom just above the dock (the dealer above them stays in view as far as
 *  it can), their top first when they are taller than the room.  A player reading the
 *  log down the page is not moved: a control in view brings the results when asked. */
function revealResults(asked = false) {
  const parts = $$("#seats .seat.mine .hand, #seats .seat.mine .side li").map(e => e.getBoundingClientRect());
  if (!parts.length) return;
  const top = Math.min(...parts.map(r => r.top)), bottom = Math.max(...parts.map(r => r.bottom));
  const dock = $("#dock"), head = $("header.top").getBoundingClientRect().bottom + 4;  // the sticky header
  if (top >= head && bottom <= dock.getBoundingClientRect().top - 6) { $("#see-results").hidden = true; return; }
  if (asked === "look") return;  // the player scrolling: the button goes once they are in view
  if (asked !== true && readingDown()) { $("#see-results").hidden = false; return; }
  $("#see-results").hidden = true;
  let dy = bottom - (innerHeight - dock.offsetHeight - 6);  // the dock sticks to the bottom
  if (top - dy < head) dy = top - head;
  window.scrollBy({ top: dy, behavior: "instant" });
}

function renderStatus() { $("#status").textContent = statusText(); renderTimer(); }

/** Seconds left of the pending decision (the betting countdown or the time limit), from
 *  the state's `deadline`; `null` when nothing is timed. */
function secondsLeft() {
  if (!state || !state.deadline) return null;
  const at = Date.parse(state.deadline.replace(/(\.\d{3})\d*Z$/, "$1Z"));
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** The countdown every seat sees: the bets' closing, or whose decision and its time. */
function renderTimer() {
  const left = secondsLeft(), t = $("#timer");
  const mine = mySeat();
  let label = "", said = "";  // the words shown in the header's slot; the words read out
  if (left !== null && state) {
    if (state.phase === "betting") label = "Bets close in ";
    else if (state.phase === "play" && state.current) {
      const n = state.current.seat, who = seatOf(n);
      if (mine && n === mine.seat) label = "Your time: ";
      else { label = `Seat ${n}: `; said = `${who.player || `Seat ${n}`}: ${left} s`; }
    } else label = "Decisions: ";
  }
  const secs = label ? `${left} s` : "";
  t.querySelector(".tlabel").textContent = label;  // bounded: a name is read out, not shown
  t.querySelector(".tsecs").textContent = secs;
  if (label) t.setAttribute("aria-label", said || label + secs); else t.removeAttribute("aria-label");
  t.classList.toggle("short", left !== null && left <= 5);
}
setInterval(() => { if (state) renderTimer(); }, 250);

function animate() {
  if (!newCards.length) return;
  const firstDeal = newCards.length >= 3;
  newCards.sort((a, b) => {
    const ra = firstDeal && a[2] < 2 ? [a[2], a[3] ? 1 : 0, a[1]] : [2, a[3] ? 1 : 0, a[2], a[1]];
    const rb = firstDeal && b[2] < 2 ? [b[2], b[3] ? 1 : 0, b[1]] : [2, b[3] ? 1 : 0, b[2], b[1]];
    for (let k = 0; k < ra.length; k++) if (ra[k] !== rb[k]) return ra[k] - rb[k];
    return 0;
  });
  const delays = newCards.map((c, i) => (c[3] && c[2] >= 2 ? 120 + i * 260 : i * 140));
  newCards.forEach(([c], i) => { c.classList.add("deal"); c.style.setProperty("--d", `${delays[i]}ms`); });
  sound("card", delays);
  newCards.length = 0;
}

function setState(s) {
  if (state && s.seq < state.seq) return;  // an older answer than what is shown
  const before = state;
  if (!state || s.seq !== state.seq) keys = new Map();
  const seatedBefore = !!mySeat();
  state = s;
  render();
  if (before && s.seq !== before.seq && (seatedBefore || mySeat())) syncWallet();
  if (before && before.phase !== "done" && s.phase === "done") roundOver().finally(() => { revealResults(); renderHistory(); });
  if (before && !busy && (before.round !== s.round || before.phase !== s.phase)) askLimits();
}

async function refresh() { setState(await api(`/api/tables/${tableId}/state`)); }

async function loadMe() {
  if (!token()) return;
  try { me = await api("/api/me"); } catch (e) {
    if (e.status === 401) { me = null; signOut(); header("table"); }
  }
  renderWallet();
}

/** The wallet shown is the API's balance (`GET /api/me`), asked again after every event
 *  while the player sits (a stake, a win, a Press move it as the engine settles them):
 *  one figure, the same before and after a reload.  Asks made while the page's own action
 *  (its bets and Deal) is in flight or while one is asked are folded into one, after. */
let walletAsking = null, walletAgain = false;
function syncWallet() {
  if (busy || walletAsking) { walletAgain = true; return walletAsking; }
  walletAsking = loadMe().finally(() => {
    walletAsking = null;
    if (walletAgain) { walletAgain = false; syncWallet(); }
  });
  return walletAsking;
}

function renderWallet() {
  const play = !!(me && me.money_mode === "play");
  $("#wallet-label").textContent = play ? "Play money" : "Wallet";
  $("#wallet").textContent = me ? me.balance : "—";
}

function render() {
  const s = state;
  document.title = `sidebet — ${s.name}`;
  $("#title").textContent = s.name;
  $("#round").textContent = String(s.round || "—");
  $("#phase").textContent = phaseWords(s.phase);
  const first = shownCards === null;
  $("#dealer-cards").replaceWith(Object.assign(dealtCards(s.dealer.cards, "d", 99), { id: "dealer-cards" }));
  $("#dealer-total").textContent = totalText(s.dealer.total, s.dealer.blackjack);
  $("#seats").replaceChildren(...s.seats.map((x, i) => seatBox(x, i)));
  $("#seats").classList.toggle("seated", !!mySeat());
  if (first) newCards.length = 0; else animate();
  const mine = mySeat();
  renderWallet();
  resultsPanel(mine);
  const physical = !!s.physical;  // a dealer-assist table: no seal, no seeds
  $("#shoe-kind").hidden = $("#physical-note").hidden = !physical;
  for (const id of ["#fair-note", "#seal-line", "#seeds-line", "#seed-form"]) $(id).hidden = physical;
  $("#fair-h").textContent = physical ? "Physical shoe" : "Fair shoe";
  if (s.shoe) {
    $("#shoe-no").textContent = String(s.shoe.shoe);
    $("#commitment").textContent = s.shoe.commitment;
    $("#client-seeds").textContent = s.shoe.client_seeds.length ? s.shoe.client_seeds.join(", ") : "none";
  }
  renderStatus();
  renderResults();
  renderControls();
  $("#main").classList.remove("loading");
  if (s.phase !== "done") $("#see-results").hidden = true;
  placeToast();
}

/** At the round's end every result of my round where the eye is, in the dock (always in
 *  view): each hand's, each side wager's, the net (the API's, roundOver); the bet panel
 *  stays folded until the player goes on ("Next round") or the next round is dealt, so
 *  no result of this round is under it and none stays up through the next round. */
function renderResults() {
  const s = state, mine = mySeat();
  if (s.phase === "done" && mine && (mine.hands || []).length && wentOn !== s.round) {
    if (resultsFor !== s.round) { resultsFor = s.round; $("#summary-line").hidden = true; }
    $("#rr-list").replaceChildren(...mine.hands.map((h, i) => {
      const res = h.result ? h.result.toUpperCase() : (h.surrendered ? "SURRENDER" : "");
      const more = [h.press !== "0.00" ? `press ${h.press}` : "", h.double !== "0.00" ? `double ${h.double}` : ""].filter(Boolean);
      return el("li", { class: res === "LOSE" ? "lost" : res === "PUSH" ? "" : "won", "data-rr": `hand-${i}` },
        `Hand ${i + 1} (bet ${h.bet}${more.length ? `, ${more.join(", ")}` : ""}): ${totalText(h.total, h.result === "blackjack" || natural(h, mine))} `,
        el("strong", {}, res));
    }), ...(mine.side || []).map(x => el("li", { class: won(x) ? "won" : "lost", "data-rr": x.wager },
      `${WAGER_NAMES[x.wager] || x.wager}: `, el("strong", {}, won(x) ? `WIN +${x.winnings}` : `LOSE −${x.bet}`))));
  } else if (!mine || !["done", "betting"].includes(s.phase)) resultsFor = null;  // the next round dealt
  $("#round-results").hidden = resultsFor === null;
  $("#rr-next").textContent = s.phase === "betting" ? "Bets are open: your bets" : "Next round: your bets";
}

function resultsPanel(seat) {
  const side = (seat && seat.side) || [];
  $("#my-results").hidden = !side.length;
  $("#results-list").replaceChildren(...side.map(x => el("tr", { "data-result": x.wager },
    el("th", { scope: "row" }, WAGER_NAMES[x.wager] || x.wager),
    el("td", {}, el("strong", { class: won(x) ? "won" : "lost" }, won(x) ? "WIN" : "LOSE"),
      el("div", { class: "muted" }, ...withRule({ text: won(x) ? `${x.label}, ${x.pays} to 1 (paytable ${x.paytable})` : `${x.player} · ${x.upcard}`, rule: x.citation }))),
    el("td", { class: "num" }, won(x) ? `+${x.winnings}` : `−${x.bet}`))));
}

function renderControls() {
  const seat = mySeat();
  const legal = legalOf(seat);
  const off = busy || !live();
  $("#sit-note").textContent = !me ? "Sign in in the lobby, then take a free seat." : seat ? "" : "Take a free seat with “Sit here”.";
  $("#sit-note").hidden = !!seat;
  const betting = legal.bet ? new Set(legal.bet.wagers) : new Set();
  $("#betting").hidden = !seat || !(state.phase === "betting" || state.phase === "done") || resultsFor !== null;
  const placed = placedNow(seat);
  for (const b of $$("button.area")) {
    const w = b.dataset.area;
    const amount = placed[w] ? cents(placed[w]) : pending[w] || 0;
    b.classList.toggle("placed", !!placed[w]);
    b.classList.toggle("pending", !placed[w] && !!pending[w]);
    b.classList.toggle("refused", !!(pending[w] && limits[w] && limits[w].violations.length));
    b.querySelector(".amt").textContent = amount ? money(amount) : "—";
    b.querySelector(".lim").textContent = placed[w] ? "placed" : limitText(w);
    b.disabled = off || !betting.has(w);
  }
  const any = Object.values(pending).some(c => c > 0);
  const rebets = Object.keys(load(`sidebet.rebet.${tableId}`, {})).length > 0;
  $("#bet-undo").disabled = off || !undo.length;
  $("#bet-clear").disabled = off || !any;
  $("#bet-rebet").disabled = off || !rebets || !betting.has("blackjack") || any;
  $("#bet-rebet-deal").disabled = off || !rebets || !betting.has("blackjack") || any;
  $("#bet-place").disabled = off || !any || !legal.bet;
  $("#act-deal").disabled = off || !(legal.deal || (pending.blackjack > 0 && betting.has("blackjack")));
  $("#bet-decline").hidden = !legal.decline || any;
  $("#bet-decline").disabled = off || !legal.decline;
  for (const b of $$("#actions [data-action]")) b.disabled = off || !legal[b.dataset.action];
  $("#act-leave").hidden = !seat || !legal.leave;
  const d = legal.double, sp = legal.split;
  $("#act-double").textContent = d ? `Double ${d.max}` : "Double";
  $("#act-split").textContent = sp ? `Split ${sp.cost}` : "Split";
  $("#actions").hidden = !seat || ["betting", "done"].includes(state.phase) && !legal.hit;
  $("#act-advice").disabled = off || !(legal.press || legal.hit || legal.stand || legal.insurance);
  const press = legal.press;
  $("#press-offer").hidden = !press;
  if (press) {
    const unit = cents(press.unit), max = cents(press.max);
    const u = $("#press-units");
    if (pressRound !== state.round) { pressRound = state.round; u.value = "0"; }
    const side = (seat.side || []).find(x => x.wager === PRESSABLE.id);
    const said = `${PRESSABLE.name} won ${side ? side.winnings : "?"} (${side ? side.label : ""}). ` +
      `Press 0 to ${max / unit} units of ${press.unit} onto your Blackjack wager; the rest is paid to you.`;
    if ($("#press-text").dataset.said !== said) {  // redrawn only when it changes (an open "Rule" stays open)
      $("#press-text").dataset.said = said;
      $("#press-text").replaceChildren(...withRule({ text: said, rule: "§ 633c.11(e)" }));
    }
    u.max = String(max / unit);
    if (Number(u.value) > max / unit) u.value = String(max / unit);
    $("#press-amount").textContent = money(Math.max(0, Math.floor(Number(u.value) || 0)) * unit);
  }
  $("#press-btn").disabled = $("#collect-btn").disabled = off || !press;
  const ins = legal.insurance;
  $("#insurance-offer").hidden = !ins;
  if (ins && !$("#ins-amount").value) $("#ins-amount").value = ins.max;
  if (!ins) $("#ins-amount").value = "";
  $("#insure-btn").disabled = $("#decline-btn").disabled = off || !ins;
  $("#seed-btn").disabled = !seat || off;
}

// ----- the round's summary and the session ------------------------------------------------

async function roundOver() {
  const mine = mySeat();
  if (!mine || !mine.hands || !mine.hands.length) return;
  const game = `T${tableId}-R${state.round}`;
  if (summarized === game) return;
  summarized = game;
  let g;
  try { g = await api(`/api/games/${game}`); } catch { return; }
  const p = (g.players || []).find(x => me && x.account === me.id);
  if (!p) return;
  const net = cents(p.net);
  sound(net > 0 ? "win" : net < 0 ? "lose" : "none");
  $("#summary-line").hidden = false;
  $("#summary-line").textContent = `Round ${g.round}: ${net > 0 ? `you won ${p.net}` : net < 0 ? `you lost ${money(-net)}` : "you broke even"} ` +
    `(wagered ${p.total_bet}, paid back ${p.total_won}).`;
  const ledger = (g.history && g.history.final && g.history.final.ledger) || [];
  const lines = ledger.filter(x => x.seat === mine.seat && x.move !== "stake").map(x =>
    el("li", {}, ...withRule({ text: `${WAGER_NAMES[x.wager] || x.wager}: ${x.reason}, ${x.move === "collect" ? "−" : "+"}${x.amount}`, rule: x.citation })));
  $("#summary").replaceChildren(el("li", {}, $("#summary-line").textContent), ...lines);
  const key = `sidebet.session.${me.name}`;
  const session = load(key, []);
  if (!session.some(x => x.game === g.game)) session.push({ game: g.game, bet: cents(p.total_bet), won: cents(p.total_won), net });
  store(key, session.slice(-500));
  renderSession();
}

/** The paytables of the wagers this table offers, in its order. */
function renderPaytables() {
  $("#paytables").replaceChildren(...info.side_wagers.map(w => el("section", { class: "paytable" },
    el("h3", {}, `${w.name} (paytable ${w.paytable}, ${w.section})`),
    el("table", { class: "data" }, el("tbody", {}, ...w.lines.map(l => el("tr", {},
      el("th", { scope: "row" }, l.label), el("td", { class: "num" }, `${l.pays} to 1`))))))));
}

/** The player's rounds at this table: each round's time (the browser's clock and
 *  language), hands, wagers and result, newest first. */
async function renderHistory() {
  if (!me) return;
  let games;
  try { games = await api(`/api/games?table=${tableId}`); } catch { return; }
  const mine = games.filter(g => g.status !== "in-progress").slice(-10).reverse();
  $("#history").replaceChildren(...mine.map(g => {
    const p = (g.players || []).find(x => x.account === me.id) || null;
    const when = new Date(g.ended_at || g.started_at);
    const hands = ((g.outcome || {}).hands || []).filter(h => p && h.seat === p.seat)
      .map(h => `${h.cards} ${(h.result || "").toUpperCase()}`).join("; ");
    const ledger = (g.history && g.history.final && g.history.final.ledger) || [];
    const side = ledger.filter(x => p && x.seat === p.seat && x.wager !== "blackjack" && x.move !== "stake")
      .map(x => `${WAGER_SHORT[x.wager] || x.wager} ${x.move === "collect" ? "−" : "+"}${x.amount}`).join(", ");
    return el("li", {}, el("time", { datetime: g.ended_at || g.started_at }, when.toLocaleString()),
      ` · round ${g.round}${g.status === "void" ? " (voided)" : ""}: ${hands || "no hand"}${side ? ` · ${side}` : ""}` +
      (p ? ` · net ${p.net}` : ""));
  }));
  if (!mine.length) $("#history").append(el("li", { class: "muted" }, "No round played at this table yet."));
}

/** The player's own limits, with the link to change them or take a break. */
function renderLimits(l) {
  if (!l) { $("#rg").hidden = true; return; }
  const parts = [];
  for (const [k, v] of Object.entries(l.loss_limits || {})) if (v) parts.push(`losses a ${k}: ${v}`);
  for (const [k, v] of Object.entries(l.deposit_limits || {})) if (v) parts.push(`deposits a ${k}: ${v}`);
  if (l.session_reminder_minutes) parts.push(`a reminder every ${l.session_reminder_minutes} minutes`);
  $("#rg-limits").textContent = parts.length ? `Your limits: ${parts.join(", ")}.` : "You have set no limits.";
  $("#rg").hidden = false;
}

function renderSession() {
  if (!me) return;
  const s = load(`sidebet.session.${me.name}`, []);
  const sum = k => s.reduce((a, x) => a + x[k], 0);
  $("#s-rounds").textContent = String(s.length);
  $("#s-wagered").textContent = money(sum("bet"));
  $("#s-won").textContent = money(sum("won"));
  $("#s-net").textContent = (sum("net") > 0 ? "+" : "") + money(sum("net"));
}

async function showAdvice() {
  const seat = mySeat();
  if (!seat) return;
  $("#advice").textContent = "Computing the exact advice…";
  try {
    const a = await api(`/api/tables/${tableId}/seats/${seat.seat}/advice`);
    const sign = x => `${x >= 0 ? "+" : ""}${x.toFixed(4)}`;
    if (a.kind === "press") {
      $("#advice").textContent = `Exact advice: ${a.advice.toUpperCase()}. Pressing all ${a.max}: expected ${a.ev_press_all}; ` +
        `collecting: expected ${a.ev_collect} (${sign(a.ev_per_unit)} per unit pressed; best play of the hand: ${a.play}).`;
    } else if (a.kind === "play") {
      $("#advice").textContent = `Exact advice: ${a.best.toUpperCase()}. Expected value per unit: ${a.actions.map(x => `${x.action} ${sign(x.ev)}`).join(", ")}.`;
    } else if (a.kind === "insurance") {
      $("#advice").textContent = `Exact advice: ${a.advice.toUpperCase()}. Insurance is worth ${sign(a.ev_per_unit)} per unit insured.`;
    } else $("#advice").textContent = "No exact advice for this decision.";
  } catch (e) { $("#advice").textContent = plainWords(e).text; }
}

/** The session reminder the player set in the lobby: every so many minutes since signing in,
 *  the time played, where the player looks. */
function remind(l) {
  const every = l && l.session_reminder_minutes ? l.session_reminder_minutes * 60000 : 0;
  if (!every) return;
  const started = Date.parse(l.session_started_at || "") || Date.now();
  const wait = () => every - ((Date.now() - started) % every);
  const ring = () => {
    const minutes = Math.round((Date.now() - started) / 60000);
    notice(`You have been playing for ${minutes} minute${minutes === 1 ? "" : "s"} (your reminder every ` +
      `${l.session_reminder_minutes}). Your limits are in the lobby.`);
    setTimeout(ring, wait() || every);
  };
  setTimeout(ring, wait());
}

// ----- the live stream and its heartbeat --------------------------------------------------

function logEvent(ev) {
  const p = ev.payload || {};
  const lines = [];
  if (ev.kind === "action") {
    const why = p.auto ? violationWords({ rule: "", message: p.rule || "the time ran out: the house's default action" }).text.replace(/\.$/, "") : "";
    for (const r of p.records || []) lines.push(describe(r) + (why ? ` (${why[0].toLowerCase()}${why.slice(1)})` : ""));
    if (p.auto && p.decision) timedOut(p.decision);
  } else if (ev.kind === "sit") lines.push(`${p.name} sits at seat ${p.seat}`);
  else if (ev.kind === "leave") lines.push(`Seat ${p.seat} is left`);
  else if (ev.kind === "round-open") lines.push(`Round ${p.round} opens`);
  else if (ev.kind === "ready") lines.push(`Seat ${p.seat} is done betting`);
  else if (ev.kind === "correction") { lines.push(correctionWords(p)); corrected(p); }
  else if (ev.kind === "round-end") lines.push(`Round ${p.round} ends`);
  else if (ev.kind === "shoe-commit") lines.push(`Shoe ${p.shoe} is sealed`);
  else if (ev.kind === "shoe-reveal") lines.push(`Shoe ${p.shoe} is revealed: check it on the fairness page`);
  else if (ev.kind === "card") lines.push(`The dealer deals card ${p.position + 1} of shoe ${p.shoe}`);
  else if (ev.kind === "client-seed") lines.push(`Seat ${p.seat} adds a seed for shoe ${p.shoe}`);
  const log = $("#log");
  for (const t of lines) log.append(el("li", { "data-seq": ev.seq }, t));
  while (log.children.length > 200) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

const DEFAULTS = { "no-more-bets": "closed the bets and dealt", stand: "stood", surrender: "surrendered",
  press: "collected the Press win (nothing pressed)", insurance: "declined insurance" };

/** The house took a default action when the time ran out: said in words where the player
 *  looks, for their own seat and for another's. */
function timedOut(d) {
  const mine = mySeat();
  const what = DEFAULTS[d.step] || d.step;
  const hand = d.hand != null ? ` hand ${d.hand + 1}` : "";
  if (d.step === "no-more-bets") { toast("The betting countdown ended: the house closed the bets and dealt.", "info"); return; }
  if (mine && d.seat === mine.seat) toast(`Your time ran out: the house ${what} for you${hand ? ` on${hand}` : ""} (the table's default action).`, "info");
  else toast(`Seat ${d.seat}'s time ran out: the house ${what}${hand ? ` on${hand}` : ""} (the table's default action).`, "info");
}

/** A supervisor's correction in words: what changed. */
function correctionWords(p) {
  if (p.kind === "void") return `Round ${p.round} was voided (${p.reason}): every bet of it is returned and every payment taken back`;
  if (p.kind === "misdeal") return `Round ${p.round} was a misdeal (${p.reason}): every bet of it is returned and every payment taken back`;
  return `A card of round ${p.round} was corrected (${p.reason}): the round is settled again with it`;
}

/** A correction announced where every player looks, with its money effect on the wallet
 *  (the API's balance before and after it). */
async function corrected(p) {
  const before = me ? cents(me.balance) : null;
  if (p.kind !== "card") { wentOn = resultsFor; resultsFor = null; }  // a voided round has no results
  await loadMe();
  await refresh().catch(() => {});
  let effect = "";
  if (me && before !== null) {
    const d = cents(me.balance) - before;
    effect = d ? ` Your wallet ${d > 0 ? "+" : "−"}${money(Math.abs(d))}: now ${me.balance}.` : ` Your wallet is unchanged: ${me.balance}.`;
  }
  toast(`${correctionWords(p)}.${effect}`, "info", p.citation || "a supervisor's approval (a house rule)");
}

let pendingRefresh = null;
function scheduleRefresh() {
  if (pendingRefresh) return;
  pendingRefresh = setTimeout(async () => {
    pendingRefresh = null;
    if (busy) { scheduleRefresh(); return; }  // my own action's answer brings the state
    if (state && loggedSeq <= state.seq) return;
    try { await refresh(); } catch { /* the next event retries */ }
  }, 40);
}

function connect() {
  if (!navigator.onLine) { setConn("offline"); return; }
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/tables/${tableId}/ws?since=${loggedSeq}`);
  socket = ws;
  ws.onopen = () => {
    heard = Date.now();
    ws.send("ping");
    if (conn !== "lost") setConn("live");  // after a lost one: live once it answers
    if (state && loggedSeq > state.seq) scheduleRefresh();
  };
  ws.onmessage = m => {
    heard = Date.now();
    const ev = JSON.parse(m.data);
    if (ev.kind === "pong") { if (conn !== "live" && socket === ws) setConn("live"); return; }
    if (ev.seq > loggedSeq) { loggedSeq = ev.seq; logEvent(ev); }
    if (!state || ev.seq > state.seq) scheduleRefresh();
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    if (conn === "live" || conn === "connecting") setConn("reconnecting");
    setTimeout(connect, 1000);  // resume from the last sequence number seen
  };
}

function heartbeat() {
  if (!navigator.onLine) { setConn("offline"); return; }
  if (!socket) return;
  if (socket.readyState === WebSocket.OPEN) {
    try { socket.send("ping"); } catch { /* closing */ }
    if (Date.now() - heard > DEAD) {
      setConn("lost");
      const dead = socket;
      socket = null;
      dead.close();
      setTimeout(connect, 500);
    }
  }
}

window.addEventListener("offline", () => setConn("offline"));
window.addEventListener("online", () => { setConn("reconnecting"); if (!socket) connect(); });

// ----- keyboard -----------------------------------------------------------------------

const SHORTCUTS = { h: "#act-hit", s: "#act-stand", d: "#act-double", p: "#act-split", r: "#act-surrender",
  n: "#act-deal", a: "#act-advice", i: "#insure-btn" };
document.addEventListener("keydown", ev => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const t = ev.target;
  const typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT");
  if (typing && !(t.id === "press-units" && ev.key === "Enter")) return;
  const k = ev.key.toLowerCase();
  let b = null;
  if (k === "c") b = !$("#press-offer").hidden ? $("#collect-btn") : $("#decline-btn");
  else if (k === "n" && !$("#round-results").hidden) b = $("#rr-next");
  else if (k === "enter" && !$("#press-offer").hidden && (typing || t === document.body)) b = $("#press-btn");
  else if (SHORTCUTS[k]) b = $(SHORTCUTS[k]);
  if (b && !b.disabled && !b.closest("[hidden]")) { ev.preventDefault(); b.click(); }
});

// ----- wiring --------------------------------------------------------------------------

/** A double click decides once: its second click (`detail` 2) on a control that sends a
 *  decision is dropped, even when the first one's answer came first and the control is
 *  open again (a second Hit).  Chips and betting areas take every tap; keys click with
 *  `detail` 0. */
const DECIDES = "#actions [data-action], #act-deal, #bet-place, #bet-decline, #bet-rebet-deal, " +
  "#press-btn, #collect-btn, #insure-btn, #decline-btn";
document.addEventListener("click", e => {
  if (e.detail > 1 && e.target instanceof Element && e.target.closest(DECIDES)) {
    e.stopImmediatePropagation();
    e.preventDefault();
  }
}, true);

for (const b of $$("#actions [data-action]")) b.addEventListener("click", () => act(b.dataset.action));
$("#act-advice").addEventListener("click", showAdvice);
$("#act-deal").addEventListener("click", () => run(() => sendBets(true)));
$("#bet-place").addEventListener("click", () => run(() => sendBets(false)));
$("#bet-decline").addEventListener("click", () => run(callDeal));
$("#bet-rebet").addEventListener("click", rebet);
$("#bet-rebet-deal").addEventListener("click", () => { rebet(); run(() => sendBets(true)); });
$("#bet-undo").addEventListener("click", () => {
  const last = undo.pop();
  if (last) { pending[last[0]] -= last[1]; if (pending[last[0]] <= 0) delete pending[last[0]]; }
  askLimits();
  renderControls();
  keepFocus();
});
$("#bet-clear").addEventListener("click", () => { pending = {}; undo = []; askLimits(); renderControls(); keepFocus(); });
$("#press-units").addEventListener("input", () => renderControls());
$("#press-btn").addEventListener("click", () => {
  const unit = cents(legalOf(mySeat()).press.unit);
  act("press", { amount: money(Math.max(0, Math.floor(Number($("#press-units").value || 0))) * unit) });
});
$("#collect-btn").addEventListener("click", () => act("press", { amount: "0.00" }));
$("#insure-btn").addEventListener("click", () => {
  const c = cents($("#ins-amount").value);
  if (c === null) { toast("Write the insurance amount in whole cents, like 5 or 7.50."); return; }
  act("insurance", { amount: money(c) });
});
$("#decline-btn").addEventListener("click", () => act("insurance", { amount: "0.00" }));
$("#toast-close").addEventListener("click", () => { clearToast(); keepFocus(); });
$("#toast-why").addEventListener("click", () => {
  const open = $("#toast-rule").hidden;
  $("#toast-rule").hidden = !open;
  $("#toast-why").setAttribute("aria-expanded", String(open));
  placeToast();
});
$("#see-results").addEventListener("click", () => { revealResults(true); keepFocus(); });
$("#rr-next").addEventListener("click", () => {
  wentOn = resultsFor;
  resultsFor = null;
  $("#round-results").hidden = true;
  renderControls();
  keepFocus();
});
$("#sound").addEventListener("click", () => { store("sidebet.sound", !soundOn()); renderSound(); });
$("#seed-form").addEventListener("submit", ev => {
  ev.preventDefault();
  const seat = mySeat();
  if (!seat) return;
  run(async () => {
    await api(`/api/tables/${tableId}/seats/${seat.seat}/client-seed`, { method: "POST", body: { seed: $("#client-seed").value } });
    $("#client-seed").value = "";
    await refresh();
  });
});
for (const a of [$("#fair-link"), $("#fair-link2")]) a.href = `/tables/${tableId}/fair`;

async function start() {
  header("table");
  renderSound();
  let limits;
  [info, , limits] = await Promise.all([api(`/api/tables/${tableId}`), loadMe(),
    token() ? api("/api/wallet/limits").catch(() => null) : null, loadWagers()]);
  remind(limits);
  renderLimits(limits);
  // the table's order, the order of settlement (GET /api/wagers), whatever order the
  // server's stored settings come back in
  const order = Object.keys(WAGER_NAMES);
  info.side_wagers.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  info.offered = ["blackjack", ...info.side_wagers.map(w => w.id)];
  renderPaytables();
  buildBetting();
  setState(info.state);
  for (const r of state.records) $("#log").append(el("li", {}, describe(r)));
  loggedSeq = state.seq;
  renderSession();
  if (mySeat()) askLimits();
  if (state.phase === "done") roundOver().finally(renderHistory);
  else renderHistory();
  connect();
  beat = setInterval(heartbeat, HEARTBEAT);
}
start().catch(e => {
  $("#main").classList.remove("loading");
  $("#status").textContent = plainWords(e).text;
});
