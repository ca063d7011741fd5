// The felt: the other seats (their backs, what is known of their hands, every hand face up once the
// game is over), and the stock and the discard pile with the draw buttons (this side's hand is
// table-hand.js's). A control here calls the table's actions, `act` (see table-state.js).
import { backElement, cardElement, label, short, sortCards } from "./cards.js";
import { justTaken, thrownBy } from "./table-motion.js";
import { legal, state } from "./table-state.js";
import { botKind, el, playerName } from "./ui.js";

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
    el("h3", {}, `${p ? playerName(view, seat) : `seat ${seat + 1} (open)`}${you}`,
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
