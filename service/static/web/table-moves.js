// The moves beyond a draw or a discard: the knock's offer (the arrangement it opens is
// table-knock.js's) and resigning (asked twice). A control here calls the table's actions, `act`
// (see table-state.js).
import { openKnock } from "./table-knock.js";
import { legal, state } from "./table-state.js";
import { el } from "./ui.js";

/**
 * The way to knock: one control, whatever the discards that allow it, that opens the arrangement
 * (the discard is chosen there); none while the arrangement is open.
 */
export function renderKnockOffer(view, act) {
  const knocks = legal("knock");
  if (!knocks.length || state.knock) return null;
  const bigGinOnly = knocks.every((m) => !m.discard);
  return el("div", { class: "moves", id: "knock-offer" },
    el("button", { type: "button", class: "knock", "data-key": "knock", disabled: state.busy,
      onclick: () => openKnock(act) }, bigGinOnly ? "Big gin…" : "Knock…"));
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
