// Box gin at the table: who holds which role in the hand being played, a line per role saying what
// it does (RULES.md §2: the box deals and plays alone against the captain, the captain plays the
// hand against the box, the advisor sits out, advises the captain and never scores), and, after
// a hand, how the roles moved for the next one (the hand-end panel's own sentence).
import { rotationText } from "./table-handend.js";
import { $, state } from "./table-state.js";
import { el, playerName } from "./ui.js";

/** What each role does, in one line each. */
export const ROLE_LINES = {
  box: "deals every hand and plays it alone against the captain.",
  captain: "plays the hand against the box, for the captain's side.",
  advisor: "sits this hand out and may advise the captain; the advisor does not score this hand.",
};

/** Whether the person unfolded the roles' lines: the table is drawn again on every move, the choice stays. */
let open = false;

const who = (view, seat) => (seat === view.viewer ? "you" : playerName(view, seat));

/**
 * The roles of a box gin hand, under the turn line: a summary that names them, unfolding into a line
 * per role; and, until this side's first move of a new hand, how the roles moved after the last one.
 * Nothing for a two-hand game or before the roles are known.
 */
export function renderBoxGin(view) {
  let box = document.getElementById("box-gin");
  const roles = view.variant === "three-hand" && view.status !== "waiting" ? view.roles : null;
  if (!roles) {
    if (box) box.remove();
    return;
  }
  if (!box) {
    box = el("div", { id: "box-gin", class: "box-gin" });
    $("#turn").after(box);
  }
  const r = view.last_hand;
  const rotation = view.status === "playing" && r && r.hand_no === view.hand_no - 1 && state.movedInHand !== view.hand_no
    ? rotationText(view, r) : null;
  const summary = `Box gin, hand ${view.hand_no}: ${who(view, roles.box)} ${roles.box === view.viewer ? "are" : "is"} the box, `
    + `${who(view, roles.captain)} the captain, ${who(view, roles.advisor)} the advisor (sits out, does not score).`;
  const key = `${view.version}|${summary}|${rotation}|${open}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const list = el("ul", { id: "box-gin-roles" });
  for (const role of ["box", "captain", "advisor"]) {
    list.append(el("li", { "data-role": role },
      el("strong", { text: `${role[0].toUpperCase()}${role.slice(1)}` }), ` (${who(view, roles[role])}): ${ROLE_LINES[role]}`));
  }
  const details = el("details", { class: "info", open, ontoggle: (e) => { open = e.target.open; } },
    el("summary", { id: "box-gin-summary", text: summary }), list);
  const parts = [details];
  if (rotation) parts.unshift(el("p", { id: "box-gin-rotation", class: "notice", text: rotation }));
  box.replaceChildren(...parts);
}
