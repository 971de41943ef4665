// The table page. Every button follows the server's `legal` list for the seat (the table
// engine's answer); every refusal shown is the server's, with its citation.
import { api, el, cards, chip, cents, money, token, signOut, header, newKey, describe, WAGER_NAMES, Refusal } from "/static/common.js";

const $ = s => document.querySelector(s);
const tableId = Number(location.pathname.split("/")[2]);
const ORDER = ["blackjack", "trilux", "upcard-luck", "three-card-poker", "top3", "blazing7s"];
const CHIPS = ["1.00", "5.00", "25.00", "100.00"];

let info = null;        // the table's rules, paytables and limits
let state = null;       // the live state (hole card hidden)
let me = null;          // the signed-in account
let loggedSeq = 0;      // the last event written to the table log
let busy = false;
let keys = new Map();   // one Idempotency-Key per action per state shown: a double click acts once
let chipValue = "5.00";
let socket = null;

function mySeat() {
  if (!me || !state) return null;
  const s = state.seats.find(x => x.account === me.id);
  return s || null;
}
function legalOf(seat) { return Object.fromEntries((seat ? seat.legal : []).map(x => [x.action, x])); }

function keyFor(action) {
  const k = `${state ? state.seq : 0}:${action}`;
  if (!keys.has(k)) keys.set(k, newKey());
  return keys.get(k);
}

function showError(e) {
  const box = $("#error");
  if (e instanceof Refusal) {
    const rules = e.rules.length ? ` [${e.rules.join("; ")}]` : "";
    box.textContent = `Refused: ${e.message}${rules && !e.message.includes(e.rules[0]) ? rules : ""}`;
  } else box.textContent = String(e.message || e);
}

async function act(action, body, errorBox) {
  const seat = mySeat();
  if (!seat || busy) return;
  busy = true;
  renderControls();
  $("#error").textContent = "";
  if (errorBox) errorBox.textContent = "";
  const path = action === "sit" ? `/api/tables/${tableId}/seats/${body.seat}`
    : `/api/tables/${tableId}/seats/${seat.seat}/${action}`;
  try {
    const r = await api(path, { method: "POST", body: action === "sit" ? undefined : body,
      key: keyFor(action + (body ? JSON.stringify(body) : "")),
      headers: { "Expected-Seq": String(state.seq) } });  // the last event this page shows
    await loadWallet();  // the wallet and the table change together
    if (r && r.state) setState(r.state);
    $("#advice").textContent = "";
  } catch (e) {
    if (e instanceof Refusal && e.status === 409 && /moved on/.test(e.message)) {
      $("#error").textContent = `${e.message}. The page now shows the table as it stands.`;
      await refresh();
    } else if (errorBox) {
      errorBox.textContent = `${e.message}`;
    } else showError(e);
  } finally {
    busy = false;
    renderControls();
  }
}

async function sit(n) {
  $("#error").textContent = "";
  try {
    const r = await api(`/api/tables/${tableId}/seats/${n}`, { method: "POST", key: keyFor(`sit${n}`) });
    setState(r.state);
    loadWallet();
  } catch (e) { showError(e); }
}

function setState(s) {
  if (state && s.seq < state.seq) return;  // an older answer than what is shown
  if (!state || s.seq !== state.seq) keys = new Map();
  state = s;
  render();
}

async function refresh() {
  setState(await api(`/api/tables/${tableId}/state`));
}

async function loadWallet() {
  if (!token()) return;
  try {
    me = await api("/api/me");
    $("#wallet").textContent = me.balance;
  } catch (e) {
    if (e.status === 401) { me = null; signOut(); header("table"); }
  }
}

// ----- rendering ------------------------------------------------------------------------

const PHASES = { betting: "Place your bets", press: "TriLux Deluxe Press", insurance: "Insurance",
  play: "Players act", done: "Round over" };

const SHORT = { blackjack: "BJ", trilux: "TLX", "upcard-luck": "UL", "three-card-poker": "3CP", top3: "T3", blazing7s: "B7" };

function won(x) { return x.outcome !== "lose"; }

