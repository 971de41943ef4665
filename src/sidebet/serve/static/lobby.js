// The lobby: tables with their rules, exact house edges, free seats; sign in, wallet.
import { api, el, signIn, signUp, signOut, token, header, newKey, WAGER_NAMES } from "/static/common.js";

const $ = s => document.querySelector(s);

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
    if (!offered) edge = el("td", { class: "muted", "data-label": "Why not" }, w.why_not.map(v => el("div", {}, `${v.rule}: ${v.message}`)));
    else edge = el("td", { class: "edge", "data-edge": w.id, "data-label": "House edge", title: w.house_edge ? w.house_edge.exact : "" },
      w.house_edge ? `${w.house_edge.percent} (${w.house_edge.exact})` : "computing…");
    body.append(el("tr", { "data-wager": w.id },
      el("td", {}, WAGER_NAMES[w.id] || w.name, byId[w.id] ? el("div", { class: "muted" }, byId[w.id].section) : null),
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

async function loadAccount() {
  header("lobby");
  const signedIn = !!token();
  $("#signed-out").hidden = signedIn;
  $("#signed-in").hidden = !signedIn;
  if (!signedIn) return;
  try {
    const me = await api("/api/me");
    $("#balance").textContent = me.balance;
    $("#seat-note").textContent = me.seat ? `Seated at table ${me.seat.table}, seat ${me.seat.seat}.` : "Not seated.";
  } catch (e) {
    if (e.status === 401) { signOut(); return loadAccount(); }
    $("#account-error").textContent = e.message;
  }
}

function showError(e) { $("#account-error").textContent = e.message; }

$("#signin").addEventListener("submit", async ev => {
  ev.preventDefault();
  $("#account-error").textContent = "";
  try { await signIn($("#name").value, $("#password").value); await loadAccount(); } catch (e) { showError(e); }
});
$("#signup-btn").addEventListener("click", async () => {
  $("#account-error").textContent = "";
  if (!$("#signin").reportValidity()) return;
  try { await signUp($("#name").value, $("#password").value); await loadAccount(); } catch (e) { showError(e); }
});
let depositKey = newKey();
$("#deposit").addEventListener("submit", async ev => {
  ev.preventDefault();
  $("#account-error").textContent = "";
  const btn = $("#deposit-btn");
  btn.disabled = true;
  try {
    await api("/api/wallet/deposits", { method: "POST", body: { amount: $("#deposit-amount").value }, key: depositKey });
    depositKey = newKey();
    await loadAccount();
  } catch (e) { showError(e); } finally { btn.disabled = false; }
});
$("#signout").addEventListener("click", () => { signOut(); loadAccount(); });

loadAccount();
loadTables().catch(e => { $("#tables").textContent = e.message; });
