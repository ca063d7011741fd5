// The replay's steps: one per event of the game's log, with the hands as they stand after it (followed
// from each deal), the advice given there, the hand it belongs to, and the event in words: a sentence
// for the moment shown ("ann draws 3 of diamonds from the stock.") and one for the list of moves
// ("ann drew the 3 of diamonds from the stock").
import { cardsInText, label } from "./cards.js";
import { isMatchBoard, playerName } from "./ui.js";

/** The events that end a game: they belong to the hand they end. */
export const ENDINGS = ["game_ended", "game_resigned", "game_abandoned", "game_expired"];

/**
 * The hands after every event, followed from each deal (RULES.md §1: alternate cards, non-dealer
 * first), and the hand each event belongs to (0 before the first deal). An event between a hand's
 * end and the next deal (box gin's roles for it) belongs to the next hand, whose cards are not dealt yet.
 */
export function followHands(events) {
  let hands = {};
  let upcard = null;
  let hand = 0;
  let ended = false; // the hand in ``hand`` is over: what follows, but for the game's end, is the next one's
  const steps = [];
  const remove = (seat, card) => { hands[seat] = (hands[seat] || []).filter((c) => c !== card); };
  for (const ev of events) {
    const d = ev.data || {};
    if (ended && ev.type !== "hand_dealt" && !ENDINGS.includes(ev.type)) {
      hand += 1;
      hands = {};
      upcard = null;
      ended = false;
    }
    if (ev.type === "hand_dealt" && Array.isArray(d.deck)) {
      hands = { [d.non_dealer]: [], [d.dealer]: [] };
      for (let i = 0; i < 20; i += 1) hands[i % 2 === 0 ? d.non_dealer : d.dealer].push(d.deck[i]);
      upcard = d.deck[20];
    } else if (ev.type === "upcard_taken" || ev.type === "card_drawn") {
      hands[d.seat] = [...(hands[d.seat] || []), d.card];
    } else if (ev.type === "card_discarded") {
      remove(d.seat, d.card);
    } else if (ev.type === "knocked" && d.discard) {
      remove(d.seat, d.discard);
    }
    if (ev.type === "hand_dealt") { hand = d.hand_no; ended = false; }
    if (ev.type === "hand_scored" || ev.type === "hand_drawn") ended = true;
    steps.push({ event: ev, hand, hands: Object.fromEntries(Object.entries(hands).map(([s, h]) => [s, [...h]])), upcard });
  }
  return steps;
}

/**
 * The game's hands, in order: each {no, first, start, end, dealer}: ``first`` is the index of its
 * first step, ``start`` that of its deal, ``end`` that of the step that scored it or found it drawn
 * (null for a hand cut short by a resignation or an abandonment). The steps before the first deal
 * belong to no hand (hand 0).
 */
export function handsOf(steps) {
  const hands = [];
  steps.forEach((step, i) => {
    const ev = step.event;
    if (step.hand && (!hands.length || hands.at(-1).no !== step.hand)) hands.push({ no: step.hand, first: i, start: i, end: null });
    const h = hands.at(-1);
    if (ev.type === "hand_dealt") Object.assign(h, { start: i, dealer: (ev.data || {}).dealer });
    else if ((ev.type === "hand_scored" || ev.type === "hand_drawn") && h) h.end = i;
  });
  return hands;
}

/** "a", "a and b", "a, b and c". */
const andList = (items) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : items.join(""));

/**
 * The steps with the game's advice in its place: each piece given at version v (the game as it
 * stood after event v) goes with that event's step, in the order given. Advice is no event of the
 * game's log (it has a log of its own, public once the game is over), so it adds no step: the
 * finished game's view lists it, each piece with the version it was given at.
 */
export function withAdvice(steps, advice) {
  const sorted = [...(advice || [])].sort((x, y) => x.version - y.version || (x.seq ?? 0) - (y.seq ?? 0));
  return steps.map((step) => ({ ...step, advice: sorted.filter((a) => a.version === step.event.version) }));
}

/** A piece of advice in words: "abe advises cal, the captain: “Take the upcard”". */
export function adviceText(view, a) {
  const captain = a.captain !== undefined && a.captain !== null ? `${playerName(view, a.captain)}, the captain` : "the captain";
  return `${playerName(view, a.advisor)} advises ${captain}: “${cardsInText(a.text)}”`;
}

/** An event this page has no words for: a sentence all the same ("Client seed sent: Alice."). */
function unknownEvent(view, ev) {
  const d = ev.data || {};
  const what = ev.type.replaceAll("_", " ");
  return `${what[0].toUpperCase()}${what.slice(1)}${d.seat !== undefined ? `: ${playerName(view, d.seat)}` : ""}.`;
}