function sideLine(x) {
  const name = WAGER_NAMES[x.wager] || x.wager;
  const full = won(x) ? `${name}: WIN, ${x.label}, ${x.pays} to 1, +${x.winnings} (${x.citation})`
    : `${name}: LOSE, ${x.bet} (${x.citation})`;
  return el("li", { class: won(x) ? "won" : "lost", "data-side": x.wager, "data-outcome": x.outcome, title: full },
    el("abbr", { title: name }, SHORT[x.wager] || x.wager), won(x) ? ` WIN +${x.winnings}` : ` LOSE −${x.bet}`);
}

function resultsPanel(seat) {
  const box = $("#my-results");
  const side = (seat && seat.side) || [];
  box.hidden = !side.length;
  if (!side.length) return;
  $("#results-list").replaceChildren(...side.map(x => el("tr", { class: won(x) ? "won" : "lost", "data-result": x.wager },
    el("th", { scope: "row" }, WAGER_NAMES[x.wager] || x.wager),
    el("td", {}, won(x) ? el("strong", {}, "WIN") : "LOSE",
      el("div", { class: "muted" }, won(x) ? `${x.label}, ${x.pays} to 1 (paytable ${x.paytable})` : `${x.player} · ${x.upcard}`),
      el("div", { class: "muted" }, x.citation)),
    el("td", { class: "edge" }, won(x) ? `+${x.winnings}` : `−${x.bet}`))));
}

function handBox(h, i, current) {
  const res = h.result ? `${h.result.toUpperCase()}` : (h.surrendered ? "SURRENDERED" : "");
  const money = [`bet ${h.bet}`];
  if (h.press !== "0.00") money.push(`press ${h.press}`);
  if (h.double !== "0.00") money.push(`double ${h.double}`);
  return el("div", { class: `hand${current ? " current" : ""}`, "data-hand": i, "aria-label": `hand ${i + 1}` },
    cards(h.cards),
    el("div", { class: "money" }, money.join(" · ")),
    el("div", { class: `result ${h.result || ""}` }, res));
}

function seatBox(s) {
  const mine = me && s.account === me.id;
  const turn = state.current && state.current.seat === s.seat;
  const box = el("section", { class: `seat${mine ? " mine" : ""}${turn ? " turn" : ""}${s.player ? "" : " free"}`, "data-seat": s.seat,
    "aria-label": `Seat ${s.seat}${s.player ? `, ${s.player}` : ", free"}${turn ? ", to act" : ""}` });
  box.append(el("h3", {}, `Seat ${s.seat}`, turn ? el("span", { class: "toact" }, " ▸ to act") : null));
  if (s.player) box.append(el("div", { class: "player" }, s.player + (mine ? " (you)" : "")));
  else {
    const canSit = me && !mySeat();
    box.append(el("div", { class: "player" },
      canSit ? el("button", { class: "sit", onclick: () => sit(s.seat), "aria-label": `Sit at seat ${s.seat}` }, "Sit here") : "free"));
  }
  const bets = el("div", { class: "bets" });
  for (const [w, a] of Object.entries(s.bets || {})) {
    bets.append(el("span", { class: "bet", title: `${WAGER_NAMES[w] || w} ${a}`, "data-bet": w },
      chip(a, { "aria-label": `${WAGER_NAMES[w] || w} ${a}` }), el("abbr", { title: WAGER_NAMES[w] || w }, SHORT[w] || w)));
  }
  box.append(bets);
  const hands = el("div", { class: `hands${(s.hands || []).length > 1 ? " split" : ""}` });
  (s.hands || []).forEach((h, i) => hands.append(handBox(h, i, turn && state.current.hand === i)));
  box.append(hands);
  box.append(el("ul", { class: "side" }, (s.side || []).map(sideLine)));
  return box;
}

