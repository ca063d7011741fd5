// This side's hand: its melds and deadwood as /analysis/melds groups them, or in the order the person
// put the cards in (kept in this browser for the game, the seat and the hand), with the cards that may
// be discarded as buttons that discard. Any card moves by dragging it (a mouse, or a finger through
// pointer events) or by Shift+Arrow / Alt+Arrow; "Sort" goes back to the grouping. A control here
// calls the table's actions, `act` (see table-state.js).
import { cardElement, deadwood, fourColourToggle, isRun, isSet, label, sortCards, sortMeld } from "./cards.js";
import { analysisOf, gameId, legal, state } from "./table-state.js";
import { el, isHollywood, isMatchBoard, playerName } from "./ui.js";

/** Where this browser keeps the order of the hand a seat holds in a game. */
const orderKey = (view) => `ginbox.handOrder.${gameId}.${view.viewer}`;

/** The order the person put this hand in, or null (none, or one of an earlier hand). */
function storedOrder(view) {
  try {
    const kept = JSON.parse(localStorage.getItem(orderKey(view)) || "null");
    return kept && kept.hand_no === view.hand_no && Array.isArray(kept.order) ? kept.order : null;
  } catch { return null; }
}

function storeOrder(view, order) {
  try { localStorage.setItem(orderKey(view), JSON.stringify({ hand_no: view.hand_no, order })); } catch { /* kept for the page only */ }
}

function forgetOrder(view) {
  try { localStorage.removeItem(orderKey(view)); } catch { /* nothing kept */ }
}

/** The hand grouped as the analysis lays it out: each meld (as a meld is shown), then the deadwood by suit and rank. */
function autoOrder(hand, analysis) {
  if (!analysis) return sortCards(hand);
  return [...analysis.melds.flatMap(sortMeld), ...sortCards(analysis.deadwood_cards)];
}

/**
 * The hand in the order shown: the person's own (the cards still held, in their places, and any new
 * card at the end, in the grouping's order), else the grouping; and whether it is the person's.
 */
export function handOrder(view) {
  const auto = autoOrder(view.hand, analysisOf(view.hand));
  const saved = storedOrder(view);
  if (!saved) return { order: auto, custom: false };
  const held = new Set(view.hand);
  const kept = saved.filter((c) => held.has(c));
  const placed = new Set(kept);
  return { order: [...kept, ...auto.filter((c) => !placed.has(c))], custom: true };
}

/** Put ``card`` at ``index`` of the order shown (counted before it leaves its place) and keep that order. */
function moveCard(view, act, card, index) {
  const { order } = handOrder(view);
  const from = order.indexOf(card);
  if (from < 0) return;
  const next = order.filter((c) => c !== card);
  const to = Math.max(0, Math.min(index > from ? index - 1 : index, next.length));
  next.splice(to, 0, card);
  storeOrder(view, next);
  act.redraw();
  say(`${label(card)} moved to place ${to + 1} of ${next.length}.`);
}

/** A polite live region of its own (the hand is drawn again on every change, so it lives outside it). */
function saidRegion() {
  let region = document.getElementById("hand-said");
  if (!region) {
    region = el("p", { id: "hand-said", class: "sr-only", "aria-live": "polite" });
    document.body.append(region);
  }
  return region;
}

function say(text) {
  saidRegion().textContent = text;
}

/**
 * Consecutive cards of the order that belong to the same meld of the analysis, as groups; a meld
 * split by the person's order shows as parts. The grouping's own order gives exactly its groups.
 */
function segments(order, analysis) {
  const meldOf = new Map();
  if (analysis) analysis.melds.forEach((m, i) => m.forEach((c) => meldOf.set(c, i)));
  const segs = [];
  for (const c of order) {
    const meld = meldOf.has(c) ? meldOf.get(c) : -1;
    const last = segs.at(-1);
    if (last && last.meld === meld) last.cards.push(c);
    else segs.push({ meld, cards: [c] });
  }
  return segs;
}

function segmentTag(seg, analysis) {
  if (seg.meld < 0) return analysis ? `Deadwood ${deadwood(seg.cards)}` : "Cards";
  const whole = analysis.melds[seg.meld];
  if (seg.cards.length < whole.length) return `Meld ${seg.meld + 1}, ${seg.cards.length} of its ${whole.length} cards`;
  return `Meld ${seg.meld + 1} (${isSet(whole) ? "set" : isRun(whole) ? "run" : "meld"})`;
}

