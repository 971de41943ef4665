// The lobby: tables with their rules, exact house edges, free seats; sign in, wallet.
import { api, el, signIn, signUp, signOut, token, userName, header, newKey, cents, money, plainWords, showRefusal, violationWords, withRule } from "/static/common.js";

const $ = s => document.querySelector(s);
const $$ = s => Array.from(document.querySelectorAll(s));

function rulesText(sub) {
  const r = sub.rules || {};
  const out = [`${sub.decks} deck${sub.decks === 1 ? "" : "s"}`];
  out.push(r.dealer_hits_soft_17 ? "dealer hits soft 17" : "dealer stands on soft 17");
  out.push(`Blackjack pays ${r.blackjack_pays}`);
  out.push(`double ${r.double}${r.double_after_split ? ", after split" : ""}`);
  out.push(`split to ${r.max_split_hands} hands`);
  if (r.late_surrender) out.push("late surrender");
  if (r.insurance) out.push("insurance");
  out.push(`hole card: ${r.hole_card}`);
  return out.join(" · ");
}

function limitText(l) {
  if (!l || (!l.min && !l.max)) return "no limit set";
  return [l.min ? `min ${l.min}` : "", l.max ? `max ${l.max}` : ""].filter(Boolean).join(", ");
}

function tableCard(t, info, wagers) {
  const free = t.seats - t.occupied.length;
  const sub = info.submission;
  const body = el("tbody");
  const bjEdge = el("td", { class: "edge", "data-edge": "blackjack", "data-label": "House edge" }, wagers ? wagers.blackjack.percent : "computing…");
  body.append(el("tr", {}, el("td", {}, "Blackjack"), el("td", { "data-label": "Offered" }, el("span", { class: "tag yes" }, "offered")),
    el("td", { "data-label": "Pays" }, sub.rules.blackjack_pays), el("td", { "data-label": "Limits" }, limitText(sub.limits)), bjEdge));
  const byId = Object.fromEntries(info.side_wagers.map(w => [w.id, w]));
  const all = wagers ? wagers.wagers : info.side_wagers.map(w => ({ id: w.id, name: w.name, offered: true }));
  for (const w of all) {
    const offered = w.offered;
    const s = sub.side_wagers[w.id];
    let edge;
    if (!offered) edge = el("td", { class: "muted", "data-label": "Why not" }, w.why_not.map(v => el("div", {}, ...withRule(violationWords(v)))));
    else edge = el("td", { class: "edge", "data-edge": w.id, "data-label": "House edge", title: w.house_edge ? w.house_edge.exact : "" },
      w.house_edge ? `${w.house_edge.percent} (${w.house_edge.exact})` : "computing…");
    body.append(el("tr", { "data-wager": w.id },
      el("td", {}, w.name, byId[w.id] ? el("div", { class: "muted" }, byId[w.id].section) : null),
      el("td", { "data-label": "Offered" }, el("span", { class: `tag ${offered ? "yes" : "no"}` }, offered ? "offered" : "not offered")),
      offered ? el("td", { "data-label": "Paytable" }, byId[w.id] ? byId[w.id].paytable : s.paytable) : el("td", { class: "wide-only" }, "—"),
      offered ? el("td", { "data-label": "Limits" }, limitText(s)) : el("td", { class: "wide-only" }, "—"),
      edge));
  }
  const lines = info.side_wagers.map(w => el("details", {},
    el("summary", {}, `${w.name} paytable ${w.paytable}`),
    el("ul", {}, w.lines.map(l => el("li", {}, `${l.label}: ${l.pays} to 1 (${l.citation})`)))));
  return el("article", { class: "table-card", "data-table": t.id },
    el("h3", {}, t.name),
    el("p", { class: "muted" }, rulesText(sub)),
    el("p", {}, `${free} of ${t.seats} seats free`, " · ",
      el("a", { href: `/tables/${t.id}`, class: "open" }, `Open ${t.name}`), " · ",
      el("a", { href: `/tables/${t.id}/fair` }, "Fairness")),
    el("table", { class: "data" },
      el("thead", {}, el("tr", {}, ["Wager", "Offered", "Paytable / pays", "Limits", "House edge (exact) or why not offered"].map(h => el("th", { scope: "col" }, h)))),
      body),
    lines);
}

