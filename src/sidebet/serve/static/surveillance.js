// The operator's surveillance page: GET /api/surveillance (operators only), shown by table and
// player. Nothing is computed here: edges, alarms and expectations are the server's.
import { api, el, header, signIn, Refusal, showRefusal, WAGER_NAMES, loadWagers } from "/static/common.js";

const $ = s => document.querySelector(s);
const pct = x => (x === null || x === undefined ? "—" : `${(100 * x).toFixed(2)}%`);
const wager = w => WAGER_NAMES[w] || w;
const amount = c => (c / 100).toFixed(2);  // a float expectation in cents, shown as money

function span(seconds) {
  if (seconds % 3600 === 0 && seconds >= 3600) return `${seconds / 3600} h`;
  if (seconds % 60 === 0 && seconds >= 60) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function stats(p) {
  const rows = [
    ["Decisions", `${p.decisions} (bets placed: ${p.placed}, total ${p.total_bet})`],
    ["Edge of the bets placed", pct(p.mean_edge_placed_float)],
    ["Bet size vs edge (correlation)", p.correlation_float === null ? "—" : p.correlation_float.toFixed(3)],
    ["CUSUM now / highest / alarm at", `${p.cusum.toFixed(2)} / ${p.max_cusum.toFixed(2)} / ${p.threshold.toFixed(2)}`],
    ["Alarm", p.alarm ? `raised in round ${p.alarm.game} (decision ${p.alarm.decision})` : "none"],
    ["Result", p.result],
    ["Expected (exact edges)", amount(p.expected_float_cents)],
    ["Result − expected", `${amount(p.result_minus_expected_float_cents)} (1 s.d. ${amount(p.sd_full_shoe_float_cents)})`],
  ];
  return el("dl", { class: "stats" }, rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

function decision(d) {
  const bet = d.placed ? `bet ${d.bet}, net ${d.net}` : "not placed";
  return el("li", {}, `${d.game} · ${d.player} · ${wager(d.wager)}: edge ${pct(d.edge_float)}, ${bet}, CUSUM ${d.cusum.toFixed(2)}`);
}

function tableSection(t) {
  const head = `tbl-${t.table}-h`;
  const edges = t.side_wagers.map(w => `${wager(w)} ${pct(t.full_shoe_edge_float[w])}`).join(", ") || "no side wager offered";
  const players = t.players.map(p => el("article", { class: p.alarm ? "pw alarm" : "pw", "data-player": p.player, "data-wager": p.wager },
    el("h4", {}, `${p.player} · ${wager(p.wager)}`, el("span", { class: p.alarm ? "tag no" : "tag yes" }, p.alarm ? "ALARM" : "no alarm")),
    stats(p)));
  return el("section", { class: "panel", "aria-labelledby": head, "data-table": t.table },
    el("h2", { id: head }, `Table ${t.table}: ${t.name}`),
    el("p", { class: "muted" }, `${t.decks} deck${t.decks === 1 ? "" : "s"}; ${t.rounds} rounds analysed` +
      (t.last_game ? `, the last ${t.last_game} (ended ${t.last_round_at})` : "") + `; full-shoe edges: ${edges}.`),
    t.error ? el("p", { class: "error" }, `Analysis stopped: ${t.error}`) : null,
    players.length ? el("div", { class: "pws" }, players) : el("p", { class: "muted" }, "No betting decision older than the delay yet."),
    t.decisions.length ? el("details", {}, el("summary", {}, `The last ${t.decisions.length} betting decisions`),
      el("ol", { class: "decisions" }, t.decisions.map(decision))) : null);
}

function show(r) {
  $("#delay").textContent = r.delay_seconds
    ? `only rounds that ended more than ${span(r.delay_seconds)} ago are shown, so that surveillance cannot drive preferential shuffling.`
    : "none: rounds are shown as soon as they end (the house set no delay).";
  $("#as-of").textContent = `Data as of ${r.as_of}`;
  const rule = r.alarm_rule;
  $("#rule").textContent = `Alarm: ${rule.test}, false-alarm rate ${rule.alpha} within ${rule.horizon_decisions} decisions of one player on one wager `
    + `(threshold ${rule.threshold.toFixed(2)}, delta ${rule.delta}, warm-up ${rule.warmup}).`;
  const list = $("#alarms");
  list.replaceChildren(...(r.alarms.length ? r.alarms.map(a => el("li", { "data-table": a.table, "data-player": a.player },
    el("strong", {}, `${a.player}`), ` on ${wager(a.wager)} at table ${a.table} (${a.table_name}): raised in round ${a.game}, `
      + `decision ${a.decision}; CUSUM highest ${a.max_cusum.toFixed(2)}.`))
    : [el("li", { class: "none" }, "No alarm among the rounds shown.")]));
  const select = $("#table-filter");
  const chosen = select.value;
  if (!chosen) {
    select.replaceChildren(el("option", { value: "" }, "All tables"),
      ...r.tables.map(t => el("option", { value: String(t.table) }, `${t.table}: ${t.name}`)));
  }
  $("#tables").replaceChildren(...r.tables.map(tableSection));
}

function askSignIn(why) {
  $("#signin-why").textContent = why;
  $("#signin-panel").hidden = false;
  $("#alarms").replaceChildren(el("li", { class: "wait" }, "Sign in as an operator to see the alarms."));
  $("#tables").replaceChildren();
}

async function load() {
  $("#error").textContent = "";
  const query = new URLSearchParams({ decisions: "20" });
  const table = $("#table-filter").value;
  const player = $("#player-filter").value.trim();
  if (table) query.set("table", table);
  if (player) query.set("player", player);
  try {
    const [r] = await Promise.all([api(`/api/surveillance?${query}`), loadWagers()]);
    $("#signin-panel").hidden = true;
    show(r);
  } catch (e) {
    if (e instanceof Refusal && (e.status === 401 || e.status === 403)) {
      askSignIn(e.status === 403 ? "You are signed in as a player: this page is for operators. Sign in with an operator's account."
        : "Sign in with an operator's account.");
      $("#delay").textContent = "shown once you are signed in as an operator.";
    } else {
      showRefusal($("#error"), e);
    }
  }
}

$("#filter").addEventListener("submit", ev => { ev.preventDefault(); load(); });
$("#signin").addEventListener("submit", async ev => {
  ev.preventDefault();
  try {
    await signIn($("#op-name").value, $("#op-password").value);
    header("surveillance");
    await load();
  } catch (e) {
    showRefusal($("#error"), e);
  }
});
header("surveillance");
load();
setInterval(load, 30000);
