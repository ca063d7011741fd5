// Box gin's advice: the advisor's form, the list of the advice given, and the captain's notice of
// the latest advice beside the turn line. Sending advice redraws the table through the table's
// actions, `act` (see table-state.js).
import * as api from "./api.js";
import { cardsInText } from "./cards.js";
import { $, gameId, setText, state } from "./table-state.js";
import { el, playerName } from "./ui.js";

/** The advice section: built once and then updated in place, so that the live list announces only
 * new advice and the advisor's draft, caret and focus survive the game changing under them. */
export function renderAdvice(view, act) {
  const section = $("#advice");
  const role = view.viewer_role;
  if (view.variant !== "three-hand" || (role !== "advisor" && role !== "captain" && view.status !== "over")) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  if (!section.querySelector("#advice-list")) {
    section.replaceChildren(el("h2", { id: "advice-h" }), el("p", { id: "advice-none", class: "muted", text: "No advice yet this hand." }),
      el("ol", { id: "advice-list", class: "advice-list", "aria-live": "polite" }));
  }
  const mayAdvise = role === "advisor" && view.status === "playing";
  setText($("#advice-h"), mayAdvise ? "Advise your captain" : "Advice");
  $("#advice-none").hidden = view.advice.length > 0;
  const list = $("#advice-list");
  // no empty box before the first advice
  list.hidden = !view.advice.length;
  const lines = view.advice.map((a) => `${playerName(view, a.advisor)} (hand ${a.hand_no}): ${cardsInText(a.text)}`);
  const shown = Array.from(list.children, (li) => li.textContent);
  if (shown.every((line, i) => line === lines[i])) {
    for (const line of lines.slice(shown.length)) list.append(el("li", { text: line }));
  } else {
    list.replaceChildren(...lines.map((line) => el("li", { text: line })));
  }
  const form = $("#advice-form");
  if (form && !mayAdvise) form.remove();
  if (!form && mayAdvise) section.append(adviceForm(act));
}

/**
 * For the captain, beside the turn line: the latest advice of this hand, as it arrives (the whole
 * list is further down the page, out of view while playing).
 */
export function renderAdviceNotice(view) {
  const box = $("#advice-notice");
  const latest = view.viewer_role === "captain" && view.status === "playing"
    ? view.advice.filter((a) => a.hand_no === view.hand_no).at(-1) : null;
  if (!latest) { box.hidden = true; box.replaceChildren(); return; }
  const count = view.advice.filter((a) => a.hand_no === view.hand_no).length;
  const text = `Advice from ${playerName(view, latest.advisor)}: “${cardsInText(latest.text)}”`;
  if (box.dataset.text !== text) {
    box.dataset.text = text;
    box.replaceChildren(el("span", { id: "advice-notice-text", text }),
      count > 1 ? el("span", {}, " (", el("a", { href: "#advice-h", text: `all ${count} this hand` }), ")") : "");
  }
  box.hidden = false;
}

/** The advisor's form: a line of advice for the captain. */
function adviceForm(act) {
  const text = el("textarea", { id: "advice-text", rows: "2", maxlength: "500" });
  const form = el("form", { id: "advice-form" }, el("label", { for: "advice-text", text: "Advice (up to 500 characters)" }),
    text, el("button", { type: "submit" }, "Send advice"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    // advice is one line of text (openapi.yaml's Advice): the lines typed here are joined with spaces
    const advice = text.value.replace(/\s*[\r\n\t]+\s*/g, " ").trim();
    if (!advice) return;
    try {
      const { data } = await api.giveAdvice(gameId, state.token, advice);
      if (data.version >= state.view.version) state.view = data;
      text.value = "";
      state.message = "";
    } catch (err) {
      state.message = `Advice refused: ${err.message} [${err.code}]`;
    }
    act.redraw();
    text.focus();
  });
  return form;
}