// ---------------------------------------------------------------- dragging

let dragging = null; // the hand's card an HTML5 drag carries, while it does

/**
 * A drag by a finger or a pen (a mouse uses HTML5 drag and drop): past a few pixels the card follows
 * no more than a marker does, ``over(x, y)`` says where it would land, ``drop(x, y)`` lands it; the
 * click that ends such a drag is not a tap.
 */
export function touchDrag(node, { over, drop, clear }) {
  node.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "mouse" || e.button !== 0) return;
    const start = { x: e.clientX, y: e.clientY };
    let moving = false;
    try { node.setPointerCapture(e.pointerId); } catch { /* a synthetic pointer: the events still come here */ }
    const onMove = (ev) => {
      if (!moving && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 8) return;
      moving = true;
      node.classList.add("dragging");
      over(ev.clientX, ev.clientY);
    };
    const end = (ev) => {
      node.removeEventListener("pointermove", onMove);
      node.removeEventListener("pointerup", end);
      node.removeEventListener("pointercancel", end);
      node.classList.remove("dragging");
      clear();
      if (!moving || ev.type === "pointercancel") return;
      // the click that follows the lifted finger is the drag's end, not a tap on the card
      node.addEventListener("click", (c) => { c.stopImmediatePropagation(); c.preventDefault(); }, { capture: true, once: true });
      setTimeout(() => drop(ev.clientX, ev.clientY), 0);
    };
    node.addEventListener("pointermove", onMove);
    node.addEventListener("pointerup", end);
    node.addEventListener("pointercancel", end);
  });
}

/** Where a drop at (x, y) on ``under`` puts a card in the hand: before or after the card there, or at the end. */
function dropIndex(box, order, x, y, under = document.elementFromPoint(x, y)) {
  const li = under && under.closest("#hand li[data-card]");
  if (!li || !box.contains(li)) return order.length;
  const r = li.getBoundingClientRect();
  const at = order.indexOf(li.dataset.card);
  return x > r.left + r.width / 2 ? at + 1 : at;
}

function clearMarks(box) {
  for (const n of box.querySelectorAll(".insert-before, .insert-after")) n.classList.remove("insert-before", "insert-after");
  const pile = document.getElementById("discard-pile");
  if (pile) pile.classList.remove("over");
}

function markDrop(box, x, y, under = document.elementFromPoint(x, y)) {
  clearMarks(box);
  const li = under && under.closest("#hand li[data-card]");
  if (li) {
    const r = li.getBoundingClientRect();
    li.classList.add(x > r.left + r.width / 2 ? "insert-after" : "insert-before");
  } else if (under && under.closest("#discard-pile") && legal("discard").length) {
    document.getElementById("discard-pile").classList.add("over");
  }
}

/** One card of the hand: a button (discarding it when that is a legal move), draggable, movable by keys. */
function cardButton(view, act, c, discards, box, order) {
  const discardable = discards.has(c);
  const node = cardElement(c, { tag: "button", extraClass: discardable ? "discard" : "held",
    spoken: discardable ? `Discard ${label(c)}` : label(c) });
  node.dataset.key = discardable ? `discard:${c}` : `card:${c}`;
  node.disabled = discardable && state.busy;
  node.setAttribute("aria-describedby", "hand-keys");
  node.setAttribute("draggable", "true");
  node.addEventListener("click", () => {
    if (discardable) act.play({ type: "discard", card: c });
    else say(`${label(c)} may not be discarded now. Shift+← or Shift+→ moves it in the hand.`);
  });
  node.addEventListener("dragstart", (e) => {
    dragging = c;
    // "card:" is what the discard pile takes; a card that may not be discarded only moves in the hand
    e.dataTransfer.setData("text/plain", `${discardable ? "card" : "hand"}:${c}`);
    e.dataTransfer.effectAllowed = "move";
  });
  node.addEventListener("dragend", () => { dragging = null; clearMarks(box); });
  touchDrag(node, {
    over: (x, y) => markDrop(box, x, y),
    clear: () => clearMarks(box),
    drop: (x, y) => {
      const under = document.elementFromPoint(x, y);
      if (under && under.closest("#discard-pile")) {
        if (discardable) act.play({ type: "discard", card: c });
      } else if (under && box.contains(under)) {
        moveCard(view, act, c, dropIndex(box, order, x, y));
      }
    },
  });
  if (c === view.drawn_card) node.classList.add("drawn");
  if (c === view.taken_card) node.classList.add("taken");
  return node;
}

