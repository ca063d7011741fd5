// The lobby's "Your games": the games this browser holds a seat in, to resume (or replay, once over)
// or forget; a match's game also links to its match's page.
import { forgetGame, myGames } from "./seats.js";
import { el } from "./ui.js";

const $ = (sel) => document.querySelector(sel);

/**
 * The games listed as over, each with how it ended in words ("ann won 103 to 51"; the games table
 * adds them): "Your games" offers their replay, not a table to resume, and says who won.
 */
export const finished = new Map();

/** The list of this browser's games, drawn again whenever a seat is saved or forgotten. */
export function renderMyGames() {
  const games = myGames();
  const box = $("#my-games");
  if (!games.length) {
    box.replaceChildren(el("p", { class: "muted", text: "None yet: this browser holds no seat." }));
    return;
  }
  const ul = el("ul");
  for (const game of games) {
    const seats = Object.entries(game.seats);
    // a game of a duplicate match, saved by the match page, is named by its place in the match,
    // which has a page of its own (its turns, standings and boards)
    const place = Number.isInteger(game.board) && Number.isInteger(game.table)
      ? `board ${game.board + 1}, table ${game.table + 1}` : game.game_id;
    const what = game.match ? `the match game at ${place}` : `game ${game.game_id}`;
    const li = game.match ? el("li", { class: "match-game", "data-match": game.match }) : el("li", {});
    if (finished.has(game.game_id) && !game.match) {
      const how = finished.get(game.game_id);
      // the link's name is its text (a screen reader's words are the ones seen), then how it ended
      li.append(el("a", { href: `/replay/${game.game_id}`, class: "button replay", "data-game": game.game_id,
        text: `Replay ${game.game_id}` }), " ");
      li.append(el("span", { class: "game-end", "data-game": game.game_id, text: `over${how ? ` — ${how}` : ""} ` }));
    } else if (game.match) {
      li.append(el("span", { text: `Match game (${place}): ` }));
      for (const [seat, info] of seats) {
        li.append(el("a", { href: `/play/${game.game_id}#seat=${seat}`, class: "button resume", "data-game": game.game_id,
          text: "Resume", "aria-label": `Resume ${what} as ${info.name || `seat ${Number(seat) + 1}`}` }), " ");
      }
      li.append(el("a", { href: `/match/${game.match}`, class: "button match-page", "data-match": game.match,
        text: "Match page", "aria-label": `Match page of ${what}` }), " ");
    } else {
      for (const [seat, info] of seats) {
        li.append(el("a", { href: `/play/${game.game_id}#seat=${seat}`, class: "button resume",
          "data-game": game.game_id, text: `Resume ${game.game_id} as ${info.name || `seat ${Number(seat) + 1}`}` }), " ");
      }
    }
    li.append(el("span", { class: "muted", text: ` ${game.variant} ` }),
      el("button", { type: "button", class: "forget", "data-game": game.game_id,
        "aria-label": `Forget ${what} (its seat tokens leave this browser)`, text: "Forget",
        onclick: () => { forgetGame(game.game_id); renderMyGames(); } }));
    ul.append(li);
  }
  box.replaceChildren(ul);
}
