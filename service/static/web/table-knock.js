// The knock, laid out by hand: the 11 cards in a Discard slot, three meld groups and the deadwood,
// first as the least deadwood lays them (/analysis/melds). A card moves by dragging it onto a group,
// by tapping it and then the group (or a card of that group), or by a key on the focused card: 1, 2
// or 3 (a meld), D (the discard), 0 (the deadwood). Each group keeps its place; a meld that is no set
// or run and deadwood over the knock limit are said in words, and "Knock" waits for a legal layout.
import * as api from "./api.js";
import { cardElement, deadwood, isMeld, isSet, label, short, sortCards, sortMeld, value } from "./cards.js";
import { touchDrag } from "./table-hand.js";
import { analysisOf, legal, state } from "./table-state.js";
import { cardsText, el } from "./ui.js";

/** Where a card goes: a meld group (0 to 2), the discard, or the deadwood. */
const DISCARD = "discard";
const DEAD = "dead";
const GROUPS = [DISCARD, 0, 1, 2, DEAD];
const KEYS = { 1: 0, 2: 1, 3: 2, d: DISCARD, D: DISCARD, 0: DEAD };

/** The legal knocks now: the discards that allow one, and whether big gin (no discard) does. */
function knocks() {
  const moves = legal("knock");
  return { discards: new Set(moves.filter((m) => m.discard).map((m) => m.discard)), bigGin: moves.some((m) => !m.discard) };
}

/** The discard first offered: none for big gin, else the legal one that leaves the least deadwood (the higher card on a tie). */
function offeredDiscard(view) {
  const { discards, bigGin } = knocks();
  if (bigGin) return null;
  const analysis = analysisOf(view.hand);
  const left = new Map(((analysis && analysis.knock_discards) || []).map((k) => [k.card, k.deadwood]));
  for (const c of (analysis && analysis.gin_discards) || []) left.set(c, 0);
  const best = [...discards].sort((a, b) => (left.get(a) ?? 99) - (left.get(b) ?? 99) || value(b) - value(a));
  return best[0] ?? null;
}

/** Open the arrangement with ``discard`` (undefined: the one offered; null: big gin), its other cards laid out as the least deadwood lays them. */
export async function openKnock(act, discard) {
  const hand = state.view.hand;
  const out = discard === undefined ? offeredDiscard(state.view) : discard;
  const rest = out ? hand.filter((c) => c !== out) : [...hand];
  let melds = [];
  try {
    const { data } = await api.analyseMelds(rest);
    melds = data.melds.slice(0, 3);
  } catch { melds = []; }
  const assign = {};
  for (const c of sortCards(hand)) assign[c] = DEAD;
  if (out) assign[out] = DISCARD;
  melds.forEach((m, i) => m.forEach((c) => { assign[c] = i; }));
  state.knock = { assign, selected: null };
  act.redraw();
  const panel = document.getElementById("knock-panel");
  if (panel) panel.scrollIntoView({ block: "nearest" });
  const first = document.querySelector("#knock-panel button.card");
  if (first) first.focus({ preventScroll: true });
}

/** The arrangement as groups: the discard (or null), the three melds as a meld is shown, the deadwood by suit and rank. */
function laidOut(k) {
  const melds = [[], [], []];
  const dead = [];
  let discard = null;
  for (const [card, g] of Object.entries(k.assign)) {
    if (g === DISCARD) discard = card;
    else if (g === DEAD) dead.push(card);
    else melds[g].push(card);
  }
  return { discard, melds: melds.map(sortMeld), dead: sortCards(dead) };
}

/** Move ``card`` to group ``to`` (the discard slot holds one card: the one there goes to the deadwood), keeping the focus on it. */
function moveTo(act, card, to) {
  const k = state.knock;
  k.selected = null;
  if (k.assign[card] === to) { act.redraw(); return; }
  if (to === DISCARD) for (const [c, g] of Object.entries(k.assign)) if (g === DISCARD) k.assign[c] = DEAD;
  k.assign[card] = to;
  act.redraw();
  const again = document.querySelector(`#knock-panel [data-card="${card}"]`);
  if (again) again.focus({ preventScroll: true });
}

const groupName = (g) => (g === DISCARD ? "Discard" : g === DEAD ? "Deadwood" : `Meld ${g + 1}`);