function statusText() {
  const s = state;
  const parts = [];
  if (s.phase === "betting") parts.push(s.round_open ? "Bets are open: a seated player with a Blackjack wager calls the deal." : "Bets are open.");
  if (s.phase === "press") parts.push("Side wagers are settled, before the dealer checks for Blackjack (§ 633c.11(d)). TriLux Deluxe winners decide on the Press.");
  if (s.phase === "insurance") parts.push("The upcard is an ace: insurance is offered.");
  if (s.phase === "play" && s.current) {
    const seat = s.seats.find(x => x.seat === s.current.seat);
    parts.push(`Seat ${s.current.seat} (${seat && seat.player ? seat.player : "?"}) to act on hand ${s.current.hand + 1}.`);
  }
  if (s.phase === "done") {
    parts.push(`Round ${s.round} is over.`);
    const mine = mySeat();
    if (mine && mine.hands) parts.push(mine.hands.map((h, i) => `Your hand ${i + 1}: ${h.result}`).join("; ") + ".");
    parts.push("Place a bet to start the next round.");
  }
  return parts.join(" ");
}

function render() {
  const s = state;
  document.title = `sidebet — ${s.name}`;
  $("#title").textContent = s.name;
  $("#round").textContent = String(s.round || "—");
  $("#phase").textContent = PHASES[s.phase] || s.phase;
  $("#dealer-cards").replaceWith(Object.assign(cards(s.dealer.cards), { id: "dealer-cards" }));
  $("#dealer-note").textContent = s.dealer.blackjack === true ? "Dealer Blackjack" : "";
  $("#status").textContent = statusText();
  $("#seats").replaceChildren(...s.seats.map(seatBox));
  resultsPanel(mySeat());
  if (s.shoe) {
    $("#shoe-no").textContent = String(s.shoe.shoe);
    $("#commitment").textContent = s.shoe.commitment;
    $("#client-seeds").textContent = s.shoe.client_seeds.length ? s.shoe.client_seeds.join(", ") : "none";
  }
  renderControls();
}

function limitOf(w) {
  const sub = info.submission;
  const l = w === "blackjack" ? (sub.limits || {}) : (sub.side_wagers[w] || {});
  const parts = [];
  if (l.min) parts.push(`min ${l.min}`);
  if (l.max) parts.push(`max ${l.max}`);
  const side = info.side_wagers.find(x => x.id === w);
  const cite = side ? `${side.section}, paytable ${side.paytable}` : "§ 633a.6";
  return `${parts.join(", ") || "no table limit"} · ${cite}`;
}

function buildAreas() {
  const offered = ORDER.filter(w => w === "blackjack" || info.submission.side_wagers[w]);
  const min = (info.submission.limits || {}).min || "10.00";
  $("#areas").replaceChildren(...offered.map(w => {
    const input = el("input", { id: `amount-${w}`, name: "amount", inputmode: "decimal", value: w === "blackjack" ? min : "",
      "aria-label": `${WAGER_NAMES[w]} amount`, placeholder: "0.00" });
    const err = el("div", { class: "error", id: `err-${w}`, role: "alert" });
    const form = el("form", { class: "area", "data-area": w },
      el("h3", {}, WAGER_NAMES[w]),
      el("div", { class: "limit" }, limitOf(w)),
      el("div", { class: "row" }, input,
        el("button", { type: "button", class: "add-chip", "aria-label": `Add a chip to ${WAGER_NAMES[w]}`,
          onclick: () => { const c = (cents(input.value) || 0) + cents(chipValue); input.value = money(c); } }, "+ chip"),
        el("button", { type: "submit", class: "bet-btn", id: `bet-${w}` }, "Bet")),
      err);
    form.addEventListener("submit", ev => {
      ev.preventDefault();
      act("bets", { wager: w, amount: input.value.trim() }, err);
    });
    return form;
  }));
  $("#chips").replaceChildren(...CHIPS.map(v => el("button", { type: "button", class: "chipbtn", "aria-pressed": String(v === chipValue),
    "aria-label": `chip ${v}`, onclick: ev => { chipValue = v; for (const b of document.querySelectorAll(".chipbtn")) b.setAttribute("aria-pressed", String(b === ev.currentTarget)); } },
    chip(v))));
}

