// The replay's felt at one step: every seat's hand face up, grouped as the table groups a hand (its
// melds, then its deadwood), the stock and the discard pile; and, at a hand's end, the hand's
// result in words. The groups are the engine's: during a hand, the least-deadwood arrangement
// POST /analysis/melds gives (as the table asks it); at the knock, the melds the knocker laid out;
// once the hand is scored, the melds, lay-offs and deadwood of the server's result.
import * as api from "./api.js";
import { cardElement, deadwood, isRun, isSet, label, sortCards, sortMeld } from "./cards.js";
import { finalText } from "./table-handend.js";
import { el, playerName, resultSection } from "./ui.js";

/** Each hand's arrangement, asked once: sorted cards -> a promise of /analysis/melds's answer (null if refused). */
const arrangements = new Map();

function arrangement(cards) {
  const key = sortCards(cards).join(",");
  if (!arrangements.has(key)) {
    // a refusal (the server busy, a rate limit) leaves the hand sorted, and is asked again later
    arrangements.set(key, api.analyseMelds(cards).then((r) => r.data, () => { arrangements.delete(key); return null; }));
  }
  return arrangements.get(key);
}

/** A group of cards: {kind: "meld", "laid" or "deadwood", cards, tag, and maybe spoken: {card: its words}}. */
const meldGroup = (cards, i) => {
  const kind = isSet(cards) ? "set" : isRun(cards) ? "run" : "meld";
  return { kind: "meld", cards: sortMeld(cards), tag: `Meld ${i + 1} (${kind})` };
};
const deadwoodGroup = (cards) => ({ kind: "deadwood", cards: sortCards(cards), tag: `Deadwood ${deadwood(cards)}` });

/**
 * The hand's result, when the step shows a hand that is over: the server's ``last_hand`` at the
 * step's version, once the step is at or after the event that scored the hand (or found it drawn).
 */
export function resultAt(step, index, hand, at) {
  const r = at && at.last_hand;
  if (!r || !hand || hand.end === null || index < hand.end || r.hand_no !== step.hand) return null;
  return r;
}

/** Each seat's groups at the step: {seat: [group, ...]} (a seat without cards has none). */
export async function groupsAt(view, step, result) {
  const ev = step.event;
  const d = ev.data || {};
  const scored = result && result.outcome !== "drawn" && Array.isArray(result.knocker_melds) ? result : null;
  const out = {};
  await Promise.all(Object.entries(step.hands).map(async ([key, hand]) => {
    const seat = Number(key);
    if (!hand || !hand.length) { out[seat] = []; return; }
    if (scored && seat === scored.knocker) {
      out[seat] = [...scored.knocker_melds.map(meldGroup), deadwoodGroup(scored.knocker_deadwood_cards)];
    } else if (scored && seat === scored.defender) {
      // the cards laid off stay in the defender's hand, apart from their melds; each card says where it went
      const knocker = view.players[scored.knocker] ? view.players[scored.knocker].name : "the knocker";
      const laid = { kind: "laid", cards: sortCards(scored.layoffs.map(([c]) => c)), tag: "Laid off",
        spoken: Object.fromEntries(scored.layoffs.map(([c, j]) => [c, `${label(c)}, laid off on ${knocker}'s meld ${j + 1}`])) };
      out[seat] = [...scored.defender_melds.map(meldGroup), laid, deadwoodGroup(scored.defender_deadwood_cards)];
    } else if (ev.type === "knocked" && seat === d.seat && Array.isArray(d.melds)) {
      out[seat] = [...d.melds.map(meldGroup), deadwoodGroup(d.deadwood_cards || [])];
    } else {
      const a = await arrangement(hand);
      out[seat] = a ? [...a.melds.map(meldGroup), deadwoodGroup(a.deadwood_cards)]
        : [{ kind: "deadwood", cards: sortCards(hand), tag: "Cards" }];
    }
    out[seat] = out[seat].filter((g) => g.cards.length);
  }));
  return out;
}

