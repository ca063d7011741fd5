// A tournament (/tournament/<id>): its standings and rounds from GET /tournaments/{id}, asked again
// every couple of seconds until it is over. Each pairing links to its match's page, and once that
// match is over, to the replay of each of its games.
import * as api from "./api.js";
import { el } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
const tournamentId = location.pathname.split("/")[2];
/** Milliseconds between two looks at a running tournament. */
const POLL_MS = 2000;
const SYSTEM = { round_robin: "Round-robin", swiss: "Swiss" };
const BREAK = { buchholz: "Buchholz", sonneborn_berger: "Sonneborn-Berger", head_to_head: "head-to-head",
  board_difference: "board difference" };

const state = { t: null, timer: null };
const num = (x, digits = 1) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));
const pts = (x) => (Number.isInteger(x) ? String(x) : Number(x).toFixed(1));

function renderStatus() {
  const t = state.t;
  setText($("#title"), `${SYSTEM[t.system] || t.system} tournament of ${t.entries.length}`);
  document.title = `ginbox — tournament ${t.tournament_id}`;
  const status = $("#tournament-status");
  if (t.status === "over") {
    setText(status, `The tournament is over: ${t.standings[0].name} wins after ${t.rounds} round${t.rounds === 1 ? "" : "s"}.`);
  } else {
    setText(status, `Running: ${t.rounds_done} of ${t.rounds} round${t.rounds === 1 ? "" : "s"} over, ` +
      `${t.boards} board${t.boards === 1 ? "" : "s"} a pairing.`);
  }
  status.dataset.status = t.status;
  setText($("#tie-breaks"), `Points (a pairing won 1, drawn ½, a bye 1), then ${t.tie_breaks.map((b) => BREAK[b] || b).join(", then ")}.`);
}

function renderStandings() {
  const t = state.t;
  const rows = t.standings.map((s) => el("tr", { "data-name": s.name },
    el("td", { text: String(s.rank) }),
    el("th", { scope: "row", text: s.name }),
    el("td", { class: "points", text: pts(s.points) }),
    el("td", { class: "wide-only", text: `${s.wins}-${s.draws}-${s.losses}${s.byes ? ` (+${s.byes} bye)` : ""}` }),
    el("td", { class: "tie-breaks", text: t.tie_breaks.filter((b) => b !== "board_difference")
      .map((b) => `${(BREAK[b] || b).split(/[- ]/).map((w) => w[0].toUpperCase()).join("")} ${pts(s[b])}`).join(" · ") }),
    el("td", { class: "wide-only", text: num(s.board_difference) })));
  $("#standings tbody").replaceChildren(...rows);
}

function pairingRow(p) {
  const [a, b] = p.entries;
  const result = p.status === "over"
    ? `${a} ${num(p.totals[0])} : ${num(p.totals[1])} ${b} (${pts(p.points[0])}–${pts(p.points[1])})`
    : `${a} against ${b}: playing`;
  const games = p.status === "over"
    ? el("span", { class: "games" }, ...p.games.map((g, i) => el("a", { class: "button replay", href: `/replay/${g}`,
      "data-game": g, text: `${Math.floor(i / 2) + 1}.${(i % 2) + 1}`,
      "aria-label": `Replay board ${Math.floor(i / 2) + 1}, table ${(i % 2) + 1} of ${a} against ${b}` })))
    : el("span", { class: "muted", text: "games sealed while the match runs" });
  const interval = (ci) => (ci ? `${num(ci[0], 2)} to ${num(ci[1], 2)}` : "—");
  return el("li", { class: "pairing", "data-match": p.match_id, "data-status": p.status },
    el("a", { href: `/match/${p.match_id}`, text: result }),
    // the 95% intervals of the mean per board need two boards: a pairing of one shows none
    p.status === "over" && p.ci95[0] ? el("span", { class: "muted", text: ` 95% per board: ${a} ${interval(p.ci95[0])}, ${b} ${interval(p.ci95[1])}. ` }) : " ",
    games);
}

function renderRounds() {
  const rounds = state.t.schedule.map((r) => el("section", { class: "round", "data-round": String(r.round) },
    el("h3", { text: `Round ${r.round}${r.over ? "" : " (in play)"}` }),
    el("ul", { class: "pairings" }, ...r.pairings.map(pairingRow),
      ...(r.bye ? [el("li", { class: "bye", text: `${r.bye} has a bye (1 point).` })] : []))));
  $("#rounds").replaceChildren(...rounds);
}

async function load() {
  clearTimeout(state.timer);
  try {
    state.t = (await api.getTournament(tournamentId)).data;
    setText($("#message"), "");
    renderStatus();
    renderStandings();
    renderRounds();
  } catch (err) {
    const missing = err instanceof api.ApiError && err.code === "tournament_not_found";
    setText($("#message"), missing ? "There is no such tournament on this server." : `Could not load the tournament: ${err.message}`);
    if (missing) {
      setText($("#tournament-status"), "Check the address, or go back to the lobby.");
      $("#tournament-status").dataset.status = "not_found";
      for (const section of document.querySelectorAll("#main > section")) section.hidden = true;
      return;
    }
  }
  if (!state.t || state.t.status !== "over") state.timer = setTimeout(load, POLL_MS);
}

load();
