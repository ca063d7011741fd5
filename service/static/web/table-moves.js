// The moves beyond a draw or a discard: the knock (its offer, then the panel where the melds are
// laid out before it is played) and resigning (asked twice). A control here calls the table's
// actions, `act` (see table-state.js).
import * as api from "./api.js";
import { cardElement, deadwood, isMeld, isSet, label, sortCards, sortMeld, value } from "./cards.js";
import { analysisOf, legal, state } from "./table-state.js";
import { cardsText, el } from "./ui.js";

/** Open the knock panel for ``discard`` (null: big gin), its cards laid out as the least deadwood lays them. */
async function openKnock(discard, act) {
  const hand = state.view.hand;
  const rest = discard ? hand.filter((c) => c !== discard) : [...hand];
  let melds = [];
  try {
    const { data } = await api.analyseMelds(rest);
    melds = data.melds;
  } catch { melds = []; }
  const assign = {};
  for (const c of rest) assign[c] = -1;
  melds.forEach((m, i) => m.forEach((c) => { assign[c] = i; }));
  state.knock = { discard, assign };
  act.redraw();
  const first = document.querySelector("#knock-panel select, #knock-panel button");
  if (first) first.focus();
}

/** The knock panel's melds and deadwood, as the person has laid them out. */
function knockGroups() {
  const groups = [[], [], []];
  const dead = [];
  for (const [card, g] of Object.entries(state.knock.assign)) (g >= 0 ? groups[g] : dead).push(card);
  return { groups, dead };
}

/**
 * The way to knock: one button when one discard allows it, else one Knock control with a choice of
 * discard (the deadwood cards first, the highest first: the likeliest best discards); big gin apart.
 */
export function renderKnockOffer(view, act) {
  const knocks = legal("knock");
  if (!knocks.length) return null;
  const box = el("div", { class: "moves", id: "knock-offer" });
  const discards = knocks.filter((m) => m.discard).map((m) => m.discard);
  if (discards.length === 1) {
    box.append(el("button", { type: "button", class: "knock", "data-key": `knock:${discards[0]}`, disabled: state.busy,
      onclick: () => openKnock(discards[0], act) }, `Knock, discarding ${label(discards[0])}…`));
  } else if (discards.length > 1) {
    const analysis = analysisOf(view.hand);
    const dead = new Set(analysis ? analysis.deadwood_cards : []);
    const inHand = sortCards(view.hand);
    const ordered = [...discards].sort((a, b) => Number(dead.has(b)) - Number(dead.has(a))
      || value(b) - value(a) || inHand.indexOf(a) - inHand.indexOf(b));
    if (!ordered.includes(state.knockChoice)) state.knockChoice = ordered[0];
    const select = el("select", { id: "knock-discard", "data-key": "knock-discard", disabled: state.busy,
      onchange: (e) => { state.knockChoice = e.target.value; } });
    for (const c of ordered) {
      const opt = el("option", { value: c, text: label(c) });
      if (c === state.knockChoice) opt.selected = true;
      select.append(opt);
    }
    box.append(el("span", { class: "knock-choice" }, el("label", { for: "knock-discard", text: "Knock, discarding" }), " ", select),
      el("button", { type: "button", class: "knock", "data-key": "knock", disabled: state.busy,
        onclick: () => openKnock(select.value, act) }, "Knock…"));
  }
  if (knocks.some((m) => !m.discard)) {
    box.append(el("button", { type: "button", class: "knock", "data-key": "knock:", disabled: state.busy,
      onclick: () => openKnock(null, act) }, "Big gin (no discard)…"));
  }
  return box;
}

