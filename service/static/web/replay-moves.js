// The replay's list of moves: one entry per event, in words, grouped by hand; each entry goes to its
// event, and the event shown is marked (aria-current) and kept in view inside the list's own box
// (the page itself never scrolls for it: on a phone the list is below the table).
//
// Each entry is an <li class="move"> carrying data-index (its step), data-version (its event's
// version), data-type and data-seat, an empty data-mark, and an empty <span class="move-mark"> at its
// end: the hooks a later analysis of the decisions marks a move by. It sets data-mark to the mark's
// kind (a word, e.g. "mistake"; style.css may colour an entry by it) and writes the mark's few
// characters into the span, which shows only once it holds some; the entry's text wraps to leave it room.
import { moveText } from "./replay-steps.js";
import { el } from "./ui.js";

/**
 * Fill ``box`` with the list of ``steps`` (``hands`` from handsOf): a heading per hand and an
 * ordered list of its events. ``go(index)`` is called with the step of the entry chosen.
 */
export function renderMoveList(box, view, steps, hands, go) {
  // each seat by its name alone, for entries that fit a line: the table says which seat is a bot
  const short = { ...view, players: view.players.map((p) => (p ? { ...p, bot: null } : p)) };
  const sections = [];
  const groups = [{ hand: null, first: 0 }, ...hands.map((h) => ({ hand: h, first: h.first }))].filter((g, k, all) =>
    (k + 1 < all.length ? all[k + 1].first : steps.length) > g.first);
  groups.forEach(({ hand, first }, k) => {
    const end = k + 1 < groups.length ? groups[k + 1].first : steps.length;
    const id = `moves-hand-${hand ? hand.no : 0}`;
    const dealer = hand && short.players[hand.dealer] ? ` — ${short.players[hand.dealer].name} deals` : "";
    const title = hand ? `Hand ${hand.no}${dealer}` : "Before the first deal";
    const list = el("ol", { class: "move-entries", "aria-labelledby": id, start: String(first + 1) });
    for (let i = first; i < end; i += 1) {
      const ev = steps[i].event;
      const d = ev.data || {};
      list.append(el("li", { class: "move", "data-index": String(i), "data-version": String(ev.version), "data-type": ev.type, "data-mark": "",
        "data-seat": d.seat !== undefined && d.seat !== null ? String(d.seat) : null },
      el("button", { type: "button", class: "move-entry", "data-index": String(i) },
        el("span", { class: "move-no", "aria-hidden": "true", text: `${i + 1}.` }), " ",
        el("span", { class: "move-text", text: moveText(short, ev) }),
        el("span", { class: "move-mark" }))));
    }
    sections.push(el("section", { class: "move-hand", "data-hand": String(hand ? hand.no : 0) },
      el("h3", { id, text: title }), list));
  });
  box.replaceChildren(...sections);
  box.addEventListener("click", (e) => {
    const button = e.target.closest("button.move-entry");
    if (button) go(Number(button.dataset.index));
  });
}

/** Mark the entry of step ``index`` as the one shown, and scroll the list's box (alone) to it. */
export function markMove(box, index) {
  for (const old of box.querySelectorAll("button.move-entry[aria-current]")) old.removeAttribute("aria-current");
  const button = box.querySelector(`button.move-entry[data-index="${index}"]`);
  if (!button) return;
  button.setAttribute("aria-current", "step");
  // scrollIntoView would scroll the page too: only the box scrolls, centring an entry out of its view
  const outer = box.getBoundingClientRect();
  const inner = button.getBoundingClientRect();
  if (inner.top < outer.top || inner.bottom > outer.bottom) {
    box.scrollTop += inner.top - outer.top - (outer.height - inner.height) / 2;
  }
}
