// The hand's end and the game's: the last hand's result explained, the score sheet (with how the
// game ended), and a finished game's way to its replay and to a game again with the same seats (or,
// for a match's game, back to the match).
import * as api from "./api.js";
import { saveInvites, saveSeat, seatsOf } from "./seats.js";
import { $, state } from "./table-state.js";
import { el, hollywoodEnd, isHollywood, isMatchBoard, playerName, problemText, resultSection, scoreSheet } from "./ui.js";

/** The id of the match a game is a board of, from its players (or null). */
const matchIdOf = (view) => (view.players.find((p) => p && p.match) || {}).match || null;

/** "Play again" under way (the table redraws meanwhile), and why it last failed. */
const again = { busy: false, error: "" };

/**
 * The POST /games body of a game like ``view``'s: the same variant, rules and seats. The seats
 * this browser holds (``held``, by seat) keep their names; the same bots sit in the same seats;
 * every other person's seat is open, by invitation (the links are shown at the new table). The
 * deal is random, whatever the first game's creator chose of it.
 */
export function againBody(view, held) {
  const seats = view.players.map((p, i) => {
    if (held[String(i)]) return { name: (p && p.name) || held[String(i)].name };
    if (p && p.bot) return { bot: p.bot, name: p.name, ...(p.budget_ms ? { budget_ms: p.budget_ms } : {}) };
    return null;
  });
  const options = Object.fromEntries(Object.entries(view.options || {}).filter(([, v]) => v !== null && v !== undefined));
  const body = { variant: view.variant, seats };
  if (Object.keys(options).length) body.options = options;
  if (seats.includes(null)) body.private = true;
  return body;
}

/** Create the game again, keep this browser's seats and the invitations, and go to its table. */
async function playAgain(view, act) {
  const held = seatsOf(view.game_id) || {};
  again.busy = true;
  again.error = "";
  act.redraw();
  try {
    const body = againBody(view, held);
    const { data } = await api.createGame(body);
    let mine = null;
    for (const s of data.seats) {
      if (!s.token) continue;
      saveSeat(data.game_id, body.variant, s.seat, s.token, s.name);
      if (mine === null) mine = s.seat;
    }
    const invites = Object.fromEntries(data.seats.filter((s) => s.invite).map((s) => [s.seat, s.invite]));
    if (Object.keys(invites).length) saveInvites(data.game_id, body.variant, invites);
    location.assign(`/play/${data.game_id}#seat=${mine}`);
  } catch (err) {
    again.busy = false;
    again.error = `The new game was not created: ${err instanceof api.ApiError ? problemText(err) : err.message}`;
    act.redraw();
  }
}

/**
 * "Play again": for a game over at which this browser holds a seat, not a match's board and no
 * bot account's game (those are played again by a new challenge); else null.
 */
function againButton(view, act) {
  const held = seatsOf(view.game_id) || {};
  if (state.mode !== "play" || !Object.keys(held).length) return null;
  if (view.players.some((p) => p && (p.account || p.match))) return null;
  const others = view.players.some((p, i) => !held[String(i)] && !(p && p.bot));
  const dealt = view.randomly_dealt === false
    ? " The first game's deal was chosen by its creator; this one is dealt at random." : "";
  const invites = others ? " The other players' seats are open, with invitation links to send them." : "";
  const button = el("button", { type: "button", id: "play-again", class: "primary", disabled: again.busy,
    title: `A new game with the same rules and seats, you in your seat again.${invites}${dealt}`,
    onclick: () => playAgain(view, act) }, again.busy ? "Creating the game…" : "Play again");
  return el("span", {}, button, again.error ? el("span", { id: "play-again-error", class: "error", role: "alert", text: ` ${again.error}` }) : null);
}

/**
 * A finished game's way to its replay, and to a game again. A match's game is sealed until the
 * whole match is over (its deal is the other tables' deal too): until then, the way back to the
 * match instead.
 */
export function replayOffer(view, act) {
  const matchId = matchIdOf(view);
  if (matchId && state.matchOver !== true) {
    if (state.matchOver === null) {
      state.matchOver = false; // asked once; the answer redraws the table
      api.getMatch(matchId).then(({ data }) => {
        if (data.status === "over") { state.matchOver = true; act.redraw(); }
      }, () => {});
    }
    return el("p", { id: "replay-later" }, "The replay opens once the whole match is over (its other tables are dealt these cards too). ",
      el("a", { class: "button", href: `/match/${encodeURIComponent(matchId)}`, text: "Back to the match" }));
  }
  const playAgainButton = againButton(view, act);
  return el("p", { class: "game-over-actions" }, playAgainButton, playAgainButton ? " " : null,
    el("a", { class: "button", id: "replay-link", href: `/replay/${view.game_id}`, text: "Replay this game" }),
    " ", el("a", { class: "button", id: "export-link", href: `/games/${encodeURIComponent(view.game_id)}/export`,
      download: `${view.game_id}.ndjson`, text: "Download the game's log" }));
}

/** The last hand's result: both hands laid out and its score line by line (hidden before any hand ends). */
export function renderResult(view) {
  const section = $("#result");
  const r = view.last_hand;
  if (!r) { section.hidden = true; section.replaceChildren(); return; }
  section.hidden = false;
  section.replaceChildren(resultSection(view, r));
}

/**
 * How the game ended, for the score sheet's last line: "ann resigned after hand 3; bob wins",
 * "Abandoned after 3600 s without a move: nobody wins", "ann wins the game"; "" while it goes on.
 */
export function endLine(view) {
  if (view.status !== "over" || !view.end) return "";
  const end = view.end;
  // the hands played: the view holds only the latest results, and says how many there are
  const played = view.hand_results_total ?? view.hand_results.length;
  if (end.reason === "expired") return `Expired: a seat was still free ${end.idle_s} s after the game was made; nobody wins.`;
  if (end.reason === "abandoned") {
    const why = end.drawn_hands ? `${end.drawn_hands} drawn hands in a row` : `${end.idle_s} s without a move`;
    return `Abandoned after ${why}${played ? `, in hand ${view.hand_no}` : ""}: nobody wins.`;
  }
  const winner = view.winner === null ? "nobody" : playerName(view, view.winner);
  if (end.reason === "resigned") {
    const when = played ? `after hand ${played}` : "before any hand ended";
    return `${playerName(view, end.resigned)} resigned ${when}; ${winner} wins.`;
  }
  if (isHollywood(view)) return hollywoodEnd(view);
  return isMatchBoard(view) ? `${winner} wins this board of the match.`
    : `${winner} wins the game, reaching ${view.scores[view.winner]} (game to ${view.options.target_score}).`;
}

/** The score sheet: one row per finished hand, with the running totals, then how the game ended. */
export function renderScores(view) {
  const sheet = scoreSheet(view);
  const line = endLine(view);
  if (line) {
    // a row of the sheet of its own, before the totals: the game ended there
    const total = sheet.querySelector("tr.total");
    const cells = sheet.querySelectorAll("thead th").length - 1; // every column but the row's heading
    total.before(el("tr", { class: "game-end", id: "score-sheet-end" },
      el("th", { scope: "row", text: "End" }), el("td", { colspan: String(cells), text: line })));
  }
  $("#scores").replaceChildren(el("h2", { id: "scores-h", text: "Scores" }), sheet);
}