function renderControls() {
  const seat = mySeat();
  const legal = legalOf(seat);
  $("#sit-note").textContent = !me ? "Sign in in the lobby, then take a free seat."
    : seat ? `You are at seat ${seat.seat}. Buttons follow what the table engine allows now.` : "Take a free seat with “Sit here”.";
  const betting = legal.bet ? new Set(legal.bet.wagers) : new Set();
  $("#betting").hidden = !seat || !(state.phase === "betting" || state.phase === "done");
  for (const form of document.querySelectorAll("form.area")) {
    const w = form.dataset.area;
    const placed = seat && seat.bets && seat.bets[w];
    form.classList.toggle("placed", !!placed);
    for (const b of form.querySelectorAll("button")) b.disabled = busy || !betting.has(w);
    form.querySelector("input").disabled = !betting.has(w);
    if (placed) form.querySelector("input").value = placed;
  }
  for (const b of document.querySelectorAll("#actions [data-action]")) {
    const a = b.dataset.action;
    b.disabled = busy || !legal[a];
  }
  const d = legal.double, sp = legal.split;
  $("#act-double").firstChild.textContent = d ? `Double (up to ${d.max})` : "Double";
  $("#act-split").firstChild.textContent = sp ? `Split (${sp.cost})` : "Split";
  const adviceOpen = !!(legal.press || legal.hit || legal.stand || legal.insurance);
  $("#act-advice").disabled = busy || !adviceOpen;
  // the Press offer
  const press = legal.press;
  $("#press-offer").hidden = !press;
  if (press) {
    const unit = cents(press.unit), max = cents(press.max);
    const side = (seat.side || []).find(x => x.wager === "trilux");
    $("#press-text").textContent = `TriLux Deluxe won ${side ? side.winnings : "?"} (${side ? side.label : ""}, ${side ? side.pays : "?"} to 1). ` +
      `Press 0 to ${max / unit} table units of ${press.unit} (at most ${press.max}) onto your Blackjack wager (§ 633c.11(e)); the rest is paid to you.`;
    const u = $("#press-units");
    u.max = String(max / unit);
    if (Number(u.value) > max / unit) u.value = String(max / unit);
    $("#press-amount").textContent = money(Number(u.value || 0) * unit);
  }
  $("#press-btn").disabled = $("#collect-btn").disabled = busy || !press;
  const ins = legal.insurance;
  $("#insurance-offer").hidden = !ins;
  if (ins && !$("#ins-amount").value) $("#ins-amount").value = ins.max;
  $("#insure-btn").disabled = $("#decline-btn").disabled = busy || !ins;
  $("#seed-btn").disabled = !seat;
}

async function showAdvice() {
  const seat = mySeat();
  if (!seat) return;
  $("#advice").textContent = "Computing the exact advice…";
  try {
    const a = await api(`/api/tables/${tableId}/seats/${seat.seat}/advice`);
    if (a.kind === "press") {
      $("#advice").textContent = `Exact advice: ${a.advice.toUpperCase()}. Pressing all ${a.max}: expected ${a.ev_press_all}; ` +
        `collecting: expected ${a.ev_collect} (${a.ev_per_unit >= 0 ? "+" : ""}${a.ev_per_unit.toFixed(4)} per unit pressed; ` +
        `best play of the hand: ${a.play}). Basis: ${a.basis}.`;
    } else if (a.kind === "play") {
      const list = a.actions.map(x => `${x.action} ${x.ev >= 0 ? "+" : ""}${x.ev.toFixed(4)}`).join(", ");
      $("#advice").textContent = `Exact advice: ${a.best.toUpperCase()}. Expected value per unit: ${list}. Basis: ${a.basis}.`;
    } else if (a.kind === "insurance") {
      $("#advice").textContent = `Exact advice: ${a.advice.toUpperCase()}. Insurance is worth ${a.ev_per_unit >= 0 ? "+" : ""}${a.ev_per_unit.toFixed(4)} per unit insured. Basis: ${a.basis}.`;
    } else $("#advice").textContent = "No exact advice for this decision.";
  } catch (e) { $("#advice").textContent = e.message; }
}