/** Whether the arrangement makes a legal knock, and each reason it does not, in words. */
function judge(view, k) {
  const { discard, melds, dead } = laidOut(k);
  const { discards, bigGin } = knocks();
  const limit = view.options.knock_limit;
  const dw = deadwood(dead);
  const problems = [];
  if (!discard && !bigGin) problems.push("Choose the card to discard: put it in the Discard slot.");
  if (!discard && bigGin && dead.length) problems.push("Big gin melds all 11 cards: leave no deadwood, or put a card in the Discard slot.");
  melds.forEach((m, i) => { if (m.length && !isMeld(m)) problems.push(`Meld ${i + 1} is not a set or a run.`); });
  if (dw > limit) problems.push(`The deadwood, ${dw}, is more than the limit of ${limit}.`);
  if (discard && !discards.has(discard) && dw <= limit) {
    problems.push(discard === view.taken_card
      ? `${label(discard)} was just taken from the discard pile: it may not be discarded this turn.`
      : `Knocking discarding ${label(discard)} is not allowed now.`);
  }
  return { discard, melds, dead, dw, limit, problems, gin: dw === 0 && !dead.length };
}

/** One card of the arrangement: tap to pick it up (or to move the picked one into its group), drag it, or press a group's key. */
function knockCard(act, c, group) {
  const k = state.knock;
  const picked = k.selected === c;
  const node = cardElement(c, { tag: "button", extraClass: "knock-move", spoken: `${label(c)}, in ${groupName(group)}` });
  node.dataset.key = `knock-card:${c}`;
  node.setAttribute("aria-pressed", String(picked));
  node.setAttribute("aria-describedby", "knock-keys");
  node.setAttribute("draggable", "true");
  node.addEventListener("click", () => {
    if (k.selected && k.selected !== c && k.assign[k.selected] !== group) { moveTo(act, k.selected, group); return; }
    k.selected = picked ? null : c;
    act.redraw();
  });
  node.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (e.key in KEYS) { e.preventDefault(); moveTo(act, c, KEYS[e.key]); }
    else if (e.key === "Escape" && k.selected) { e.preventDefault(); k.selected = null; act.redraw(); }
    else if (step && !e.shiftKey) {
      // the arrows walk the arrangement's cards, group after group, as in a toolbar
      e.preventDefault();
      const all = Array.from(document.querySelectorAll("#knock-panel button.card"));
      all[(all.indexOf(node) + step + all.length) % all.length].focus();
    }
  });
  node.addEventListener("dragstart", (e) => {
    e.dataTransfer.setData("text/plain", `knock:${c}`);
    e.dataTransfer.effectAllowed = "move";
  });
  touchDrag(node, {
    over: (x, y) => markGroup(document.elementFromPoint(x, y)),
    clear: () => markGroup(null),
    drop: (x, y) => {
      const target = groupAt(document.elementFromPoint(x, y));
      if (target !== undefined) moveTo(act, c, target);
    },
  });
  return node;
}

/** The group an element lies in (undefined: none). */
function groupAt(node) {
  const box = node && node.closest("#knock-panel .knock-group");
  if (!box) return undefined;
  const g = box.dataset.group;
  return g === DISCARD || g === DEAD ? g : Number(g);
}

function markGroup(node) {
  for (const n of document.querySelectorAll("#knock-panel .knock-group.over")) n.classList.remove("over");
  const box = node && node.closest("#knock-panel .knock-group");
  if (box) box.classList.add("over");
}

/** What a group's heading says of it: its name, and whether it is a set, a run or no meld; the deadwood's count. */
function groupHead(g, cards, verdict) {
  if (g === DISCARD) {
    const none = verdict.discard ? "" : knocks().bigGin ? "empty: big gin" : "empty";
    return { text: none ? `Discard — ${none}` : "Discard", error: !verdict.discard && !knocks().bigGin };
  }
  if (g === DEAD) {
    const over = verdict.dw > verdict.limit;
    return { text: `Deadwood ${verdict.dw}${over ? ` — more than the limit of ${verdict.limit}` : ""}`, error: over };
  }
  if (!cards.length) return { text: `Meld ${g + 1} — empty`, error: false };
  if (!isMeld(cards)) return { text: `Meld ${g + 1} — not a set or a run`, error: true };
  return { text: `Meld ${g + 1} — ${isSet(cards) ? "a set" : "a run"}`, error: false };
}