/** The event as the moment shown: a sentence in the present ("ann discards queen of hearts."). */
export function describe(view, ev) {
  const d = ev.data || {};
  const name = (s) => playerName(view, s);
  switch (ev.type) {
    case "game_created": return `The game is created: ${d.variant}, ${isMatchBoard(view) ? "one hand, a match board"
      : `game to ${d.options ? d.options.target_score : "?"}`}.`;
    case "client_seed_sent": return `${name(d.seat)} sends a client seed (${String(d.client_seed).slice(0, 8)}…): every cut and deal depends on it too.`;
    case "client_seeds_closed": return `The wait for client seeds ends after ${d.waited_s} s: ${andList(d.seats.map(name))} sent none, so the empty seed counts for ${d.seats.length === 1 ? "that seat" : "those seats"}.`;
    case "seat_claimed": return `${d.player && d.player.name ? d.player.name : "someone"} sits at seat ${d.seat + 1}.`;
    case "cards_cut": return `Cut for ${d.purpose === "roles" ? "the roles" : "the first deal"}: ${d.seats.map((s, i) => `${name(s)} ${label(d.cards[i])}`).join(", ")}.`;
    case "roles_assigned": return `Roles: ${name(d.box)} is in the box, ${name(d.captain)} captain, ${name(d.advisor)} advisor.`;
    case "dealer_chosen": return `${name(d.dealer)} deals first.`;
    case "hand_dealt": return `Hand ${d.hand_no}: ${name(d.dealer)} deals; the upcard is ${d.deck ? label(d.deck[20]) : "turned"}.`;
    case "upcard_taken": return `${name(d.seat)} takes the upcard, ${label(d.card)}.`;
    case "upcard_passed": return `${name(d.seat)} passes the upcard.`;
    case "card_drawn": return `${name(d.seat)} draws ${label(d.card)} from the ${d.source === "discard" ? "discard pile" : "stock"}.`;
    case "card_discarded": return `${name(d.seat)} discards ${label(d.card)}.`;
    case "knocked": return `${name(d.seat)} ${d.kind === "gin" ? "goes gin" : d.kind === "big_gin" ? "goes big gin" : "knocks"}${d.discard ? `, discarding ${label(d.discard)}` : ""}.`;
    case "hand_scored": return `Hand ${d.hand_no} is scored: ${name(d.winner)} scores ${d.points}.`;
    case "hand_drawn": return `Hand ${d.hand_no} is drawn: nobody scores.`;
    case "turn_timed_out": return `${name(d.seat)}'s turn clock runs out: the basic bot moves for them.`;
    case "advice_given": return `${name(d.seat)} advises ${d.captain !== undefined && d.captain !== null ? `${name(d.captain)}, the captain` : "the captain"}: “${cardsInText(d.text)}”`;
    case "game_resigned": return `${name(d.seat)} resigns: ${d.winner !== undefined && d.winner !== null ? `${name(d.winner)} wins` : "the game is over"}.`;
    case "game_abandoned": return d.drawn_hands
      ? `${d.drawn_hands} hands in a row were drawn: the game of bots is abandoned, and nobody wins.`
      : "Nobody moved for too long: the game is abandoned, and nobody wins.";
    case "game_expired": return `A seat was still free ${d.waited_s} s after the game was made: it expires, and nobody wins.`;
    case "game_ended": return `Game over: ${name(d.winner)} wins, ${d.scores.map((s, i) => `${name(i)} ${s}`).join(", ")}.`;
    default: return unknownEvent(view, ev);
  }
}

const OUTCOME_WORDS = { knock: "knock", undercut: "undercut", gin: "gin", big_gin: "big gin" };

/** The event as an entry of the list of moves: what happened, in the past ("bob discarded the queen of hearts"). */
export function moveText(view, ev) {
  const d = ev.data || {};
  const name = (s) => playerName(view, s);
  const the = (card) => `the ${label(card)}`;
  switch (ev.type) {
    case "game_created": return `The game was created (${d.variant}${isMatchBoard(view) ? ", a match board"
      : d.options ? `, to ${d.options.target_score}` : ""})`;
    case "client_seed_sent": return `${name(d.seat)} sent a client seed`;
    case "client_seeds_closed": return `The wait for client seeds ended (${andList(d.seats.map(name))} sent none)`;
    case "seat_claimed": return `${d.player && d.player.name ? d.player.name : "someone"} sat at seat ${d.seat + 1}`;
    case "cards_cut": return `${d.purpose === "roles" ? "Cut for the roles" : "Cut for the first deal"}: ${d.seats.map((s, i) => `${name(s)} ${the(d.cards[i])}`).join(", ")}`;
    case "roles_assigned": return `Roles for the next deal: ${name(d.box)} in the box, ${name(d.captain)} captain, ${name(d.advisor)} advisor`;
    case "dealer_chosen": return `${name(d.dealer)} was chosen to deal first`;
    case "hand_dealt": return `${name(d.dealer)} dealt; the upcard was ${d.deck ? the(d.deck[20]) : "turned"}`;
    case "upcard_taken": return `${name(d.seat)} took the upcard, ${the(d.card)}`;
    case "upcard_passed": return `${name(d.seat)} passed the upcard`;
    case "card_drawn": return `${name(d.seat)} drew ${the(d.card)} from the ${d.source === "discard" ? "discard pile" : "stock"}`;
    case "card_discarded": return `${name(d.seat)} discarded ${the(d.card)}`;
    case "knocked": return `${name(d.seat)} ${d.kind === "gin" ? "went gin" : d.kind === "big_gin" ? "went big gin" : "knocked"}${d.discard ? `, discarding ${the(d.discard)}` : ""}`;
    case "hand_scored": return `${OUTCOME_WORDS[d.outcome] ? `${OUTCOME_WORDS[d.outcome][0].toUpperCase()}${OUTCOME_WORDS[d.outcome].slice(1)}: ` : ""}${name(d.winner)} scored ${d.points}`;
    case "hand_drawn": return "The hand was drawn: nobody scored";
    case "turn_timed_out": return `${name(d.seat)}'s turn clock ran out`;
    case "advice_given": return `${name(d.seat)} gave advice`;
    case "game_resigned": return `${name(d.seat)} resigned${d.winner !== undefined && d.winner !== null ? `: ${name(d.winner)} won` : ""}`;
    case "game_abandoned": return "The game was abandoned: nobody won";
    case "game_expired": return "The game expired before every seat was taken: nobody won";
    case "game_ended": return `Game over: ${name(d.winner)} won, ${d.scores.map((s, i) => `${name(i)} ${s}`).join(", ")}`;
    default: return unknownEvent(view, ev).replace(/\.$/, "");
  }
}
