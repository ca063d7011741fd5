// The felt: the other seats (their backs, what is known of their hands, every hand face up once the
// game is over), the stock and the discard pile with the draw buttons, and this side's hand with its
// melds, its deadwood and the cards it may discard. A control here calls the table's actions,
// `act` (see table-state.js).
import { backElement, cardElement, deadwood, isRun, isSet, label, short, sortCards, sortMeld } from "./cards.js";
import { justTaken, thrownBy } from "./table-motion.js";
import { analysisOf, legal, state } from "./table-state.js";
import { botKind, el, isMatchBoard, playerName } from "./ui.js";

/**
 * A seat's last hand once the game is over: from all_hands, or, for a board of a match in play
 * (whose view keeps all_hands back, the board's deal being the other tables' too), from the hand's
 * result, which shows it already, when that hand is the game's last.
 */
function finalHand(view, seat) {
  if (view.all_hands) return view.all_hands[seat];
  const r = view.last_hand;
  return r && r.hand_no === view.hand_no && Array.isArray(r.hands) ? r.hands[seat] : null;
}

/**
 * One other seat's box, kept low so that the hand stays in view: a line with its name (its bot kind
 * once, when the name does not say it), role, score and whether it is to play; its cards (backs, or
 * face up once the game is over); and what is known of its hand on one line, the card it just took
 * from the pile marked.
 */
export function seatBlock(view, seat) {
  const p = view.players[seat];
  const role = view.roles ? Object.entries(view.roles).find(([, s]) => s === seat)?.[0] : null;
  const size = view.hand_sizes ? view.hand_sizes[seat] : 0;
  const known = view.known_cards ? view.known_cards[seat] : [];
  const acting = view.to_act.includes(seat);
  const you = seat === view.viewer ? " (you)" : "";
  const revealed = view.status === "over" ? finalHand(view, seat) : null;
  let about = `${size} card${size === 1 ? "" : "s"}; score ${view.scores[seat]}`;
  if (view.status === "waiting") about = p ? "waiting for the deal" : "waiting for a player";
  else if (role === "advisor" && view.status === "playing") about = `sits out, advising; score ${view.scores[seat]}`;
  else if (role === "advisor" && !size && !(revealed && revealed.length)) about = `sat out the last hand, advising; score ${view.scores[seat]}`;
  else if (revealed && revealed.length) about = `score ${view.scores[seat]}; the last hand, face up:`;
  const kind = botKind(view, seat);
  const box = el("div", { class: `pile opponent${acting ? " acting" : ""}`, "data-seat": String(seat) },
    el("h3", {}, `${p ? playerName(view, seat) : `seat ${seat} (open)`}${you}`,
      kind ? el("span", { class: "kind", text: ` (${kind})` }) : null,
      `${role ? ` — ${role}` : ""}${acting ? " — to play" : ""}`),
    el("p", { class: "muted about", text: about }));
  if (revealed && revealed.length) {
    // the game is over: every hand is public now
    const ul = el("ul", { class: "cards", "aria-label": `${playerName(view, seat)}'s last hand` });
    for (const c of sortCards(revealed)) ul.append(el("li", {}, cardElement(c)));
    box.append(ul);
  } else if (size) {
    const backs = el("div", { class: "backs", "aria-hidden": "true" });
    for (let i = 0; i < Math.min(size, 11); i += 1) backs.append(backElement());
    box.append(backs);
  }
  // once the whole hand is face up, what was known of it says nothing more
  if (known.length && !(revealed && revealed.length)) {
    const taken = justTaken(view, seat);
    const ul = el("ul", { class: "cards", "aria-label": "known to hold" });
    for (const c of known) {
      const card = cardElement(c, { extraClass: c === taken ? "just-taken" : "", spoken: c === taken ? `${label(c)}, just taken` : null });
      ul.append(el("li", {}, card));
    }
    box.append(el("div", { class: "known" }, el("span", { class: "known-label", text: "Known to hold (from the pile):" }), ul,
      taken ? el("span", { class: "taken-note", text: `just took ${short(taken)}` }) : null));
  }
  return box;
}

function moveButton(act, text, move, key, extra = {}) {
  return el("button", { type: "button", class: "move", "data-key": key, disabled: state.busy,
    onclick: () => act.play(move), ...extra }, text);
}

