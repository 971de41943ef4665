// The dealer's page of a dealer-assist table: cards typed or tapped in dealing order, what
// to pay or collect seat by seat (the server's order, from the engine), the Press and the
// players' decisions entered, corrections asked for and approved.  Nothing here decides a
// rule: every answer, refusal and amount comes from the server.
import { api, cards, el, header, phaseWords, showRefusal, withRule, signIn, token, WAGER_NAMES, loadWagers } from "/static/common.js";

const params = new URLSearchParams(location.search);
let table = Number(params.get("table")) || null;
let screen = null;
let rank = null;
const $ = id => document.getElementById(id);

function say(text) { $("message").textContent = text || ""; }
/** The fields of the dealer's forms, named as the dealer reads them (see plainWords). */
const FIELDS = { card: ["The card", "write it like 8h, Ts or Ad"], position: ["The position", "write the card's number in the shoe"],
  amount: ["The amount", "write it in whole cents, like 10 or 12.50"], reason: ["Why", "say why the correction is asked for"],
  wager: ["The wager", "choose one of the wagers offered"] };
/** A refusal where the dealer looks: plain words, the rule one tap away. */
const refused = e => showRefusal($("message"), e, { fields: FIELDS });

async function run(action) {
  try { say(""); await action(); } catch (e) { refused(e); }
  await refresh();
}

const post = (path, body) => api(`/api/dealer/tables/${table}${path}`, { method: "POST", body });

async function enter(code) {
  await run(() => post("/cards", { position: screen.shoe.next_position, card: code }));
}

function pad() {
  for (const r of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]) {
    $("ranks").append(el("button", { type: "button", "data-rank": r, "aria-pressed": "false",
      "aria-label": `rank ${r === "T" ? "10" : r}`, onclick: e => {
        rank = r;
        for (const b of $("ranks").children) b.setAttribute("aria-pressed", String(b === e.currentTarget));
      } }, r === "T" ? "10" : r));
  }
  for (const [s, sym, name] of [["s", "♠", "spades"], ["h", "♥", "hearts"], ["d", "♦", "diamonds"], ["c", "♣", "clubs"]]) {
    $("suits").append(el("button", { type: "button", "data-suit": s, "aria-label": name,
      class: s === "h" || s === "d" ? "red" : "", onclick: async () => {
        if (!rank) { say("Tap a rank first, then its suit."); return; }
        const code = rank + s;
        rank = null;
        for (const b of $("ranks").children) b.setAttribute("aria-pressed", "false");
        await enter(code);
      } }, sym));
  }
}

const LABELS = { deal: "No more bets: deal", hit: "Hit", stand: "Stand", double: "Double",
                 split: "Split", surrender: "Surrender" };

function seatBox(s) {
  const box = el("div", { class: "dseat", "data-seat": s.seat },
    el("h3", {}, `Seat ${s.seat}`, s.player ? ` · ${s.player}` : " · empty"));
  const bets = Object.entries(s.bets || {});
  if (bets.length) box.append(el("p", { class: "muted" }, bets.map(([w, a]) => `${WAGER_NAMES[w] || w} ${a}`).join(" · ")));
  for (const [i, h] of (s.hands || []).entries()) {
    box.append(el("p", {}, `Hand ${i + 1}: `, cards(h.cards), h.result ? ` — ${h.result}` : ""));
  }
  const acts = el("div", { class: "row acts" });
  for (const o of s.legal || []) {
    if (LABELS[o.action]) {
      acts.append(el("button", { type: "button", "data-act": o.action,
        onclick: () => run(() => post(`/seats/${s.seat}/${o.action}`)) }, LABELS[o.action]));
    } else if (o.action === "insurance") {  // up to the engine's most (o.max)
      const amount = el("input", { "aria-label": `Seat ${s.seat} insurance amount`, value: o.max || "0.00", size: "7", inputmode: "decimal" });
      acts.append(`Insurance up to ${o.max} `, amount,
        el("button", { type: "button", "data-act": "insure",
          onclick: () => run(() => post(`/seats/${s.seat}/insurance`, { amount: amount.value })) }, "Takes insurance"),
        el("button", { type: "button", "data-act": "insurance",
          onclick: () => run(() => post(`/seats/${s.seat}/insurance`, { amount: "0" })) }, "Declines insurance"));
    } else if (o.action === "bet" && s.player) {
      const amount = el("input", { "aria-label": `Seat ${s.seat} amount`, value: "10.00", size: "7", inputmode: "decimal" });
      const wager = el("select", { "aria-label": `Seat ${s.seat} wager` },
        (o.wagers || []).map(w => el("option", { value: w }, WAGER_NAMES[w] || w)));
      acts.append(wager, amount, el("button", { type: "button", "data-act": "bet",
        onclick: () => run(() => post(`/seats/${s.seat}/bets`, { wager: wager.value, amount: amount.value })) }, "Bet"));
    }
  }
  box.append(acts);
  return box;
}

