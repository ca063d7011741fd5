// Moves made visible: who threw the discard pile's top card, which card an opponent just took from
// the pile, and each card drawn, taken or thrown since the table was last drawn, flown from where it
// was to where it went (or, for a reader who asked for less motion, ringed where it landed).
// Everything is read from the latest events the table loads (state.recent).
import { backElement, cardElement } from "./cards.js";
import { own, state } from "./table-state.js";
import { playerName } from "./ui.js";

/** How long a card's flight from one place to another lasts, in ms. */
export const FLIGHT_MS = 450;

const MOVES = new Set(["upcard_taken", "card_drawn", "card_discarded", "knocked"]);
const TAKES = new Set(["upcard_taken", "card_drawn"]);

/** The events of the hand being played that the viewer has read, oldest first ([] when none). */
function handEvents(view) {
  const recent = state.recent;
  if (!recent || recent.version !== view.version) return [];
  const events = recent.events.filter((e) => e.version <= view.version);
  const dealt = events.findLastIndex((e) => e.type === "hand_dealt");
  return dealt < 0 ? events : events.slice(dealt + 1);
}

/** Who threw the discard pile's top card: {seat, name} from the latest discard of that card, or null (the upcard). */
export function thrownBy(view) {
  const top = view.discard_top;
  if (!top) return null;
  const e = handEvents(view).findLast((x) => (x.type === "card_discarded" && x.data.card === top)
    || (x.type === "knocked" && x.data.discard === top));
  if (!e) return null;
  const seat = e.data.seat;
  return { seat, name: seat === view.viewer ? "you" : playerName(view, seat) };
}

/** The card ``seat`` last took from the discard pile in this hand, while it is known to be in that hand; or null. */
export function justTaken(view, seat) {
  const known = view.known_cards ? view.known_cards[seat] || [] : [];
  const e = handEvents(view).findLast((x) => x.data && x.data.seat === seat && (x.type === "upcard_taken"
    || (x.type === "card_drawn" && x.data.source === "discard")));
  return e && known.includes(e.data.card) ? e.data.card : null;
}

/** Where the cards are now: the stock, the discard pile's top, each seat's box and this side's cards. */
export function snapshot() {
  const rect = (sel) => { const n = document.querySelector(sel); return n ? n.getBoundingClientRect() : null; };
  const hand = new Map();
  for (const c of document.querySelectorAll("#hand .card[data-card]")) hand.set(c.dataset.card, c.getBoundingClientRect());
  return { stock: rect("#stock .card.back") || rect("#stock"), top: rect("#discard-pile .card.top") || rect("#discard-pile"), hand };
}

/** Every move shown so far ({version, type, seat, card, at}), for whoever wants the history. */
const shown = [];
globalThis.ginboxMovesShown = shown;
let lastVersion = null;
let lastMoves = []; // the moves shown at lastVersion

const reduced = () => globalThis.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches;

/** A card (or a back) flying from rectangle ``from`` to rectangle ``to``, removed once landed. */
function fly(ghost, from, to, delay) {
  if (!from || !to || typeof ghost.animate !== "function") return;
  ghost.classList.add("flying");
  ghost.setAttribute("aria-hidden", "true");
  // the card keeps the size it lands with, and leaves from the middle of where it was
  const w = Math.min(to.width, 48);
  const h = Math.min(to.height, 64);
  const x = from.left + (from.width - w) / 2;
  const y = from.top + (from.height - h) / 2;
  Object.assign(ghost.style, { left: `${x}px`, top: `${y}px`, width: `${w}px`, height: `${h}px`, minWidth: "0" });
  document.body.append(ghost);
  const dx = to.left + (to.width - w) / 2 - x;
  const dy = to.top + (to.height - h) / 2 - y;
  const flight = ghost.animate([{ transform: "translate(0, 0)", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px)`, opacity: 1 }],
    { duration: FLIGHT_MS, delay, easing: "ease-in-out", fill: "both" });
  flight.onfinish = () => ghost.remove();
  flight.oncancel = () => ghost.remove();
  // a page in the background may never finish its animations: the card goes in any case
  setTimeout(() => ghost.remove(), FLIGHT_MS + delay + 200);
}

/** The element a move's card went to, on the table as drawn now, or null. */
function landing(view, e) {
  const d = e.data;
  const side = own(view);
  if (e.type === "card_discarded" || e.type === "knocked") return document.querySelector("#discard-pile .card.top");
  if (d.seat === side) return d.card ? document.querySelector(`#hand .card[data-card="${CSS.escape(d.card)}"]`) : null;
  const box = document.querySelector(`.opponent[data-seat="${d.seat}"]`);
  if (!box) return null;
  return (d.card && box.querySelector(`.known .card[data-card="${CSS.escape(d.card)}"]`)) || box.querySelector(".backs") || box;
}

/** The place a move's card came from, as the table stood before it was drawn again. */
function origin(view, e, before) {
  const d = e.data;
  if (TAKES.has(e.type)) return e.type === "card_drawn" && d.source === "stock" ? before.stock : before.top;
  const card = e.type === "knocked" ? d.discard : d.card;
  if (d.seat === own(view) && before.hand.has(card)) return before.hand.get(card);
  const box = document.querySelector(`.opponent[data-seat="${d.seat}"] .backs`)
    || document.querySelector(`.opponent[data-seat="${d.seat}"]`);
  return box ? box.getBoundingClientRect() : null;
}

/**
 * Show the moves made since the table was last drawn (at most the last two, a turn's draw and its
 * discard): each card flies from where it was (``before``, a snapshot) to where it is now, or, with
 * reduced motion, is ringed where it landed. The latest move is also written into body's data-last-move.
 */
export function showMoves(view, before) {
  // the moves are read from the events loaded for this very version: until they are, wait
  if (!state.recent || state.recent.version !== view.version) {
    if (lastVersion === null) lastVersion = view.version;
    return;
  }
  const previous = lastVersion;
  lastVersion = view.version;
  if (previous !== null && view.version === previous) {
    // the same moment drawn again: the cards just moved keep their ring
    for (const e of lastMoves) { const t = landing(view, e); if (t) t.classList.add("moved"); }
    return;
  }
  lastMoves = [];
  if (previous === null || view.version < previous) return;
  const moves = handEvents(view).filter((e) => e.version > previous && MOVES.has(e.type)).slice(-2);
  lastMoves = moves.filter((e) => e.type !== "knocked" || e.data.discard);
  const still = reduced();
  moves.forEach((e, i) => {
    const card = e.type === "knocked" ? e.data.discard : e.data.card;
    if (e.type === "knocked" && !card) return;
    const target = landing(view, e);
    shown.push({ version: e.version, type: e.type, seat: e.data.seat, card: card || null, at: performance.now(), animated: !still && !!target });
    document.body.dataset.lastMove = `${e.version} ${e.type} ${e.data.seat}${card ? ` ${card}` : ""}`;
    if (!target) return;
    target.classList.add("moved");
    if (still) return;
    const ghost = card && (TAKES.has(e.type) ? target.matches(".card:not(.back)") : true) ? cardElement(card) : backElement();
    fly(ghost, origin(view, e, before), target.getBoundingClientRect(), i * (FLIGHT_MS * 0.6));
  });
}