/** The keys: the arrows walk the hand's cards (as in a toolbar); Shift or Alt with an arrow moves the card. */
function onKey(e, view, act, box) {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
  if (!step || !e.target.matches("#hand button.card")) return;
  e.preventDefault(); // Alt+Left is the browser's Back otherwise
  const card = e.target.dataset.card;
  if (e.shiftKey || e.altKey) {
    const { order } = handOrder(view);
    const at = order.indexOf(card);
    const to = at + step;
    if (to < 0 || to >= order.length) { say(`${label(card)} is already ${to < 0 ? "first" : "last"}.`); return; }
    moveCard(view, act, card, step > 0 ? to + 1 : to);
    return;
  }
  const buttons = Array.from(box.querySelectorAll("button.card:not(:disabled)"));
  const next = buttons[(buttons.indexOf(e.target) + step + buttons.length) % buttons.length];
  if (next) next.focus();
}

/** This side's hand, its melds first and then its deadwood (or the person's order); the cards that may be discarded discard. */
export function renderHand(view, act) {
  const box = el("div", { id: "hand", "aria-labelledby": "hand-h" });
  saidRegion(); // there before anything is said in it, so that it is heard
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
  const target = isMatchBoard(view) ? "" : isHollywood(view) ? ", three games added up" : ` of ${view.options.target_score}`;
  box.append(el("h3", { id: "hand-h" }, `${whose} — `,
    el("span", { id: "hand-score", text: `score ${view.scores[owner]}${target}` }), "; ",
    el("span", { id: "deadwood", text: dwText || `${hand.length} cards` })));
  const { order, custom } = handOrder(view);
  const row = el("div", { class: `hand-groups${custom ? " own-order" : ""}` });
  for (const seg of segments(order, analysis)) {
    const tag = segmentTag(seg, analysis);
    const group = el("div", { class: `group ${seg.meld >= 0 ? "meld" : "deadwood"}`, role: "group", "aria-label": tag },
      el("span", { class: "tag", "aria-hidden": "true", text: tag }));
    const ul = el("ul", { class: "cards" });
    for (const c of seg.cards) ul.append(el("li", { "data-card": c }, cardButton(view, act, c, discards, box, order)));
    group.append(ul);
    row.append(group);
  }
  box.append(row);
  box.addEventListener("keydown", (e) => onKey(e, view, act, box));
  if (view.drawn_card) box.append(el("p", { class: "muted", text: `Just drawn: ${label(view.drawn_card)} (ringed in blue, marked new).` }));
  if (view.taken_card) box.append(el("p", { class: "muted", text: `${label(view.taken_card)} was just taken from the discard pile: it may not be discarded this turn.` }));
  if (discards.size) box.append(el("p", { class: "muted", text: "Choose a card to discard (or drag it onto the discard pile)." }));
  box.append(el("div", { class: "hand-tools" },
    el("p", { id: "hand-keys", class: "muted" },
      "To move a card in your hand, drag it, or focus it and press Shift+← or Shift+→ (Alt works too)."),
    el("button", { type: "button", id: "hand-sort", class: "small", disabled: !custom,
      onclick: () => { forgetOrder(view); act.redraw(); say("Sorted: melds first, then deadwood."); } }, "Sort"),
    fourColourToggle()));
  const draws = legal("draw_stock").length || legal("draw_discard").length;
  if (draws) box.classList.add("drop-target");
  box.addEventListener("dragover", (e) => {
    if (dragging) { e.preventDefault(); markDrop(box, e.clientX, e.clientY, e.target); return; }
    if (draws) { e.preventDefault(); box.classList.add("over"); }
  });
  box.addEventListener("dragleave", (e) => { if (!box.contains(e.relatedTarget)) { box.classList.remove("over"); clearMarks(box); } });
  box.addEventListener("drop", (e) => {
    e.preventDefault();
    box.classList.remove("over");
    clearMarks(box);
    const data = e.dataTransfer.getData("text/plain");
    const moved = /^(card|hand):/.test(data) ? data.slice(5) : null;
    dragging = null;
    if (moved && hand.includes(moved)) { moveCard(view, act, moved, dropIndex(box, order, e.clientX, e.clientY, e.target)); return; }
    if (data === "draw:stock" && legal("draw_stock").length) act.play({ type: "draw_stock" });
    if (data === "draw:discard" && draws) act.play(legal("draw_discard")[0] || legal("take_upcard")[0]);
  });
  return box;
}
