// A duplicate match (/match/<id>): its standings and boards from GET /matches/{id}, and, when this
// browser holds the token of the person who challenged a bot account to it, that person's turns
// from GET /matches/{id}/turns, each a link to the table page (the token saved as the game's seat
// first, so that the table plays it). Both are asked again every couple of seconds until the
// match is over; then every game links to its replay.
import * as api from "./api.js";
import { challengeOfMatch, saveSeat } from "./seats.js";
import { el } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
const matchId = location.pathname.split("/")[2];
/** Milliseconds between two looks at a running match. */
const POLL_MS = 2000;
const PHASE = { upcard: "take or pass the upcard", draw: "draw a card", discard: "discard, or knock" };

const state = { match: null, turns: null, mine: challengeOfMatch(matchId), timer: null, loading: false };

const num = (x, digits = 1) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));

/** The person's seat at a table (its name among the table's seats), or -1. */
function mySeat(table) {
  const name = state.turns ? state.turns.participant : state.mine && state.mine.name;
  return name ? table.seats.indexOf(name) : -1;
}

/** Save the person's token as the seat of a game of the match (at its board and table), and the link that plays it. */
function playLink(gameId, seat, place, text, attrs = {}) {
  saveSeat(gameId, state.match.variant, seat, state.mine.token, state.turns ? state.turns.participant : state.mine.name,
    state.match.match_id, place);
  return el("a", { class: "button", href: `/play/${gameId}#seat=${seat}`, "data-game": gameId, text, ...attrs });
}

function renderStatus() {
  const m = state.match;
  const status = $("#match-status");
  if (!m) return;
  const who = m.participants.map((p) => `${p.name} (${p.kind === "person" ? "person" : p.kind === "bot" ? "bot account" : "built-in bot"})`);
  setText($("#title"), `Match: ${who.map((w) => w.split(" (")[0]).join(" against ")}`);
  document.title = `ginbox — match ${m.match_id}`;
  if (m.status === "over") {
    const best = [...m.standings].sort((a, b) => b.total - a.total)[0];
    const tie = m.standings.filter((s) => s.total === best.total).length > 1;
    setText(status, `The match is over: ${tie ? "a tie" : `${best.name} wins`} after ${m.boards} board${m.boards === 1 ? "" : "s"}. ` +
      "Every game can now be replayed.");
    status.dataset.status = "over";
  } else {
    setText(status, `Running: ${m.boards_done} of ${m.boards} board${m.boards === 1 ? "" : "s"} scored, ` +
      `${m.games_done} of ${m.games} games over (${m.variant}${m.move_time_s ? `, ${m.move_time_s} s a move` : ""}).`);
    status.dataset.status = "running";
  }
  setText($("#whoami"), state.mine ? `you play as ${state.turns ? state.turns.participant : state.mine.name}` : `${who.join(", ")}`);
}

function renderStandings() {
  const body = $("#standings tbody");
  const rows = state.match.standings.map((s) => el("tr", { "data-name": s.name },
    el("th", { scope: "row", text: `${s.name}${s.kind === "person" ? " (person)" : s.kind === "bot" ? " (bot account)" : " (built-in bot)"}` }),
    el("td", { text: num(s.total) }), el("td", { text: num(s.mean_per_board, 2) }),
    el("td", { class: "wide-only", text: s.ci95 ? `${num(s.ci95[0], 2)} to ${num(s.ci95[1], 2)}` : "—" }),
    el("td", { text: String(s.boards) })));
  body.replaceChildren(...rows);
}