async function loadTables() {
  const box = $("#tables");
  const tables = await api("/api/tables");
  if (!tables.length) { box.replaceChildren(el("p", { class: "muted" }, "No tables yet: an operator creates them.")); return; }
  const infos = await Promise.all(tables.map(t => api(`/api/tables/${t.id}`)));
  box.replaceChildren(...tables.map((t, i) => tableCard(t, infos[i], null)));
  // the exact house edges take a moment the first time: fill them in when they come
  tables.forEach(async (t, i) => {
    try {
      const w = await api(`/api/tables/${t.id}/wagers`);
      const old = box.querySelector(`[data-table="${t.id}"]`);
      old.replaceWith(tableCard(t, infos[i], w));
    } catch (e) { /* the rules stay shown without edges */ }
  });
}

const LIMIT_NAMES = { day: "a day", week: "a week", month: "a month" };
const PERIODS = ["day", "week", "month"];
const KINDS = [["deposit_limits", "Deposits"], ["loss_limits", "Losses"]];
/** The limits form's fields as the server names them, in a player's words. */
const LIMIT_FIELDS = Object.fromEntries([
  ...KINDS.flatMap(([k, label]) => PERIODS.map(p => [`${k}.${p}`,
    [`${label} ${LIMIT_NAMES[p]}`, "write an amount in whole cents, like 100 or 25.50, or leave it empty for no limit"]])),
  ["session_reminder_minutes", ["The reminder", "write a whole number of minutes, or leave it empty for none"]],
  ["excluded_until", ["The break's end", "a time in UTC"]],
]);
let limitsNow = null;  // the limits in force, as the server last answered

// a box per kind and period, named as the server names the field
$("#limit-boxes").replaceChildren(...KINDS.map(([k, label]) => el("fieldset", {},
  el("legend", {}, `${label} at most`),
  PERIODS.map(p => el("label", {}, el("span", { class: "sr" }, `${label} at most `), LIMIT_NAMES[p], " ",
    el("input", { id: `lim-${k.split("_")[0]}-${p}`, "data-limit": `${k}.${p}`, inputmode: "decimal", size: "7" }))))));

/** The player's limits, as the server offers them (GET /api/wallet/limits; none: hidden). */
async function loadLimits() {
  let l = null;
  try { l = await api("/api/wallet/limits"); } catch { l = null; }
  return l;
}

function limitRows(l) {
  const rows = [];
  for (const [k, label] of KINDS) {
    for (const [per, v] of Object.entries(l[k] || {})) rows.push([`${label} ${LIMIT_NAMES[per] || per}`, v == null ? "no limit" : `at most ${v}`]);
  }
  return rows;
}

function when(utc) { return `${new Date(utc).toLocaleString()} (${utc.slice(0, 16).replace("T", " ")} UTC)`; }

function showLimits(l) {
  limitsNow = l;
  $("#limits-panel").hidden = !l;
  if (!l) return;
  const rows = [["Money", l.mode === "real" ? "real money" : "play money"], ...limitRows(l)];
  rows.push(["Session reminder", l.session_reminder_minutes == null ? "off" : `every ${l.session_reminder_minutes} minutes`]);
  if (l.excluded_until) rows.push(["Self-excluded until", l.excluded_until]);
  $("#limits").replaceChildren(...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  // what waits for the house's delay (a raised or removed limit)
  const waiting = l.pending ? limitRows({ deposit_limits: l.pending.deposit || {}, loss_limits: l.pending.loss || {} })
    .filter(([k, v]) => !rows.some(([k2, v2]) => k2 === k && v2 === v)) : [];
  $("#limits-pending").hidden = !waiting.length;
  $("#limits-pending").textContent = waiting.length
    ? `From ${when(l.pending_from)}: ${waiting.map(([k, v]) => `${k} ${v}`).join("; ")}. Saving again starts this wait again.` : "";
  for (const inp of $$("#limits-form [data-limit]")) {
    const [k, p] = inp.dataset.limit.split(".");
    inp.value = l[k][p] ?? "";
  }
  $("#lim-reminder").value = l.session_reminder_minutes ?? "";
}

/** The form as the server reads it: every limit (an empty box is none), the reminder. */
function limitsBody() {
  const body = { deposit_limits: {}, loss_limits: {} };
  for (const inp of $$("#limits-form [data-limit]")) {
    const [k, p] = inp.dataset.limit.split(".");
    const v = inp.value.trim();
    const c = cents(v);
    body[k][p] = v === "" ? null : c !== null && c >= 0 ? money(c) : v;  // the server judges what is not money
  }
  const r = $("#lim-reminder").value.trim();
  body.session_reminder_minutes = r === "" ? null : /^[0-9]+$/.test(r) ? Number(r) : r;
  return body;
}

async function saveLimits(body, done, anchor) {
  clear();
  try {
    const l = await api("/api/wallet/limits", { method: "PUT", body });
    showLimits(l);
    say(done(l), true, anchor);
    return l;
  } catch (e) {
    showError(e, anchor, LIMIT_FIELDS);
    return null;
  }
}

$("#limits-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  $("#limits-save").disabled = true;
  await saveLimits(limitsBody(), l => l.pending ? "Saved. Lower limits hold now; the others wait, as shown." : "Saved: your limits hold now.", $("#limits-form"));
  $("#limits-save").disabled = false;
  $("#limits-save").focus();
});

