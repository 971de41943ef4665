// The fairness view: recompute a revealed shoe's commitment and shuffle with Web Crypto,
// compare it with the cards dealt, and replay past rounds step by step.
import { api, el, cards, token, header, describe, plainWords } from "/static/common.js";

const $ = s => document.querySelector(s);
const tableId = Number(location.pathname.split("/")[2]);
let codes = [];
let games = [];

const hex = buf => Array.from(new Uint8Array(buf), b => b.toString(16).padStart(2, "0")).join("");
const unhex = h => new Uint8Array(h.match(/../g).map(x => parseInt(x, 16)));

// Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True)
function canonical(obj) {
  const keys = Object.keys(obj).sort();
  const body = keys.map(k => `${JSON.stringify(k)}:${JSON.stringify(obj[k])}`).join(",");
  return `{${body}}`.replace(/[\u0080-\uffff]/g, c => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

export async function commitmentOf(seedHex) {
  return hex(await crypto.subtle.digest("SHA-256", unhex(seedHex)));
}

/** The shoe's dealing order (card indices), recomputed in the browser. */
export async function shuffle(seedHex, clientSeeds, nonce, decks) {
  const key = await crypto.subtle.importKey("raw", unhex(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const enc = new TextEncoder();
  let words = [], counter = 0, next = 0;
  async function word() {
    if (next >= words.length) {
      const blocks = await Promise.all(Array.from({ length: 64 }, (_, i) =>
        crypto.subtle.sign("HMAC", key, enc.encode(canonical({ client_seeds: clientSeeds, counter: counter + i, nonce })))));
      counter += 64;
      for (const b of blocks) { const v = new DataView(b); for (let k = 0; k < 32; k += 4) words.push(v.getUint32(k, false)); }
    }
    return words[next++];
  }
  async function below(m) {
    const limit = 2 ** 32 - (2 ** 32 % m);
    for (;;) { const w = await word(); if (w < limit) return w % m; }
  }
  const order = [];
  for (let d = 0; d < decks; d++) for (let i = 0; i < 52; i++) order.push(i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = await below(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

async function verify(shoe) {
  const box = $("#verify");
  box.replaceChildren(el("p", {}, `Verifying shoe ${shoe.shoe} in your browser…`));
  const out = [];
  const digest = await commitmentOf(shoe.server_seed);
  const okC = digest === shoe.commitment;
  out.push(el("p", { class: okC ? "verify-ok" : "verify-bad", "data-check": "commitment" },
    okC ? `✓ Commitment verified: SHA-256 of the revealed seed is ${digest}, the commitment published before the first card.`
        : `✗ Commitment mismatch: SHA-256 of the revealed seed is ${digest}, not ${shoe.commitment}.`));
  const order = await shuffle(shoe.server_seed, shoe.client_seeds, shoe.nonce, shoe.decks);
  out.push(el("p", {}, `Shuffle recomputed: ${order.length} cards, seed ${shoe.server_seed.slice(0, 16)}…, client seeds [${shoe.client_seeds.join(", ")}], nonce ${shoe.nonce}. First cards:`),
    cards(order.slice(0, 12).map(i => codes[i]).join(" ")));
  let rounds = 0, checked = 0, bad = [];
  for (const g of games) {
    const h = g.history;
    if (!h || !h.fair_shoes) continue;
    const dealt = h.cards.split(/\s+/).filter(Boolean);
    let at = 0;
    let used = false;
    for (const span of h.fair_shoes) {
      if (span.shoe === shoe.shoe) {
        used = true;
        for (let k = 0; k < span.cards; k++) {
          checked++;
          if (codes[order[span.start + k]] !== dealt[at + k]) bad.push(`${g.game}: card ${at + k + 1} was ${dealt[at + k]}, the shuffle gives ${codes[order[span.start + k]]}`);
        }
      }
      at += span.cards;
    }
    if (used) rounds++;
  }
  if (!rounds) out.push(el("p", { class: "muted", "data-check": "rounds" }, "None of your rounds dealt from this shoe, so no dealt card was compared."));
  else if (!bad.length) out.push(el("p", { class: "verify-ok", "data-check": "rounds" }, `✓ Shuffle verified: all ${checked} cards of your ${rounds} round(s) from this shoe are the recomputed order.`));
  else out.push(el("p", { class: "verify-bad", "data-check": "rounds" }, `✗ ${bad.length} of ${checked} cards are not the recomputed order${shoe.stacked ? " (this shoe was stacked by a test-only server setting)" : ""}: ${bad.slice(0, 3).join("; ")}`));
  box.replaceChildren(...out);
}

function replay(g) {
  const recs = g.history.records;
  let k = 0;
  const box = $("#replay");
  const show = () => {
    const hadFocus = box.contains(document.activeElement);
    const r = recs[k];
    const dealtSoFar = recs.slice(0, k + 1).filter(x => x.cards).map(x => x.cards).join(" ");
    box.replaceChildren(
      el("h3", {}, `Replay of ${g.game} (round ${g.round}), step ${k + 1} of ${recs.length}`),
      el("p", { "data-step": k }, describe(r), r.citation ? el("span", { class: "muted" }, ` [${r.citation}]`) : null),
      r.cards ? cards(r.cards) : el("div", { class: "cards" }),
      el("p", { class: "muted" }, `Cards shown so far: ${dealtSoFar || "none"}`),
      el("div", { class: "row" },
        el("button", { id: "prev-step", disabled: k === 0, onclick: () => { k--; show(); } }, "◀ Previous step"),
        el("button", { id: "next-step", disabled: k === recs.length - 1, onclick: () => { k++; show(); } }, "Next step ▶")),
      el("p", { class: "muted" }, `Dealer ${g.outcome.dealer}; your hands: ${g.outcome.hands.map(h => `${h.cards} ${h.result}`).join(", ")}`));
    const focus = box.querySelector(k === recs.length - 1 ? "#prev-step" : "#next-step");
    if (focus && hadFocus) focus.focus();
  };
  show();
  box.querySelector("#next-step").focus();
}

async function start() {
  header("fair");
  $("#table-link").href = `/tables/${tableId}`;
  codes = await api("/api/cards");
  const shoes = await api(`/api/tables/${tableId}/shoes`);
  if (token()) {
    try { games = (await api(`/api/games?table=${tableId}&limit=1000`)).filter(g => g.status === "complete"); } catch { games = []; }
    $("#games").replaceChildren(...(games.length ? games.map(g => el("li", {},
      `${g.game}: round ${g.round}, ${g.started_at} `, el("button", { class: "replay-btn", "data-game": g.game, onclick: () => replay(g) }, `Replay ${g.game}`)))
      : [el("li", { class: "muted" }, "No finished round yet.")]));
  }
  $("#shoes").replaceChildren(...shoes.map(s => el("tr", { "data-shoe": s.shoe },
    el("td", {}, String(s.shoe)),
    el("td", {}, el("code", {}, s.commitment)),
    el("td", { class: "mono" }, s.client_seeds.join(", ") || "none"),
    el("td", {}, s.revealed ? "revealed" : s.sealed ? `in use (${s.dealt} dealt)` : "committed, not shuffled yet", s.stacked ? " · stacked (test setting)" : ""),
    el("td", {}, s.revealed ? el("button", { class: "verify-btn", "data-shoe": s.shoe, onclick: () => verify(s) }, `Verify shoe ${s.shoe}`)
      : el("span", { class: "muted" }, "seed revealed after the shoe")))));
}
start().catch(e => { $("#verify").textContent = plainWords(e).text; });