function dropZone(node, onDrop, accepts) {
  node.classList.add("drop-target");
  node.addEventListener("dragover", (e) => {
    if (accepts(e)) { e.preventDefault(); node.classList.add("over"); }
  });
  node.addEventListener("dragleave", () => node.classList.remove("over"));
  node.addEventListener("drop", (e) => {
    e.preventDefault();
    node.classList.remove("over");
    onDrop(e.dataTransfer.getData("text/plain"));
  });
}

/**
 * The stock and the discard pile, with the moves that draw from them. Each pile keeps the same size
 * whether its moves are offered or not (their row is there, empty, when they are not), so that
 * nothing on the table moves when a button comes or goes; the pile's top card says who threw it.
 */
export function renderPiles(view, act) {
  const piles = el("div", { class: "row piles" });
  const stockMoves = legal("draw_stock");
  const stock = el("div", { class: "pile", id: "stock" }, el("h3", {}, "Stock ",
    el("span", { id: "stock-size", class: "count", text: `${view.stock_size} card${view.stock_size === 1 ? "" : "s"}` })));
  const stockBody = el("div", { class: "pile-body" });
  if (view.stock_size > 0) {
    // a card back only on a stock that holds cards
    const stockBack = backElement();
    if (stockMoves.length) {
      stockBack.setAttribute("draggable", "true");
      stockBack.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "draw:stock"));
    }
    stockBody.append(stockBack);
  } else {
    stockBody.append(el("span", { class: "card empty-pile", "aria-hidden": "true" }));
  }
  stockBody.append(el("div", { class: "slot" },
    ...stockMoves.map(() => moveButton(act, "Draw from the stock", { type: "draw_stock" }, "draw_stock"))));
  stock.append(stockBody);
  const count = view.discard_pile.length;
  const discard = el("div", { class: "pile", id: "discard-pile" }, el("h3", {}, "Discard pile ",
    el("span", { class: "count", text: count ? `${count} card${count === 1 ? "" : "s"}` : "empty" })));
  const discardBody = el("div", { class: "pile-body" });
  const slot = el("div", { class: "slot" });
  if (view.discard_top) {
    const top = cardElement(view.discard_top, { extraClass: "top" });
    if (legal("draw_discard").length || legal("take_upcard").length) {
      top.setAttribute("draggable", "true");
      top.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "draw:discard"));
    }
    const by = thrownBy(view);
    discardBody.append(top);
    // the upcard's own moves say what it is: its line then makes room for them
    if (by || !legal("take_upcard").length) {
      slot.append(el("p", { id: "discard-by", class: "thrown-by", "data-seat": by ? String(by.seat) : null,
        text: by ? `thrown by ${by.name}` : "the upcard" }));
    }
  } else {
    discardBody.append(el("span", { class: "card empty-pile", "aria-hidden": "true" }));
  }
  const moves = el("div", { class: "pile-moves" });
  // short words on the buttons, beside the card they name; a screen reader hears the card too
  const named = (button) => { button.append(el("span", { class: "sr-only", text: `, ${label(view.discard_top)}` })); return button; };
  for (const m of legal("take_upcard")) moves.append(named(moveButton(act, "Take the upcard", m, "take_upcard")));
  for (const m of legal("pass_upcard")) moves.append(moveButton(act, "Pass the upcard", m, "pass_upcard"));
  for (const m of legal("draw_discard")) moves.append(named(moveButton(act, "Take the discard", m, "draw_discard")));
  slot.append(moves);
  discardBody.append(slot);
  discard.append(discardBody);
  if (count > 1) {
    // the table is redrawn as the game moves: whether the pile is unfolded lives in the state
    const det = el("details", { class: "whole-pile", open: state.pileOpen, ontoggle: (e) => { state.pileOpen = e.target.open; } },
      el("summary", { text: "Whole pile" }));
    const ul = el("ul", { class: "cards", "aria-label": "discard pile, bottom first" });
    for (const c of view.discard_pile) ul.append(el("li", {}, cardElement(c)));
    det.append(ul);
    discard.append(det);
  } else {
    discard.append(el("div", { class: "whole-pile", "aria-hidden": "true" })); // the same room, kept
  }
  if (legal("discard").length) {
    dropZone(discard, (data) => {
      if (data.startsWith("card:")) act.play({ type: "discard", card: data.slice(5) });
    }, () => true);
  }
  piles.append(stock, discard);
  return piles;
}

