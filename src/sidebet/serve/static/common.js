// Shared by the pages: the API client, the signed-in account, cards and money as HTML.
// Nothing here decides a rule: what is legal and what is paid comes from the server.

const TOKEN = "sidebet.token";
const REFRESH = "sidebet.refresh";
const NAME = "sidebet.name";

export function token() { return localStorage.getItem(TOKEN); }
export function userName() { return localStorage.getItem(NAME); }
export function signOut() {
  const t = token();
  if (t) fetch("/api/tokens/current", { method: "DELETE", headers: { Authorization: `Bearer ${t}` } }).catch(() => {});
  for (const k of [TOKEN, REFRESH, NAME]) localStorage.removeItem(k);
}

function keep(r) {
  localStorage.setItem(TOKEN, r.token);
  if (r.refresh_token) localStorage.setItem(REFRESH, r.refresh_token);
}

// A bearer token expires: trade the refresh token for a new pair once (false if it cannot).
async function refreshed() {
  const rt = localStorage.getItem(REFRESH);
  if (!rt) return false;
  const r = await fetch("/api/tokens/refresh", { method: "POST", headers: { "Content-Type": "application/json" },
                                                 body: JSON.stringify({ refresh_token: rt }) });
  if (!r.ok) { localStorage.removeItem(REFRESH); return false; }
  keep(await r.json());
  return true;
}

export function newKey() {
  return (crypto.randomUUID ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), b => b.toString(16).padStart(2, "0")).join(""));
}