function renderBoards() {
  const m = state.match;
  const body = $("#boards tbody");
  const rows = [];
  for (const board of m.board_results) {
    board.tables.forEach((table, i) => {
      let game;
      if (!table.game_id) game = el("span", { class: "muted", text: "not started" });
      else if (m.status === "over") {
        // the row names the board and table: the link's text need not (a screen reader hears them)
        game = el("a", { class: "button replay", href: `/replay/${table.game_id}`, "data-game": table.game_id,
          text: "Replay", "aria-label": `Replay board ${board.board + 1}, table ${table.table + 1}` });
      } else if (state.mine && !table.over && mySeat(table) >= 0) {
        game = playLink(table.game_id, mySeat(table), { board: board.board, table: table.table }, "Play",
          { class: "button table-link", "aria-label": `Play board ${board.board + 1}, table ${table.table + 1} (your seat)` });
      } else game = el("span", { class: "muted", text: table.over ? "over (sealed)" : "in play (sealed)" });
      const row = el("tr", { "data-board": String(board.board), "data-table": String(table.table) });
      if (i === 0) {
        const scores = board.scores
          ? el("span", { class: "muted board-scores", text: Object.entries(board.scores).map(([n, s]) => `${n} ${num(s)}`).join(", ") })
          : null;
        row.append(el("th", { scope: "rowgroup", rowspan: String(board.tables.length) },
          String(board.board + 1), scores ? el("br") : null, scores));
      }
      // the seats in order, each with its points once they are known (every table of the board over)
      row.append(el("td", { text: String(table.table + 1) }),
        el("td", { class: "names", text: table.seats.map((n, s) => (table.points ? `${n} ${table.points[s]}` : n)).join(", ") }),
        el("td", {}, game));
      rows.push(row);
    });
  }
  body.replaceChildren(...rows);
}

function renderTurns() {
  const section = $("#turns");
  if (!state.mine) { section.hidden = true; return; }
  section.hidden = false;
  const box = $("#turn-list");
  if (state.turns === null) {
    if (!box.firstChild) box.replaceChildren(el("p", { class: "muted", text: "Looking for your turns…" }));
    return;
  }
  if (state.turns.status === "over") {
    box.replaceChildren(el("p", { id: "no-turns", text: "The match is over: no more turns. Replay its games below." }));
    return;
  }
  if (!state.turns.turns.length) {
    box.replaceChildren(el("p", { id: "no-turns", class: "muted",
      text: "No move of yours is awaited right now (the bot is to act). This list refreshes by itself." }));
    return;
  }
  const ul = el("ul", { class: "turn-list" });
  for (const t of state.turns.turns) {
    ul.append(el("li", { "data-game": t.game_id, "data-phase": t.phase },
      el("span", { text: `Board ${t.board + 1}, table ${t.table + 1} (seat ${t.seat + 1}): ${PHASE[t.phase] || t.phase}. ` }),
      playLink(t.game_id, t.seat, { board: t.board, table: t.table }, "Play", { class: "button primary play",
        "aria-label": `Play board ${t.board + 1}, table ${t.table + 1}` })));
  }
  box.replaceChildren(ul);
}

function render() {
  if (!state.match) return;
  renderStatus();
  renderTurns();
  renderStandings();
  renderBoards();
}

async function load() {
  if (state.loading) return;
  state.loading = true;
  clearTimeout(state.timer);
  try {
    const { data } = await api.getMatch(matchId);
    state.match = data;
    setText($("#message"), "");
    if (state.mine) {
      try {
        state.turns = (await api.matchTurns(matchId, state.mine.token)).data;
      } catch (err) {
        if (err instanceof api.ApiError && err.status === 403) {
          state.mine = null; // the token this browser holds plays no seat of this match
          setText($("#message"), "This browser's token plays no seat in this match.");
        } else throw err;
      }
    }
    render();
  } catch (err) {
    setText($("#message"), err instanceof api.ApiError && err.code === "match_not_found"
      ? "There is no such match on this server." : `Could not load the match: ${err.message}`);
    if (err instanceof api.ApiError && err.code === "match_not_found") {
      // nothing will come: the page says so, without the "Loading" line or the empty tables
      setText($("#match-status"), "Check the address, or go back to the lobby.");
      $("#match-status").dataset.status = "not_found";
      for (const section of document.querySelectorAll("#main > section")) section.hidden = true;
      state.loading = false;
      return;
    }
    if (!state.match) setText($("#match-status"), "The match could not be loaded; trying again…");
  }
  state.loading = false;
  if (!state.match || state.match.status !== "over") state.timer = setTimeout(load, POLL_MS);
}

// coming back from a table (the Back button may restore this page as it was): look again at once
window.addEventListener("pageshow", (event) => { if (event.persisted) load(); });
load();