function draw() {
  const s = screen;
  $("title").textContent = `Dealer — ${s.name}`;
  $("round").textContent = s.round;
  $("phase").textContent = s.voided ? "Round voided" : phaseWords(s.phase);
  $("next").textContent = s.voided ? "The round was voided: take the bets of the next round" : s.next.charAt(0).toUpperCase() + s.next.slice(1);
  $("shoe-no").textContent = s.shoe.shoe;  // numbered as the players' log numbers it
  $("next-position").textContent = s.shoe.next_position + 1;
  $("waiting").replaceChildren(s.shoe.waiting.length ? cards(s.shoe.waiting.join(" ")) : "none");
  const last = s.shoe.next_position - 1;  // the last card entered, while it waits
  $("undo-card").hidden = !s.shoe.waiting.length;
  $("undo-card").onclick = () => run(() => post(`/cards/${last}/undo`));
  $("instructions").replaceChildren(...s.instructions.map(i => el("li", { "data-seat": i.seat },
    `Seat ${i.seat} · ${i.name} (stake ${i.stake}): `, el("span", { class: i.action }, `${i.action} ${i.amount}`),
    ...withRule({ text: ` · ${i.line}${i.action === "pay" ? `, ${i.pays} to 1` : ""}`, rule: i.citation }))));
  if (!s.instructions.length) $("instructions").append(el("li", { class: "muted" }, "after the second card of every player and the dealer"));
  $("press").replaceChildren(...s.press.map(p => {
    const li = el("li", { "data-seat": p.seat }, `Seat ${p.seat} won ${p.winnings}: `);
    if (p.pressed !== null) { li.append(p.pressed === "0.00" ? "collected" : `pressed ${p.pressed}`); return li; }
    // at 0, as on the player's page: the dealer enters the player's choice
    const amount = el("input", { "aria-label": `Seat ${p.seat} Press amount`, value: "0.00", size: "7", inputmode: "decimal" });
    li.append(`presses up to ${p.max} `, amount,
      el("button", { type: "button", "data-act": "press", onclick: () => run(() => post(`/seats/${p.seat}/press`, { amount: amount.value })) }, "Press"),
      el("button", { type: "button", "data-act": "collect", onclick: () => run(() => post(`/seats/${p.seat}/press`, { amount: "0" })) }, "Collects"));
    return li;
  }));
  $("dealer-cards").replaceChildren(s.dealer ? cards(s.dealer) : "");
  $("seats").replaceChildren(...s.seats.map(seatBox));
  $("results").replaceChildren(...s.results.map(r => el("li", { "data-seat": r.seat }, `Seat ${r.seat}: net ${r.net}`)));
  $("asked").replaceChildren(...s.corrections.map(c => el("li", {},
    `Request ${c.request}: ${{ void: "void", misdeal: "misdeal", card: `correct card ${c.position + 1} to ${c.card}` }[c.kind] || c.kind} in round ${c.round}, asked by ${c.asked_by}: ${c.reason} `,
    el("button", { type: "button", "data-approve": c.request,
      onclick: () => run(() => post(`/corrections/${c.request}/approve`)) }, "Approve (supervisor)"))));
}

async function refresh() {
  try { screen = await api(`/api/dealer/tables/${table}`); draw(); }
  catch (e) { refused(e); }
}

function follow() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/tables/${table}/ws?since=${screen ? screen.seq : 0}`);
  let pending = null;
  ws.onmessage = () => { clearTimeout(pending); pending = setTimeout(refresh, 60); };
  ws.onclose = () => setTimeout(follow, 2000);
}

async function open() {
  $("signin-panel").hidden = true;
  $("desk").hidden = false;
  $("next-panel").hidden = false;
  header("");
  await loadWagers();
  await refresh();
  follow();
}

$("signin").addEventListener("submit", async e => {
  e.preventDefault();
  try {
    await signIn($("name").value, $("password").value);
    table = Number($("table-id").value);
    history.replaceState(null, "", `/dealer?table=${table}`);
    await open();
  } catch (err) { refused(err); }
});
$("card-form").addEventListener("submit", async e => {
  e.preventDefault();
  const code = $("card").value.trim();
  $("card").value = "";
  await enter(code);
  $("card").focus();
});
$("shoe-form").addEventListener("submit", e => { e.preventDefault(); run(() => post("/shoes")); });
$("fix-form").addEventListener("submit", e => {
  e.preventDefault();
  const kind = $("fix-kind").value;
  const body = { kind, reason: $("fix-reason").value };
  if (kind === "card") { body.position = Number($("fix-position").value) - 1; body.card = $("fix-card").value.trim(); }
  run(() => post("/corrections", body));
});

pad();
if (token() && table) open();
else { $("signin-panel").hidden = false; if (table) $("table-id").value = table; header(""); }