/** A refused request: the server's one-line detail and its cited violations. */
export class Refusal extends Error {
  constructor(status, body) {
    super(body && body.detail ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.violations = (body && body.violations) || [];
  }
  get rules() { return this.violations.map(v => v.rule).filter(Boolean); }
}

export async function api(path, { method = "GET", body, key, headers = {} } = {}, retried = false) {
  const h = { ...headers };
  const t = token();
  if (t) h["Authorization"] = `Bearer ${t}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  if (method !== "GET") h["Idempotency-Key"] = key || newKey();
  if (method !== "GET" && !key) key = h["Idempotency-Key"];  // a retry reuses it
  const r = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status === 401 && t && !retried && await refreshed()) return api(path, { method, body, key, headers }, true);
  let data = null;
  const text = await r.text();
  try { data = text ? JSON.parse(text) : null; } catch { data = { detail: text }; }
  if (!r.ok) throw new Refusal(r.status, data);
  return data;
}

export async function signIn(name, password) {
  const r = await api("/api/tokens", { method: "POST", body: { name, password } });
  keep(r);
  localStorage.setItem(NAME, name);
  return r;
}

export async function signUp(name, password) {
  await api("/api/accounts", { method: "POST", body: { name, password } });
  return signIn(name, password);
}

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, "");
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

const SUITS = {
  c: { sym: "♣", name: "clubs", cls: "black" },
  d: { sym: "♦", name: "diamonds", cls: "red" },
  h: { sym: "♥", name: "hearts", cls: "red" },
  s: { sym: "♠", name: "spades", cls: "black" },
};
const RANKS = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10", "10": "10" };

/** A card from its code ("As", "10h", "??" for the hidden hole card), drawn in CSS. */
export function card(code) {
  if (!code || code === "??") {
    return el("span", { class: "card back", role: "img", "aria-label": "face-down card" },
      el("span", { class: "sr", text: "face-down card" }));
  }
  const suit = SUITS[code.slice(-1)];
  let rank = code.slice(0, -1);
  if (rank === "T") rank = "10";
  const name = `${RANKS[rank] || rank} of ${suit.name}`;
  return el("span", { class: `card ${suit.cls} suit-${suit.name}`, role: "img", "aria-label": name, title: name },
    el("span", { class: "rank", "aria-hidden": "true" }, rank),
    el("span", { class: "pip", "aria-hidden": "true" }, suit.sym),
    el("span", { class: "corner", "aria-hidden": "true" }, el("span", {}, rank), el("span", {}, suit.sym)));
}

export function cards(text) {
  const codes = (text || "").split(/\s+/).filter(Boolean);
  return el("span", { class: "cards" }, codes.map(card));
}

/** A chip of a denomination (text on it: colour is not the only carrier). */
export function chip(amount, extra = {}) {
  const whole = String(amount).replace(/\.00$/, "");
  const tier = Number(amount) >= 1000 ? "c1000" : Number(amount) >= 500 ? "c500" : Number(amount) >= 100 ? "c100"
    : Number(amount) >= 25 ? "c25" : Number(amount) >= 5 ? "c5" : "c1";
  return el("span", { class: `chip ${tier}`, ...extra }, whole);
}

/** Money text ("12.50") to cents, exactly (no floating point). */
export function cents(text) {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(String(text).trim());
  if (!m) return null;
  return (m[1] ? -1 : 1) * (Number(m[2]) * 100 + Number((m[3] || "0").padEnd(2, "0")));
}

export function money(c) {
  const sign = c < 0 ? "-" : "";
  const a = Math.abs(c);
  return `${sign}${Math.floor(a / 100)}.${String(a % 100).padStart(2, "0")}`;
}

/** Each wager's name and short label: Blackjack's, and the side wagers' from the server
 *  (`/api/wagers`, filled in by loadWagers before a page draws). */
export const WAGER_NAMES = { blackjack: "Blackjack" };
export const WAGER_SHORT = { blackjack: "BJ" };
/** The wager whose winnings may be pressed: the Press bears its name. */
export const PRESSABLE = { id: "", name: "" };

let wagersLoaded = null;
/** Load the side wagers' names once, and write the Press's name into every `.press-name`. */
export function loadWagers() {
  wagersLoaded ||= api("/api/wagers").then(list => {
    for (const w of list) {
      WAGER_NAMES[w.id] = w.name;
      WAGER_SHORT[w.id] = w.short;
      if (w.pressable) Object.assign(PRESSABLE, { id: w.id, name: w.name });
    }
    for (const e of document.querySelectorAll(".press-name")) e.textContent = PRESSABLE.name;
  });
  return wagersLoaded;
}

const PHASES = { betting: "Bets open", insurance: "Insurance", play: "Players act", done: "Round over" };
/** A round's phase as the players and the dealer read it. */
export function phaseWords(phase) { return phase === "press" ? `${PRESSABLE.name} Press` : PHASES[phase] || phase; }

const VERBS = { hit: "hits", stand: "stands", double: "doubles", split: "splits", surrender: "surrenders" };

/** A record of the table engine as a sentence a player reads. */
export function describe(r) {
  const seat = r.seat == null ? "" : `Seat ${r.seat}`;
  const hand = r.hand != null ? ` hand ${r.hand + 1}` : "";
  const wager = WAGER_NAMES[r.wager] || r.wager;
  switch (r.step) {
    case "bet": return `${seat} bets ${r.amount} on ${wager}`;
    case "no-more-bets": return "No more bets";
    case "deal": return "The cards are dealt";
    case "side-wager": return r.outcome && r.outcome !== "lose"
      ? `${seat} wins ${r.amount} on ${wager}: ${r.note || r.outcome}` : `${seat} loses the ${wager} wager`;
    case "press": return r.amount && r.amount !== "0.00" ? `${seat} presses ${r.amount}` : `${seat} collects the ${PRESSABLE.name} win`;
    case "insurance": return r.amount && r.amount !== "0.00" ? `${seat} insures ${r.amount}` : `${seat} declines insurance`;
    case "card-reader": return `The dealer checks for Blackjack${r.outcome ? `: ${r.outcome}` : ""}`;
    case "deal-to-hand": return `${seat}${hand} is dealt ${r.cards || "a card"}`;
    case "dealer-play": return `The dealer ${r.cards ? `shows ${r.cards}` : "plays"}${r.outcome ? `: ${r.outcome}` : ""}`;
    case "settle": return "The round is settled";
    default: {
      const verb = VERBS[r.step] || r.step;
      let t = `${seat || "Dealer"}${hand} ${verb}`;
      if (r.amount) t += ` ${r.amount}`;
      if (r.cards) t += `: ${r.cards}`;
      return t;
    }
  }
}

/** One field of a refused form (the server's "body.<field>: <what is wrong>") in a
 *  player's words: `fields` gives each field's name and how to write it; a bound is the
 *  server's own number. */
function fieldError(message, fields) {
  const m = /^body\.([\w.]+): (.*)$/.exec(message);
  if (!m || !fields[m[1]]) return null;
  const [label, how] = fields[m[1]];
  const bound = /(greater|less) than or equal to (-?[0-9.]+)/.exec(m[2]);
  if (bound) return `${label} must be ${bound[1] === "greater" ? "at least" : "at most"} ${bound[2]}.`;
  return `${label}: ${how}.`;
}

const CITED = /^(§\s*\d+[\w.]*(?:\(\w+\))*(?:-\(\w+\))?|interpretation \d+|house rules?)\s*:\s*/i;
const sentence = m => m ? `${m[0].toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? "" : "."}` : m;

/** One broken rule in a reader's words and the rule behind it, `{text, rule}`: a citation
 *  the message starts with moves to `rule`; the engine's internal words (its phases, step
 *  names, "house rule:") are left out; `seat`, the reader's own seat, is said "your seat". */
export function violationWords(v, { seat = null } = {}) {
  let m = String(v.message || "").trim();
  let rule = v.rule || "";
  for (let cited = CITED.exec(m); cited; cited = CITED.exec(m)) {
    m = m.slice(cited[0].length);
    if (!rule) rule = cited[1];
  }
  if (seat != null) {
    m = m.replace(new RegExp(`\\bseat ${seat}'s\\b`, "g"), "your seat's").replace(new RegExp(`\\bseat ${seat}\\b`, "g"), "your seat");
    m = m.replace(/\bits ([\w-]+) wager\b/, (_, w) => `your ${WAGER_NAMES[w] || WAGER_NAMES[w.toLowerCase()] || w} bet`)
      .replace(/^your seat has\b/, "you have").replace(/^your seat holds\b/, "you hold").replace(/^your seat is\b/, "you are");
  }
  if (/has no (bet|bets) decision now|bets? (are|is) (already )?closed/i.test(m)) m = "bets are closed for this round: the cards are being dealt";
  m = m.replace(/\s*\(phase [\w-]+\)/g, "").replace(/\s*\(house rules\)/g, " at this table")
    .replace(/\(house rules: /g, "(this table: ").replace(/\bno-more-bets\b/g, "no more bets")
    .replace(/\b(?:its|the table's) last event is \d+(?:, not \d+)?/g, "it changed meanwhile");
  return { text: sentence(m), rule: /^house rules?$/i.test(rule) ? "a house rule (the operator's, not the regulations')" : rule };
}

/** What a refusal or failure means, in words a player or a dealer understands, and the
 *  rule behind it: `{text, rule}` (`rule` empty when none is cited).  `fields` names the
 *  fields of the form sent (see fieldError); `seat` is the reader's own seat.  Every page
 *  shows its refusals through this one function (showRefusal, or the table's toast). */
export function plainWords(e, { fields = {}, seat = null } = {}) {
  if (!(e instanceof Refusal)) return { text: "The table server did not answer: your connection may be down. Nothing was changed that the page knows of.", rule: "" };
  if (e.status === 409 && /moved on|last event/.test(e.message)) return { text: "The table changed while you chose: it now shows where the round stands.", rule: "" };
  const own = e.violations.map(v => (v.rule ? null : fieldError(v.message, fields))).filter(Boolean);
  if (own.length) return { text: own.join(" "), rule: "" };
  const form = e.violations.length && e.violations.every(v => !v.rule && /^(body|query|path)\b/.test(v.message));
  if (form) {
    const names = [...new Set(e.violations.map(v => (/^\w+\.([\w.]+):/.exec(v.message) || [0, "form"])[1].replace(/[._]/g, " ")))];
    return { text: /amount/.test(names.join(" ")) && names.length === 1 ? "Write amounts in whole cents, like 10 or 12.50."
      : `Check what you wrote: the ${names.join(" and the ")} ${names.length > 1 ? "are" : "is"} missing or not written as expected.`, rule: "" };
  }
  const v = e.violations.find(x => x.rule) || e.violations[0];
  if (v) return violationWords(v, { seat });
  return violationWords({ rule: "", message: e.message || `The server refused (${e.status}).` });
}

/** Words and the rule behind them one tap away (an expander "Rule"), as nodes. */
export function withRule({ text, rule }) {
  return rule ? [text, " ", el("details", { class: "why" }, el("summary", {}, "Rule"), el("span", { class: "rule" }, rule))] : [text];
}

/** A refusal shown in `box`: its words, and the rule behind them one tap away. */
export function showRefusal(box, e, opts = {}) { box.replaceChildren(...withRule(plainWords(e, opts))); }

export function header(active) {
  const nav = document.querySelector("header.top");
  if (!nav) return;
  const name = userName();
  nav.querySelector(".who").textContent = name ? `Signed in as ${name}` : "Not signed in";
  for (const a of nav.querySelectorAll("a[data-nav]")) if (a.dataset.nav === active) a.setAttribute("aria-current", "page");
}
