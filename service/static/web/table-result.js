// The hand's end and the game's: the last hand's result explained, the score sheet, and a
// finished game's way to its replay (or, for a match's game, back to the match).
import * as api from "./api.js";
import { $, state } from "./table-state.js";
import { el, resultSection, scoreSheet } from "./ui.js";

/** The id of the match a game is a board of, from its players (or null). */
const matchIdOf = (view) => (view.players.find((p) => p && p.match) || {}).match || null;

/**
 * A finished game's way to its replay. A match's game is sealed until the whole match is over (its
 * deal is the other tables' deal too): until then, the way back to the match instead.
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
  return el("p", {}, el("a", { class: "button", id: "replay-link", href: `/replay/${view.game_id}`, text: "Replay this game" }),
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

/** The score sheet: one row per finished hand, with the running totals. */
export function renderScores(view) {
  $("#scores").replaceChildren(el("h2", { id: "scores-h", text: "Scores" }), scoreSheet(view));
}