/** The knock panel: where each card goes, whether that makes a legal knock, and the button that plays it. */
export function renderKnockPanel(view, act) {
  const k = state.knock;
  const { groups, dead } = knockGroups();
  const panel = el("div", { id: "knock-panel", class: "knock-panel", role: "region", "aria-labelledby": "knock-h" });
  panel.append(el("h3", { id: "knock-h", text: k.discard ? `Knock, discarding ${label(k.discard)}` : "Big gin" }));
  panel.append(el("p", { text: "These melds are the least-deadwood arrangement. Move a card to another meld or to deadwood if you want to lay them out otherwise." }));
  // shown meld by meld, then the deadwood, so that the panel reads like the table will
  // and each group in the hand's order: a meld as a meld is shown, the deadwood by suit and rank
  const order = (g) => (g < 0 ? sortCards(dead) : sortMeld(groups[g]));
  const cards = [0, 1, 2, -1].flatMap(order);
  const list = el("div", { class: "knock-cards" });
  for (const c of cards) {
    const id = `assign-${c}`;
    const select = el("select", { id, "data-card": c, onchange: (e) => { k.assign[c] = Number(e.target.value); act.redraw(); } });
    for (const [v, t] of [[0, "meld 1"], [1, "meld 2"], [2, "meld 3"], [-1, "deadwood"]]) {
      const opt = el("option", { value: String(v), text: t });
      if (k.assign[c] === v) opt.selected = true;
      select.append(opt);
    }
    list.append(el("div", { class: "knock-card" }, cardElement(c),
      el("label", { for: id, class: "sr-only", text: `Where ${label(c)} goes` }), select));
  }
  panel.append(list);
  let ok = true;
  const summary = el("ul", { id: "knock-summary" });
  groups.forEach((g, i) => {
    if (!g.length) return;
    const valid = isMeld(g);
    ok = ok && valid;
    summary.append(el("li", { class: valid ? "" : "error",
      text: `Meld ${i + 1}: ${cardsText(sortMeld(g))} — ${valid ? (isSet(g) ? "a set" : "a run") : "not a set or a run"}` }));
  });
  const dw = deadwood(dead);
  const limit = view.options.knock_limit;
  if (!k.discard && dead.length) ok = false;
  if (dw > limit) ok = false;
  summary.append(el("li", { id: "knock-deadwood", class: dw > limit ? "error" : "",
    text: `Deadwood: ${dw} (${cardsText(sortCards(dead))})${dw > limit ? ` — more than the limit of ${limit}` : ""}` }));
  panel.append(summary);
  const melds = groups.filter((g) => g.length);
  panel.append(el("div", { class: "moves" },
    el("button", { type: "button", class: "primary", id: "knock-confirm", disabled: !ok || state.busy,
      onclick: () => act.play({ type: "knock", discard: k.discard, melds }) }, dw === 0 ? "Go gin" : "Knock"),
    el("button", { type: "button", id: "knock-reset", onclick: () => openKnock(k.discard, act) }, "Least deadwood again"),
    el("button", { type: "button", id: "knock-cancel", onclick: () => { state.knock = null; act.redraw(); } }, "Cancel")));
  return panel;
}

/** Resigning (an extension, never among legal_moves): any seated player of a game in play, asked twice. */
export function renderResign(view, act) {
  if (view.viewer === null || view.status !== "playing" || state.mode !== "play") return null;
  if (!state.confirmResign) {
    return el("p", {}, el("button", { type: "button", id: "resign", "data-key": "resign",
      onclick: () => { state.confirmResign = true; act.redraw(); document.getElementById("resign-yes").focus(); } },
    "Resign the game…"));
  }
  const dismiss = () => {
    state.confirmResign = false;
    act.redraw();
    const again = document.getElementById("resign");
    if (again) again.focus();
  };
  // Escape answers "no", as it dismisses any dialog
  return el("div", { class: "knock-panel", role: "alertdialog", "aria-labelledby": "resign-q", id: "resign-dialog",
    onkeydown: (e) => { if (e.key === "Escape") { e.preventDefault(); dismiss(); } } },
    el("p", { id: "resign-q", text: "Resign? The game ends now: the other side wins and the scores stand." }),
    el("div", { class: "moves" },
      el("button", { type: "button", id: "resign-yes", class: "primary", disabled: state.busy,
        onclick: () => { state.confirmResign = false; act.play({ type: "resign" }); } }, "Yes, resign"),
      el("button", { type: "button", id: "resign-no", onclick: dismiss }, "No, play on")));
}
