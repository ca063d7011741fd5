// The replay's analysis panel: asks the server for the game's decision analysis (POST
// /games/{id}/analysis), shows its progress while a worker runs it, then marks each move it rated in
// the list of moves (data-mark: the move's class; .move-mark: its sign) and sums up each seat.
import * as api from "./api.js";
import { el } from "./ui.js";

/** The sign of each class, and their order from the best to the worst. */
const SIGNS = { best: "✓", good: "·", inaccuracy: "?!", mistake: "?", blunder: "??" };
const ORDER = Object.keys(SIGNS);
/** How often the panel asks for the progress of an analysis under way (ms). */
const POLL_MS = 1000;

/** Mark each entry of ``list`` whose event the analysis rated: its worst class (a knock's arrangement is rated too). */
export function markMoves(list, decisions) {
  const worst = new Map();
  for (const d of decisions) {
    const had = worst.get(d.version);
    if (!had || ORDER.indexOf(d.class) > ORDER.indexOf(had.class)) worst.set(d.version, d);
  }
  for (const [version, d] of worst) {
    const entry = list.querySelector(`li.move[data-version="${version}"]`);
    if (!entry) continue;
    entry.dataset.mark = d.class;
    const mark = entry.querySelector(".move-mark");
    mark.textContent = SIGNS[d.class] || "";
    const what = d.loss > 0 ? `${d.class}: gave away ${d.loss.toFixed(2)} points` : d.class;
    mark.title = what;
    entry.querySelector("button.move-entry").setAttribute("aria-description", what);
  }
}

/** One line per seat that decided something: its accuracy and the points it gave away. */
function summary(result) {
  const rows = result.seats.filter((s) => s.decisions).map((s) => el("li", { "data-seat": String(s.seat),
    text: `${s.name || `Seat ${s.seat + 1}`}: ${s.decisions} decisions, ${s.points_given_away.toFixed(1)} points given away` +
      (s.accuracy === null || s.accuracy === undefined ? "" : `, accuracy ${s.accuracy.toFixed(1)}`) +
      ` (${s.inaccuracies} inaccuracies, ${s.mistakes} mistakes, ${s.blunders} blunders)` }));
  return [el("ul", { class: "analysis-seats" }, ...rows),
    el("p", { class: "muted", text: `Marks in the list of moves: ${ORDER.map((c) => `${SIGNS[c]} ${c}`).join(", ")}.` })];
}

/** Show ``answer`` (an analysis) in ``out``; true once there is nothing more to wait for. */
function showAnswer(out, list, answer) {
  const { status, progress } = answer;
  out.dataset.status = status;
  if (status === "done") {
    markMoves(list, answer.result.decisions);
    out.replaceChildren(el("p", { text: `Every decision rated by the expected points it gave away.` }), ...summary(answer.result));
    return true;
  }
  if (status === "failed") {
    out.replaceChildren(el("p", { class: "error", text: `The analysis failed: ${answer.error || "no reason given"}.` }));
    return true;
  }
  const bar = el("progress", { max: String(progress.total || 1), value: String(progress.done), "aria-label": "Decisions analysed" });
  out.replaceChildren(el("p", { text: status === "queued" ? "Waiting for an analysis worker…"
    : `Analysing: ${progress.done} of ${progress.total} decisions…` }), bar);
  return false;
}

const ASKED = "ginbox.analyses.v1";
/** The games whose analysis this browser asked for, latest last. */
function askedHere() {
  try { return JSON.parse(localStorage.getItem(ASKED) || "[]"); } catch { return []; }
}
function rememberAsked(gameId) {
  localStorage.setItem(ASKED, JSON.stringify([...askedHere().filter((g) => g !== gameId), gameId].slice(-200)));
}

/** Fill ``box`` with the panel: the analysis if there is one, else a button that asks for it. */
export async function renderAnalysisPanel(box, gameId, list) {
  const out = el("div", { id: "analysis-status", "aria-live": "polite" });
  const button = el("button", { type: "button", id: "request-analysis", text: "Request analysis" });
  box.replaceChildren(out);
  const follow = async (answer) => {
    while (!showAnswer(out, list, answer)) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      answer = (await api.getAnalysis(gameId)).data;
    }
  };
  // read at once only an analysis this browser asked for: any other is one click away (the request
  // answers an analysis that exists), and a read of none would put a 404 in the console
  if (askedHere().includes(gameId)) {
    try {
      await follow((await api.getAnalysis(gameId)).data);
      return;
    } catch (err) {
      if (!(err instanceof api.ApiError) || err.code !== "analysis_not_found") {
        out.replaceChildren(el("p", { class: "error", text: `The analysis cannot be read: ${err.message}` }));
        return;
      }
    }
  }
  out.replaceChildren(el("p", { class: "muted", text: "Rate every decision of this game by the expected points it gave away." }), button);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const asked = (await api.requestAnalysis(gameId)).data;
      rememberAsked(gameId);
      await follow(asked);
    } catch (err) {
      button.disabled = false;
      out.append(el("p", { class: "error", text: `The analysis could not be requested: ${err.message}` }));
    }
  });
}
