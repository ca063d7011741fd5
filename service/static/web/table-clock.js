// The turn clock: the seconds left of a person's turn, and what the clock played for this seat when
// its time ran out (said when it happens, or on opening the table if it happened while away).
import * as api from "./api.js";
import { short } from "./cards.js";
import { $, andList, gameId, state } from "./table-state.js";
import { playerName } from "./ui.js";

/** A move the clock played, in words ("drew 7♥ from the stock"), or null for any other event. */
function clockMoveText(e) {
  const d = e.data || {};
  const card = (c) => (c ? short(c) : "a card");
  switch (e.type) {
    case "upcard_passed": return "passed the upcard";
    case "upcard_taken": return `took the upcard, ${card(d.card)}`;
    case "card_drawn": return d.source === "discard" ? `took ${card(d.card)} from the discard pile` : `drew ${card(d.card)} from the stock`;
    case "card_discarded": return `discarded ${card(d.card)}`;
    case "knocked": return d.kind === "knock" ? `knocked${d.discard ? `, discarding ${card(d.discard)}` : ""}` : d.kind === "big_gin" ? "went big gin" : "went gin";
    default: return null;
  }
}

/**
 * This seat's clock ran out (a turn_timed_out event at ``version``): the events after it in the
 * same append are the basic bot's move, played for the seat; say what they were.
 */
export async function noteTimedOut(version, seat, act) {
  let moves = [];
  try {
    const { data } = await api.listEvents(gameId, state.token, version, 6);
    moves = clockMoves(data.events, seat);
  } catch { moves = []; }
  state.notice = clockNotice(moves);
  act.redraw();
}

/** The clock's moves for ``seat`` at the start of ``events`` (those right after its turn_timed_out), in words. */
function clockMoves(events, seat) {
  const moves = [];
  for (const e of events) {
    const text = e.data && e.data.seat === seat ? clockMoveText(e) : null;
    if (!text) break;
    moves.push(text);
  }
  return moves;
}

const clockNotice = (moves) => `Time ran out: the basic move was played for you${moves.length ? `: ${andList(moves)}` : ""}.`;

/**
 * Every move the clock played for ``seat`` since the player's own last move, in words, in order
 * (null when the clock played none since): each turn_timed_out of the seat is followed by the
 * moves played for it, up to the next event of anyone else's.
 */
function clockMovesSince(events, seat) {
  let moves = null;
  let clocked = false; // whether the seat's moves now are the clock's
  for (const e of events) {
    const mine = e.data && e.data.seat === seat;
    if (e.type === "turn_timed_out" && mine) {
      clocked = true;
      moves = moves || [];
    } else if (mine && clockMoveText(e)) {
      if (clocked) moves.push(clockMoveText(e));
      else moves = null; // the player's own move: what the clock did before, they have seen
    } else {
      clocked = false;
    }
  }
  return moves;
}

/**
 * On opening the table: if the clock played this seat's turns while the page was not open (a
 * turn_timed_out among the latest events, and no move of the player's own since), say what it played.
 */
export async function noteEarlierTimeout(view) {
  const seat = view.viewer;
  if (seat === null || state.mode !== "play" || !view.options.turn_timeout_s || view.status === "waiting") return;
  try {
    const { data } = await api.listEvents(gameId, state.token, Math.max(view.version - 100, 0), 100);
    const moves = clockMovesSince(data.events, seat);
    if (moves) state.notice = clockNotice(moves);
  } catch { /* no notice */ }
}

/** The turn clock's line: the seconds left, for the people to act (none on a bot's turn). */
export function renderClock(view) {
  const limit = view.options.turn_timeout_s;
  const clock = $("#clock");
  // the clock runs for people only: a bot's turn has none
  const people = view.to_act.filter((seat) => view.players[seat] && !view.players[seat].bot);
  if (!limit || view.status !== "playing" || !state.turnStartedAt || !people.length) { clock.textContent = ""; return; }
  const left = Math.max(0, Math.ceil(limit - (Date.now() - state.turnStartedAt) / 1000));
  const whom = people.includes(view.viewer) ? "you" : andList(people.map((seat) => playerName(view, seat)));
  clock.textContent = `Turn clock: ${left} s left of ${limit} s (then the basic bot moves for ${whom}).`;
}