/** One group: its heading, a button that puts the picked card here, and its cards; a place to drop a card. */
function knockGroup(act, g, cards, verdict) {
  const k = state.knock;
  const head = groupHead(g, cards, verdict);
  const id = `knock-group-${g}`;
  const box = el("div", { class: `knock-group${head.error ? " invalid" : ""}${g === DISCARD ? " discard-slot" : ""}`,
    "data-group": String(g), role: "group", "aria-labelledby": id });
  const canPut = k.selected && k.assign[k.selected] !== g;
  box.append(el("div", { class: "knock-group-head" },
    el("span", { id, class: `tag${head.error ? " error" : ""}`, text: head.text }),
    el("button", { type: "button", class: "small knock-to", "data-key": `knock-to:${g}`, disabled: !canPut,
      onclick: () => moveTo(act, k.selected, g) }, canPut ? `Put ${short(k.selected)} here` : "Put here")));
  const ul = el("ul", { class: "cards" });
  for (const c of cards) ul.append(el("li", {}, knockCard(act, c, g)));
  box.append(ul);
  // a tap on the group's free space puts the picked card there
  box.addEventListener("click", (e) => { if (k.selected && !e.target.closest("button")) moveTo(act, k.selected, g); });
  box.addEventListener("dragover", (e) => { e.preventDefault(); markGroup(box); });
  box.addEventListener("dragleave", (e) => { if (!box.contains(e.relatedTarget)) box.classList.remove("over"); });
  box.addEventListener("drop", (e) => {
    e.preventDefault();
    markGroup(null);
    const data = e.dataTransfer.getData("text/plain");
    if (data.startsWith("knock:") && data.slice(6) in k.assign) moveTo(act, data.slice(6), g);
  });
  return box;
}

/** The arrangement: the groups, what is wrong with it if anything, and the buttons that knock, lay it out again, or cancel. */
export function renderKnockPanel(view, act) {
  const k = state.knock;
  const verdict = judge(view, k);
  const { discard, melds, dead, dw, problems } = verdict;
  const bigGin = !discard && !dead.length;
  const title = bigGin ? "Big gin" : !discard ? "Knock" : verdict.gin ? `Gin, discarding ${label(discard)}` : `Knock, discarding ${label(discard)}`;
  const panel = el("div", { id: "knock-panel", class: "knock-panel", role: "region", "aria-labelledby": "knock-h" });
  panel.append(el("h3", { id: "knock-h", text: title }),
    el("p", { text: "These melds are the least-deadwood arrangement. Lay them out otherwise if you like." }),
    el("p", { id: "knock-keys", class: "muted" },
      "Drag a card onto a group, or tap it and then the group. With the keyboard, the arrows go from card to card; press ",
      el("kbd", { text: "1" }), ", ", el("kbd", { text: "2" }), " or ", el("kbd", { text: "3" }), " for a meld, ",
      el("kbd", { text: "D" }), " for the discard, ", el("kbd", { text: "0" }), " for the deadwood."));
  const groups = el("div", { class: "knock-groups" });
  const cardsOf = { [DISCARD]: discard ? [discard] : [], [DEAD]: dead, 0: melds[0], 1: melds[1], 2: melds[2] };
  for (const g of GROUPS) groups.append(knockGroup(act, g, cardsOf[g], verdict));
  panel.append(groups);
  const summary = el("ul", { id: "knock-summary" },
    el("li", { id: "knock-discard-line", text: discard ? `Discard: ${short(discard)}` : bigGin ? "No discard: big gin" : "No discard chosen" }),
    el("li", { id: "knock-deadwood", class: dw > verdict.limit ? "error" : "",
      text: `Deadwood: ${dw} (${cardsText(dead)})${dw > verdict.limit ? ` — more than the limit of ${verdict.limit}` : ""}` }));
  for (const p of problems) summary.append(el("li", { class: "error", text: p }));
  if (!problems.length) summary.append(el("li", { id: "knock-ready", text: bigGin ? "Ready: big gin." : verdict.gin ? "Ready: gin." : "Ready to knock." }));
  panel.append(summary);
  panel.append(el("div", { class: "moves" },
    el("button", { type: "button", class: "primary", id: "knock-confirm", disabled: problems.length > 0 || state.busy,
      onclick: () => act.play({ type: "knock", discard, melds: melds.filter((m) => m.length) }) },
    bigGin ? "Big gin" : verdict.gin ? "Go gin" : "Knock"),
    el("button", { type: "button", id: "knock-reset",
      onclick: () => openKnock(act, discard || (knocks().bigGin ? null : undefined)) }, "Least deadwood again"),
    el("button", { type: "button", id: "knock-cancel", onclick: () => {
      state.knock = null;
      act.redraw();
      const offer = document.querySelector('[data-key="knock"]');
      if (offer) offer.focus();
    } }, "Cancel")));
  return panel;
}
