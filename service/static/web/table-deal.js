// How this game is dealt: what its creator chose of the deal (a game not randomly dealt, said under
// the notices and to an invited person), and the client seed this seat sent (the fair-deal line).
import * as api from "./api.js";
import { $, gameId, setText, state } from "./table-state.js";
import { el, isMatchBoard, notRandomText } from "./ui.js";

/** The game_created event as this viewer may read it (its roles and first dealer are public), once read. */
let created = null;

/** Read the game's first event, for what its creator chose of the deal (only for a game not randomly dealt). */
export async function loadCreated(view) {
  if (created || !view || !dealtByCreator(view)) return;
  try {
    const { data } = await api.listEvents(gameId, state.token, 0, 1);
    created = data.events.find((e) => e.type === "game_created") || null;
  } catch { created = null; }
}

/**
 * Whether a game's creator chose its deal. A match's game reports randomly_dealt false (the match
 * fixes its roles and first dealer) but its cards come from the board's seed, which the match
 * committed to before any board began: nobody chose them.
 */
export const dealtByCreator = (view) => view.randomly_dealt === false && !isMatchBoard(view);

/** What the creator of this game chose of its deal, in words (once its first event is read). */
export const notRandomNote = (view) => notRandomText(created, view.decks_given);

/** The word on a game its creator dealt, under the table's notices; nothing for a random deal. */
export function renderDeal(view) {
  let note = document.getElementById("not-random");
  if (!dealtByCreator(view)) {
    if (note) note.remove();
    return;
  }
  if (!note) {
    note = el("p", { id: "not-random", class: "notice" });
    $("#notice").after(note);
  }
  setText(note, notRandomNote(view));
}

/** Whether the fair-deal note is unfolded: the table is drawn again on every move, the choice stays. */
let fairOpen = false;

/**
 * The fair-deal note of a seat that sent a client seed, folded into an info control (its summary a
 * word, its text what depends on the seed); null for any other viewer.
 */
export function clientSeedLine(view) {
  if (view.viewer === null || !Array.isArray(view.client_seeds) || !view.client_seeds[view.viewer]) return null;
  // a hand dealt from decks the creator gave depends on no seed: only the others do
  const what = dealtByCreator(view) ? "every cut, and every hand dealt from the seeds rather than from decks the creator gave,"
    : "every cut and deal";
  return el("details", { class: "info", id: "fair-deal", open: fairOpen, ontoggle: (e) => { fairOpen = e.target.open; } },
    el("summary", {}, el("span", { "aria-hidden": "true", text: "ⓘ " }), "Fair deal"),
    el("p", { class: "muted", id: "client-seed",
      text: `Fair deal: ${what} also depends on the seed this seat sent (${view.client_seeds[view.viewer].slice(0, 8)}…), which the server could not know when it committed to its own.` }));
}