/** One seat's box: its name, role and score, its cards in their groups. */
function seatBox(view, at, step, seat, groups, result) {
  const role = at.roles ? Object.entries(at.roles).find(([, r]) => r === seat)?.[0] : null;
  // once the hand is over, the part each side played in it; until then, who is to play
  const gin = result && (result.outcome === "gin" || result.outcome === "big_gin");
  let part = role ? ` — ${role}` : "";
  if (result && result.outcome !== "drawn") {
    part += seat === result.knocker ? ` — ${gin ? "gin" : "knocker"}` : seat === result.defender ? " — defender" : "";
  } else if (at.to_act.includes(seat)) {
    part += " — to play";
  }
  const box = el("div", { class: "pile seat", "data-seat": String(seat) },
    el("h3", { text: `${playerName(view, seat)}${part}: score ${at.scores[seat]}` }));
  if (!groups || !groups.length) {
    // a seat without cards (box gin's advisor, or before the deal) takes one line, not a hand's room
    box.classList.add("no-cards");
    box.append(el("p", { class: "muted", text: role === "advisor" ? "sits out this hand" : "not dealt yet" }));
    return box;
  }
  const ev = step.event;
  const d = ev.data || {};
  // the card just drawn (or the upcard just taken) is marked as the table marks it
  const fresh = (ev.type === "card_drawn" || ev.type === "upcard_taken") && d.seat === seat ? d.card : null;
  const row = el("div", { class: "hand-groups" });
  for (const g of groups) {
    const group = el("div", { class: `group ${g.kind === "deadwood" ? "deadwood" : g.kind === "laid" ? "meld laid" : "meld"}`,
      role: "group", "aria-label": `${playerName(view, seat)}: ${g.tag}` }, el("span", { class: "tag", "aria-hidden": "true", text: g.tag }));
    const ul = el("ul", { class: "cards" });
    for (const c of g.cards) {
      const node = cardElement(c, { spoken: g.spoken ? g.spoken[c] : null });
      if (c === fresh) node.classList.add("drawn");
      ul.append(el("li", {}, node));
    }
    group.append(ul);
    row.append(group);
  }
  box.append(row);
  if (fresh) box.append(el("p", { class: "sr-only", text: `Just ${ev.type === "upcard_taken" ? "taken" : "drawn"}: ${label(fresh)}, marked new.` }));
  return box;
}

/**
 * The felt at a step: the seats' hands in their groups, then the stock and the discard pile on one
 * line (not at a hand's end: the hand is over, and its result needs the room).
 */
export function renderBoard(view, at, step, groups, result) {
  const grid = el("div", { class: "hands-grid" });
  for (const seat of at.players.map((_, i) => i)) grid.append(seatBox(view, at, step, seat, groups[seat], result));
  if (result) return [grid];
  const piles = el("div", { class: "row replay-piles" },
    el("p", { class: "pile" }, el("strong", { text: "Stock: " }), `${at.stock_size} card${at.stock_size === 1 ? "" : "s"}`),
    el("div", { class: "pile discard" }, el("strong", { text: "Discard pile: " }),
      at.discard_top ? cardElement(at.discard_top) : el("span", { class: "muted", text: "empty" })));
  return [grid, piles];
}

/** The game's end in words: who won and how (the target reached, a resignation, an abandonment), and the final score. */
export function gameOverText(at) {
  if ((at.winner === null || at.winner === undefined) && (!at.end || !["abandoned", "expired"].includes(at.end.reason))) {
    // an end with no winner that is no abandonment: the scores alone
    return `Nobody wins. Final score: ${at.scores.map((s, i) => `${playerName(at, i)} ${s}`).join(", ")}.`;
  }
  return finalText(at);
}

/**
 * The hand's result in words (the hands are on the felt, in the result's own groups); at the game's
 * last event (``over``), the game's end first, then the last hand's result when the game ended with it.
 */
export function renderResult(at, result, over) {
  const out = [];
  if (over) {
    out.push(el("div", { class: "result game-over" }, el("h2", { id: "result-h", text: "Game over" }),
      el("p", { id: "game-over", text: gameOverText(at) })));
  }
  if (result) out.push(resultSection(at, result, { hands: false, headingId: over ? "last-hand-h" : "result-h" }));
  return out;
}
