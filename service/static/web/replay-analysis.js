// The replay's analysis panel: asks the server for the game's decision analysis (POST
// /games/{id}/analysis), shows its progress while a worker runs it, then marks each move it rated in
// the list of moves (data-mark: the move's class; .move-mark: its sign) and sums up each seat.
import * as api from "./api.js";
import { cardsInText } from "./cards.js";
import { expectedPointsGraph } from "./replay-graph.js";
import { el } from "./ui.js";

/** The sign of each class, and their order from the best to the worst. */
const SIGNS = { best: "✓", good: "·", inaccuracy: "?!", mistake: "?", blunder: "??" };
const ORDER = Object.keys(SIGNS);
/** How often the panel asks for the progress of an analysis under way (ms). */
const POLL_MS = 1000;

/** A move of the analysis ({type, card, discard, melds}) in words, its cards as the page shows them. */
export function moveWords(move) {
  if (!move) return "";
  switch (move.type) {
    case "take_upcard": return "take the upcard";
    case "pass_upcard": return "pass the upcard";
    case "draw_stock": return "draw from the stock";
    case "draw_discard": return "take the discard";
    case "discard": return cardsInText(`discard ${move.card}`);
    case "knock": {
      const how = move.discard ? cardsInText(`knock, discarding ${move.discard}`) : "go big gin";
      return move.melds ? `${how} (${move.melds.map((m) => cardsInText(m.join(" "))).join(" · ")})` : how;
    }
    default: return move.type;
  }
}

/** What a rated decision cost, in a sentence: its class, the points at stake, and the best move. */
export function decisionNote(d) {
  const cls = d.class[0].toUpperCase() + d.class.slice(1);
  if (!(d.loss > 0)) return `${cls}: ${moveWords(d.chosen)}, ${d.ev_chosen.toFixed(1)} points expected.`;
  return `${cls}: ${moveWords(d.chosen)} gave away ${d.loss.toFixed(1)} points. Best: ${moveWords(d.best)}, ` +
    `${d.ev_best.toFixed(1)} points expected against ${d.ev_chosen.toFixed(1)}.`;
}

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
    const what = decisionNote(d);
    mark.title = what;
    entry.querySelector("button.move-entry").setAttribute("aria-description", what);
    // shown under the entry while it is hovered or focused (style.css), for eyes as for keyboards
    entry.querySelector(".move-note")?.remove();
    entry.append(el("p", { class: "move-note", text: what }));
  }
}

/** The move of event ``version`` shown, as its entry in ``list`` would show it. */
function goTo(list, version) {
  list.querySelector(`li.move[data-version="${version}"] button.move-entry`)?.click();
}

const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** One line per seat that decided something: its accuracy and the points it gave away. */
function summary(result) {
  const rows = result.seats.filter((s) => s.decisions).map((s) => el("li", { "data-seat": String(s.seat),
    text: `${s.name || `Seat ${s.seat + 1}`}: ${s.decisions} decisions, ${s.points_given_away.toFixed(1)} points given away` +
      (s.accuracy === null || s.accuracy === undefined ? "" : `, accuracy ${s.accuracy.toFixed(1)}`) +
      ` (${count(s.inaccuracies, "inaccuracy", "inaccuracies")}, ${count(s.mistakes, "mistake")}, ${count(s.blunders, "blunder")})` }));
  return [el("ul", { class: "analysis-seats" }, ...rows),
    el("p", { class: "muted", text: `Marks in the list of moves: ${ORDER.map((c) => `${SIGNS[c]} ${c}`).join(", ")}.` })];
}

/** Show ``answer`` (an analysis) in ``out``; true once there is nothing more to wait for. */
function showAnswer(out, list, answer) {
  const { status, progress } = answer;
  out.dataset.status = status;
  if (status === "done") {
    markMoves(list, answer.result.decisions);
    const names = (seat) => answer.result.game.players[seat] || `Seat ${seat + 1}`;
    const graph = expectedPointsGraph(answer.result, names, (version) => goTo(list, version));
    out.replaceChildren(el("p", { text: `Every decision rated by the expected points it gave away.` }), ...summary(answer.result),
      ...(graph ? [graph] : []));
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
  // the progress comes live from the analysis's stream; the result is read once it is done (and
  // read again every POLL_MS should the stream be cut)
  const follow = async (answer) => {
    if (showAnswer(out, list, answer)) return;
    await new Promise((resolve) => {
      if (typeof EventSource === "undefined") { resolve(); return; }
      const source = new EventSource(`/games/${encodeURIComponent(gameId)}/analysis/stream`);
      source.addEventListener("analysis_progress", (e) => {
        const message = JSON.parse(e.data);
        if (message.status === "done" || message.status === "failed") {
          source.close();
          resolve();
        } else {
          showAnswer(out, list, message);
        }
      });
      source.onerror = () => { source.close(); resolve(); };
    });
    answer = (await api.getAnalysis(gameId)).data;
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