// a break (cool-off or self-exclusion): asked twice, it cannot be shortened
let breakUntil = null;
$("#break-form").addEventListener("submit", ev => {
  ev.preventDefault();
  clear();
  const days = Number($("#break-for").value);
  breakUntil = new Date(Date.now() + days * 86400_000).toISOString().slice(0, 16) + "Z";
  $("#break-text").textContent = `Take a break until ${when(breakUntil)}? You will be signed out everywhere at once and cannot ` +
    "sign in, deposit or play until then. It cannot be shortened or undone.";
  $("#break-confirm").hidden = false;
  $("#break-yes").focus();
});
$("#break-no").addEventListener("click", () => { breakUntil = null; $("#break-confirm").hidden = true; $("#break-btn").focus(); });
$("#break-for").addEventListener("change", () => { breakUntil = null; $("#break-confirm").hidden = true; });
$("#break-yes").addEventListener("click", async () => {
  if (!breakUntil || !limitsNow) return;
  const body = { deposit_limits: limitsNow.deposit_limits, loss_limits: limitsNow.loss_limits,
                 session_reminder_minutes: limitsNow.session_reminder_minutes, excluded_until: breakUntil };
  $("#break-confirm").hidden = true;
  const l = await saveLimits(body, x => `You are on a break until ${when(x.excluded_until)}, and signed out everywhere.`,
    $("#break-form"));
  if (!l) return;
  const said = $("#account-ok").textContent;
  signOut();  // the server has ended every session of the account
  await loadAccount(true);
  say(said, true);
});

/** The account panel, shown once its answers are in (it appears whole: nothing shifts). */
async function loadAccount(focus) {
  header("lobby");
  const signedIn = !!token();
  if (!signedIn) {
    $("#signed-out").hidden = false;
    $("#signed-in").hidden = true;
    if (focus) $("#name").focus();
    return;
  }
  $("#ask-above").value = askAbove();
  try {
    const [me, limits] = await Promise.all([api("/api/me"), loadLimits()]);
    $("#balance").textContent = me.balance;
    $("#balance-label").textContent = me.money_mode === "play" ? "Wallet (play money)" : "Wallet";
    $("#seat-note").textContent = me.seat ? `Seated at table ${me.seat.table}, seat ${me.seat.seat}.` : "Not seated.";
    showLimits(limits);
  } catch (e) {
    if (e.status === 401) { signOut(); return loadAccount(focus); }
    showError(e);
  }
  $("#signed-out").hidden = true;
  $("#signed-in").hidden = false;
  if (focus) $("#cash-amount").focus();
}

/** A message next to the form the player used (or the account's visible part), in view:
 *  `text`, or a refusal (its words, the rule one tap away). */