/** This side's hand, its melds first and then its deadwood; the cards that may be discarded are buttons. */
export function renderHand(view, act) {
  const box = el("div", { id: "hand", "aria-labelledby": "hand-h" });
  const owner = view.hand_owner;
  const whose = owner === view.viewer ? "Your hand" : `${playerName(view, owner)}'s hand — captain (you advise)`;
  const hand = view.hand;
  const analysis = analysisOf(hand);
  const discards = new Set(legal("discard").map((m) => m.card));
  let dwText = "";
  if (analysis) {
    dwText = `deadwood ${analysis.deadwood}`;
    if (hand.length === 11 && analysis.deadwood_after_discard !== undefined) {
      dwText += `; ${analysis.deadwood_after_discard} after the best discard`;
    }
  }
  // the score of the side this hand plays for, beside it: the other seats show theirs in their boxes
  const target = isMatchBoard(view) ? "" : ` of ${view.options.target_score}`;
  box.append(el("h3", { id: "hand-h" }, `${whose} — `,
    el("span", { id: "hand-score", text: `score ${view.scores[owner]}${target}` }), "; ",
    el("span", { id: "deadwood", text: dwText || `${hand.length} cards` })));
  const groups = analysis ? [...analysis.melds.map((m) => ({ cards: sortMeld(m), meld: true })),
    { cards: sortCards(analysis.deadwood_cards), meld: false }] : [{ cards: sortCards(hand), meld: false }];
  const row = el("div", { class: "hand-groups" });
  groups.forEach((g, i) => {
    if (!g.cards.length) return;
    const kind = g.meld ? (isSet(g.cards) ? "set" : isRun(g.cards) ? "run" : "meld") : "";
    const tag = g.meld ? `Meld ${i + 1} (${kind})` : analysis ? `Deadwood ${deadwood(g.cards)}` : "Cards";
    const group = el("div", { class: `group ${g.meld ? "meld" : "deadwood"}`, role: "group", "aria-label": tag },
      el("span", { class: "tag", "aria-hidden": "true", text: tag }));
    const ul = el("ul", { class: "cards" });
    for (const c of g.cards) {
      let node;
      if (discards.has(c)) {
        node = cardElement(c, { tag: "button", extraClass: "discard", spoken: `Discard ${label(c)}` });
        node.dataset.key = `discard:${c}`;
        node.disabled = state.busy;
        node.setAttribute("draggable", "true");
        node.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", `card:${c}`));
        node.addEventListener("click", () => act.play({ type: "discard", card: c }));
      } else {
        node = cardElement(c);
      }
      if (c === view.drawn_card) node.classList.add("drawn");
      if (c === view.taken_card) node.classList.add("taken");
      ul.append(el("li", {}, node));
    }
    group.append(ul);
    row.append(group);
  });
  box.append(row);
  // the arrow keys move between the cards that may be played, as in a toolbar
  box.addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (!step || !e.target.matches("button.card")) return;
    const buttons = Array.from(box.querySelectorAll("button.card:not(:disabled)"));
    const next = buttons[(buttons.indexOf(e.target) + step + buttons.length) % buttons.length];
    if (next) { e.preventDefault(); next.focus(); }
  });
  if (view.drawn_card) box.append(el("p", { class: "muted", text: `Just drawn: ${label(view.drawn_card)} (ringed in blue, marked new).` }));
  if (view.taken_card) box.append(el("p", { class: "muted", text: `${label(view.taken_card)} was just taken from the discard pile: it may not be discarded this turn.` }));
  if (discards.size) box.append(el("p", { class: "muted", text: "Choose a card to discard (or drag it onto the discard pile)." }));
  if (legal("draw_stock").length || legal("draw_discard").length) {
    dropZone(box, (data) => {
      if (data === "draw:stock") act.play({ type: "draw_stock" });
      if (data === "draw:discard") act.play(legal("draw_discard")[0] || legal("take_upcard")[0]);
    }, () => true);
  }
  return box;
}
