// The pace at which the table shows what others did. At a person's table each move of another
// player stays on screen at least BOT_MOVE_MS, one at a time (a bot's draw, then its discard, even
// when both arrived together); a spectator chooses a pace (live, or a delay per event), kept in
// this browser. The views in between are the server's own, as the game stood (GET /games/{id}/state).
import * as api from "./api.js";
import { $, gameId, state } from "./table-state.js";
import { el } from "./ui.js";

/** The least time another player's move stays on a person's screen before the next is shown, in ms. */
export const BOT_MOVE_MS = 700;

/** A spectator's paces: 0 is live (every view as soon as it comes), else the ms each event is shown. */
export const WATCH_PACES = [0, 500, 1000, 2000];

/** Where this browser keeps the spectator's pace. */
export const PACE_KEY = "ginbox.watchPace.v1";

const MOVES = new Set(["upcard_passed", "upcard_taken", "card_drawn", "card_discarded", "knocked"]);

/** The spectator's pace, as kept in this browser (live when nothing or something unknown is kept). */
export function watchPace() {
  let kept = null;
  try { kept = localStorage.getItem(PACE_KEY); } catch { kept = null; }
  const ms = Number(kept);
  return kept !== null && WATCH_PACES.includes(ms) ? ms : 0;
}

let holdUntil = 0;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until the view shown has been shown long enough (or the pace became live). */
async function hold(delay) {
  while (delay() > 0 && performance.now() < holdUntil) await sleep(Math.min(holdUntil - performance.now(), 100));
}

/**
 * The versions the page has drawn, in order, with when ({version, at}): for whoever wants the history.
 * A version drawn again (a later look that found nothing new) is not a new entry.
 */
const drawn = [];
globalThis.ginboxViewsShown = drawn;

/**
 * Show ``latest`` (the view just fetched), stepping first through the events since the view shown
 * that are to be seen one by one: at a table, the moves of the other seats; watching at a pace, every
 * event. Each such view stays for the pace before the next; ``show(view)`` draws one.
 */
export async function stepTo(latest, side, show) {
  const watching = state.mode === "watch";
  const delay = () => (watching ? watchPace() : BOT_MOVE_MS);
  const paced = (e) => watching || (MOVES.has(e.type) && e.data && e.data.seat !== side);
  const draw = async (view, stepped) => {
    if (state.view && view.version < state.view.version) return;
    const again = state.view && view.version === state.view.version;
    await show(view);
    if (!again) drawn.push({ version: view.version, at: performance.now() });
    if (stepped) holdUntil = performance.now() + delay();
  };
  const shown = state.view;
  if (!shown || latest.version <= shown.version || !delay()) { await draw(latest, false); return; }
  let events = [];
  try {
    const span = Math.min(latest.version - shown.version, 1000);
    events = (await api.listEvents(gameId, state.token, shown.version, span)).data.events;
  } catch { events = []; }
  for (const e of events) {
    if (e.version >= latest.version || !delay()) break;
    if (!paced(e)) continue;
    await hold(delay);
    let view = null;
    try { view = (await api.stateAt(gameId, state.token, e.version)).data; } catch { break; }
    await draw(view, true);
  }
  await hold(delay);
  const last = events.at(-1);
  await draw(latest, !!(last && last.version === latest.version && paced(last)));
}

/** Whether the spectator's page shows events later than they happened, and by how many. */
function behindText(latestVersion) {
  const shownVersion = state.view ? state.view.version : 0;
  const behind = Math.max(latestVersion - shownVersion, 0);
  if (!watchPace()) return "";
  return behind ? `${behind} event${behind === 1 ? "" : "s"} behind live` : "up to date";
}

/**
 * The spectator's pace control, beside the turn line (only on /watch): live or a delay per event;
 * ``changed()`` is called after a change (a page behind then catches up, or slows down).
 */
export function renderPaceControl(latestVersion, changed) {
  if (state.mode !== "watch") return;
  let row = document.getElementById("watch-pace-row");
  if (!row) {
    const select = el("select", { id: "watch-pace", onchange: (e) => {
      try { localStorage.setItem(PACE_KEY, e.target.value); } catch { /* kept for this page only */ }
      document.body.dataset.watchPace = e.target.value;
      changed();
    } });
    for (const ms of WATCH_PACES) {
      select.append(el("option", { value: String(ms), text: ms ? `${ms / 1000} s per event` : "live" }));
    }
    row = el("p", { id: "watch-pace-row", class: "watch-pace" },
      el("label", { for: "watch-pace", text: "Pace" }), " ", select, " ",
      el("span", { id: "watch-behind", class: "muted", "aria-live": "off" }));
    $("#turn").before(row);
  }
  const select = document.getElementById("watch-pace");
  const pace = String(watchPace());
  if (select.value !== pace && document.activeElement !== select) select.value = pace;
  document.body.dataset.watchPace = pace;
  const behind = document.getElementById("watch-behind");
  const text = behindText(latestVersion);
  if (behind.textContent !== text) behind.textContent = text;
}
