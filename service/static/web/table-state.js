// The table's one state object, and the small helpers every part of the table reads it with.
// table.js changes the state (the server's answers, the moves played) and draws each part from it.
import { sortCards } from "./cards.js";

export const $ = (sel) => document.querySelector(sel);
/** Set a text only when it changes: a live region re-announces whatever is written into it. */
export const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
const [, mode, gameId] = location.pathname.split("/");
export { gameId };

export const state = {
  gameId,
  mode, // "play" or "watch"
  seat: null,
  token: null,
  view: null, // the view shown (at a pace, it may be behind the game: table-pace.js)
  latest: null, // the game's latest version this page has heard of
  analysis: new Map(), // sorted hand -> /analysis/melds answer
  knock: null, // {discard, assign: {card: meld index or -1}} while the knock panel is open
  knockChoice: null, // the discard chosen in the Knock control, kept while the table redraws
  connection: "connecting",
  turnStartedAt: null, // ms, the time of the latest event (the turn clock runs from it)
  busy: false,
  confirmResign: false,
  pileOpen: false,
  message: "", // why the last move or advice was refused
  notice: "", // what the turn clock played for this seat, until its next move
  loadError: "", // why the view could not be fetched
  loadErrorCode: null, // the problem code of that refusal, when the server gave one
  matchOver: null, // for a finished game of a match: whether the match is over too (its games are sealed till then)
  recent: null, // the latest events as this viewer may see them ({version, events}): what the others just did
  movedInHand: null, // the hand this page last played a move in (the last hand's outcome then goes)
  dismissedHand: null, // the hand whose outcome the person dismissed from beside the turn line
  endSeen: null, // {hand, over}: the latest hand end (and whether the game's end) this page has shown, or found when it opened
  handEnd: null, // {result, over, skipped}: what the hand-end panel shows, while it is open
};

/** What the table says while no answer comes back at all (the server down, the network gone). */
export const UNREACHABLE = "The server cannot be reached; retrying…";

/** The moves of one type this viewer may play now. */
export const legal = (type) => (state.view ? state.view.legal_moves.filter((m) => m.type === type) : []);

/** The melds and deadwood of a hand, as /analysis/melds gave them (once asked). */
export function analysisOf(cards) {
  return state.analysis.get(sortCards(cards).join(","));
}

/** "a", "a and b", "a, b and c". */
export const andList = (items) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : items.join(""));

/** The seat whose moves are this viewer's side: their own, the captain's for the advisor; null for a spectator. */
export const own = (view) => view.hand_owner ?? view.viewer;

/**
 * What a part's controls may do, given to it by table.js: play a move (then the table is drawn
 * again), or draw the table again after a change of the state alone.
 * @typedef {{ play: (move: object) => Promise<void>, redraw: () => void }} Actions
 */