// ----- the live stream --------------------------------------------------------------------

function logEvent(ev) {
  const p = ev.payload || {};
  const lines = [];
  if (ev.kind === "action") {
    const who = p.auto ? " (default action: time limit)" : "";
    for (const r of p.records || []) lines.push(describe(r) + who);
  } else if (ev.kind === "sit") lines.push(`${p.name} sits at seat ${p.seat}`);
  else if (ev.kind === "leave") lines.push(`Seat ${p.seat} is left`);
  else if (ev.kind === "round-open") lines.push(`Round ${p.round} opens`);
  else if (ev.kind === "round-end") lines.push(`Round ${p.round} ends (game ${p.game})`);
  else if (ev.kind === "shoe-commit") lines.push(`Shoe ${p.shoe} committed: ${String(p.commitment).slice(0, 16)}…`);
  else if (ev.kind === "shoe-reveal") lines.push(`Shoe ${p.shoe} revealed: verify it on the fairness page`);
  else if (ev.kind === "client-seed") lines.push(`Seat ${p.seat} gives a client seed for shoe ${p.shoe}`);
  const log = $("#log");
  for (const t of lines) log.append(el("li", { "data-seq": ev.seq }, t));
  while (log.children.length > 200) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

let pending = null;
function scheduleRefresh() {
  if (pending) return;
  pending = setTimeout(async () => {
    pending = null;
    try {
      const [s] = await Promise.all([api(`/api/tables/${tableId}/state`), loadWallet()]);
      setState(s);
    } catch { /* the next event retries */ }
  }, 30);
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${proto}://${location.host}/api/tables/${tableId}/ws?since=${loggedSeq}`);
  socket.onopen = () => { $("#conn").textContent = "live"; };
  socket.onmessage = m => {
    const ev = JSON.parse(m.data);
    if (ev.seq > loggedSeq) { loggedSeq = ev.seq; logEvent(ev); }
    if (!state || ev.seq > state.seq) scheduleRefresh();
  };
  socket.onclose = () => {
    $("#conn").textContent = "reconnecting";
    setTimeout(connect, 1000);  // resume from the last sequence number seen
  };
}

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
  else if (k === "enter" && !$("#press-offer").hidden) b = $("#press-btn");
  else if (SHORTCUTS[k]) b = $(SHORTCUTS[k]);
  if (b && !b.disabled && !b.closest("[hidden]")) { ev.preventDefault(); b.click(); }
});

// ----- wiring --------------------------------------------------------------------------

for (const b of document.querySelectorAll("#actions [data-action]")) {
  b.addEventListener("click", () => act(b.dataset.action));
}
$("#act-advice").addEventListener("click", showAdvice);
$("#press-units").addEventListener("input", () => renderControls());
$("#press-btn").addEventListener("click", () => {
  const seat = mySeat();
  const unit = cents(legalOf(seat).press.unit);
  act("press", { amount: money(Math.max(0, Math.floor(Number($("#press-units").value || 0))) * unit) });
});
$("#collect-btn").addEventListener("click", () => act("press", { amount: "0.00" }));
$("#insure-btn").addEventListener("click", () => act("insurance", { amount: $("#ins-amount").value.trim() }));
$("#decline-btn").addEventListener("click", () => act("insurance", { amount: "0.00" }));
$("#seed-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const seat = mySeat();
  if (!seat) return;
  try {
    await api(`/api/tables/${tableId}/seats/${seat.seat}/client-seed`, { method: "POST", body: { seed: $("#client-seed").value } });
    $("#client-seed").value = "";
    await refresh();
  } catch (e) { showError(e); }
});
for (const a of [$("#fair-link"), $("#fair-link2")]) a.href = `/tables/${tableId}/fair`;

async function start() {
  header("table");
  await loadWallet();
  info = await api(`/api/tables/${tableId}`);
  buildAreas();
  setState(info.state);
  for (const r of state.records) $("#log").append(el("li", {}, describe(r)));
  loggedSeq = state.seq;
  connect();
}
start().catch(e => { $("#status").textContent = e.message; });
