// The felt: the other seats (their backs, what is known of their hands, every hand face up once the
// game is over), and the stock and the discard pile with the draw buttons (this side's hand is
// table-hand.js's). A control here calls the table's actions, `act` (see table-state.js).
import { backElement, cardElement, label, sortCards } from "./cards.js";
import { legal, state } from "./table-state.js";
import { el, playerName } from "./ui.js";

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

/** One other seat's box: its name and role, its score, its cards (backs, or face up once the game is over). */
export function seatBlock(view, seat) {
  const p = view.players[seat];
  const role = view.roles ? Object.entries(view.roles).find(([, s]) => s === seat)?.[0] : null;
  const size = view.hand_sizes ? view.hand_sizes[seat] : 0;
  const known = view.known_cards ? view.known_cards[seat] : [];
  const acting = view.to_act.includes(seat);
  const you = seat === view.viewer ? " (you)" : "";
  const revealed = view.status === "over" ? finalHand(view, seat) : null;
  let about = `${size} card${size === 1 ? "" : "s"} in hand; score ${view.scores[seat]}`;
  if (view.status === "waiting") about = p ? "waiting for the deal" : "waiting for a player";
  else if (role === "advisor" && view.status === "playing") about = `sits out this hand, advising; score ${view.scores[seat]}`;
  else if (role === "advisor" && !size && !(revealed && revealed.length)) about = `sat out the last hand, advising; score ${view.scores[seat]}`;
  else if (revealed && revealed.length) about = `score ${view.scores[seat]}; the last hand, face up:`;
  const box = el("div", { class: "pile opponent", "data-seat": String(seat) },
    el("h3", { text: `${p ? playerName(view, seat) : `seat ${seat} (open)`}${you}${role ? ` — ${role}` : ""}${acting ? " — to play" : ""}` }),
    el("p", { class: "muted", text: about }));
  if (revealed && revealed.length) {
    // the game is over: every hand is public now
    const ul = el("ul", { class: "cards", "aria-label": `${playerName(view, seat)}'s last hand` });
    for (const c of sortCards(revealed)) ul.append(el("li", {}, cardElement(c)));
    box.append(ul);
  } else {
    const backs = el("div", { "aria-hidden": "true" });
    for (let i = 0; i < Math.min(size, 11); i += 1) backs.append(backElement());
    box.append(backs);
  }
  // once the whole hand is face up, what was known of it says nothing more
  if (known.length && !(revealed && revealed.length)) {
    box.append(el("p", { text: "Known to hold (taken from the discard pile):" }));
    const ul = el("ul", { class: "cards" });
    for (const c of known) ul.append(el("li", {}, cardElement(c)));
    box.append(ul);
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

/** The stock and the discard pile, with the moves that draw from them. */
export function renderPiles(view, act) {
  const piles = el("div", { class: "row piles" });
  const stockMoves = legal("draw_stock");
  const stock = el("div", { class: "pile", id: "stock" }, el("h3", { text: "Stock" }),
    el("p", { id: "stock-size", text: `${view.stock_size} card${view.stock_size === 1 ? "" : "s"}` }));
  if (view.stock_size > 0) {
    // a card back only on a stock that holds cards
    const stockBack = backElement();
    if (stockMoves.length) {
      stockBack.setAttribute("draggable", "true");
      stockBack.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "draw:stock"));
    }
    stock.append(stockBack);
  }
  if (stockMoves.length) stock.append(el("div", {}, moveButton(act, "Draw from the stock", { type: "draw_stock" }, "draw_stock")));
  const discard = el("div", { class: "pile", id: "discard-pile" }, el("h3", { text: "Discard pile" }));
  if (view.discard_top) {
    const top = cardElement(view.discard_top, { extraClass: "top" });
    if (legal("draw_discard").length || legal("take_upcard").length) {
      top.setAttribute("draggable", "true");
      top.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "draw:discard"));
    }
    discard.append(el("p", { class: "muted", text: `top card (${view.discard_pile.length} in the pile)` }), top);
  } else {
    discard.append(el("p", { class: "muted", text: "empty" }));
  }
  for (const m of legal("take_upcard")) discard.append(el("div", {}, moveButton(act, `Take the upcard, ${label(view.discard_top)}`, m, "take_upcard")));
  for (const m of legal("pass_upcard")) discard.append(el("div", {}, moveButton(act, "Pass the upcard", m, "pass_upcard")));
  for (const m of legal("draw_discard")) discard.append(el("div", {}, moveButton(act, `Take the discard, ${label(view.discard_top)}`, m, "draw_discard")));
  if (view.discard_pile.length > 1) {
    // the table is redrawn as the game moves: whether the pile is unfolded lives in the state
    const det = el("details", { open: state.pileOpen, ontoggle: (e) => { state.pileOpen = e.target.open; } },
      el("summary", { text: "Whole pile" }));
    const ul = el("ul", { class: "cards", "aria-label": "discard pile, bottom first" });
    for (const c of view.discard_pile) ul.append(el("li", {}, cardElement(c)));
    det.append(ul);
    discard.append(det);
  }
  if (legal("discard").length) {
    dropZone(discard, (data) => {
      if (data.startsWith("card:")) act.play({ type: "discard", card: data.slice(5) });
    }, () => true);
  }
  piles.append(stock, discard);
  return piles;
}