function say(text, good, anchor, fields = {}) {
  const at = anchor && !anchor.closest("[hidden]") ? anchor : $("#signed-in").hidden ? $("#signed-out") : $("#signed-in");
  at.after($("#account-error"), $("#account-ok"));
  if (text instanceof Error) showRefusal($("#account-error"), text, { fields });
  else $("#account-error").textContent = good ? "" : text;
  $("#account-ok").textContent = good ? text : "";
  const shown = $(good ? "#account-ok" : "#account-error");
  const r = shown.getBoundingClientRect();
  if (text && (r.bottom > innerHeight || r.top < 0)) shown.scrollIntoView({ block: "nearest" });
}
function showError(e, anchor, fields = {}) { say(e, false, anchor, fields); }
function clear() { $("#account-error").textContent = ""; $("#account-ok").textContent = ""; }

/** Sign in or up: the signed-in panel shows at once (the page answers the click), filled
 *  when the server has answered; a refusal brings the form back with the reason. */
async function enter(how) {
  clear();
  if (!$("#signin").reportValidity()) return;
  $("#balance").textContent = "…";
  $("#seat-note").textContent = "Signing in…";
  $("#signed-out").hidden = true;
  $("#signed-in").hidden = false;
  try { await how($("#name").value, $("#password").value); await loadAccount(true); } catch (e) {
    $("#signed-in").hidden = true;
    $("#signed-out").hidden = false;
    showError(e);
    $("#name").focus();
  }
}
$("#signin").addEventListener("submit", ev => { ev.preventDefault(); enter(signIn); });
$("#signup-btn").addEventListener("click", () => enter(signUp));

// ----- the cashier: a confirmation above the amount the player sets -------------------------

const askKey = () => `sidebet.confirm-above.${userName()}`;
function askAbove() { return localStorage.getItem(askKey()) || "1000.00"; }
$("#ask-form").addEventListener("submit", ev => {
  ev.preventDefault();
  clear();
  const c = cents($("#ask-above").value);
  if (c === null || c < 0) { say("Write the amount in whole cents, like 500 or 250.50.", false, $("#ask-form")); return; }
  localStorage.setItem(askKey(), money(c));
  $("#ask-above").value = money(c);
  say(`Deposits and withdrawals above ${money(c)} now ask you first.`, true, $("#ask-form"));
});

let cashKey = newKey();
let asked = null;  // the move waiting for the player's yes
async function move(kind) {
  clear();
  const c = cents($("#cash-amount").value);
  if (c === null || c <= 0) { say("Write a positive amount in whole cents, like 100 or 25.50.", false, $("#cashier")); return; }
  if (c > cents(askAbove()) && !(asked && asked.kind === kind && asked.cents === c)) {
    asked = { kind, cents: c };
    $("#confirm-text").textContent = `${kind === "deposit" ? "Deposit" : "Withdraw"} ${money(c)}? That is more than the ${askAbove()} you asked to confirm.`;
    $("#confirm").hidden = false;
    $("#confirm-yes").focus();
    return;
  }
  asked = null;
  $("#confirm").hidden = true;
  for (const b of $$("#cashier button")) b.disabled = true;
  try {
    await api(`/api/wallet/${kind === "deposit" ? "deposits" : "withdrawals"}`, { method: "POST", body: { amount: money(c) }, key: cashKey });
    cashKey = newKey();
    await loadAccount();
    say(`${kind === "deposit" ? "Deposited" : "Withdrew"} ${money(c)}.`, true, $("#cashier"));
  } catch (e) { showError(e, $("#cashier")); } finally {
    for (const b of $$("#cashier button")) b.disabled = false;
    $(`#${kind === "deposit" ? "deposit" : "withdraw"}-btn`).focus();
  }
}
$("#cashier").addEventListener("submit", ev => { ev.preventDefault(); move("deposit"); });
$("#withdraw-btn").addEventListener("click", () => move("withdrawal"));
$("#confirm-yes").addEventListener("click", () => move(asked.kind));
$("#confirm-no").addEventListener("click", () => { asked = null; $("#confirm").hidden = true; $("#cash-amount").focus(); });
$("#cash-amount").addEventListener("input", () => { asked = null; $("#confirm").hidden = true; });
$("#signout").addEventListener("click", () => { signOut(); loadAccount(true); });

loadAccount();
loadTables().catch(e => { $("#tables").textContent = plainWords(e).text; });
