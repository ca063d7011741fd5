// The replay (/replay/<id>): a finished game stepped event by event, every hand face up.
// The events come from GET /games/{id}/events (shown in full once the game is over); the hands at
// each step are followed here from the deal, and the public table at each step is the server's
// own (GET /games/{id}/state?version=), so the page adds nothing the server did not say.
// This module holds the page's state and its controls (steps, hands, autoplay); the steps and their
// words are replay-steps.js, the felt replay-board.js, the list of moves replay-moves.js, the audit
// panel replay-audit.js.
import * as api from "./api.js";
import { renderAnalysisPanel } from "./replay-analysis.js";
import { renderAuditPanel } from "./replay-audit.js";
import { groupsAt, renderBoard, renderResult, resultAt } from "./replay-board.js";
import { markMove, renderMoveList } from "./replay-moves.js";
import { ENDINGS, adviceText, describe, followHands, handsOf, withAdvice } from "./replay-steps.js";
import { matchOf, seatsOf } from "./seats.js";
import { readSheet, wholeSheet } from "./sheet.js";
import { el, isMatchBoard, playerName, scoreSheet } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
const gameId = location.pathname.split("/")[2];
const state = {
  view: null,
  steps: [],
  hands: [], // handsOf(steps): each hand's first and scoring step
  index: 0,
  states: new Map(), // version -> the spectator's view then
  playing: false,
  run: 0, // the autoplay's run: a run paused (or started again) stops scheduling its steps
  timer: null,
};
/** A seat token this browser holds in the game, if any: a match's game reads only for its seats till the match is over. */
const token = (() => {
  const seats = seatsOf(gameId) || {};
  const first = Object.keys(seats).sort()[0];
  return first === undefined ? null : seats[first].token;
})();

/** The spectator's view at a version: at once if already fetched, else after the steps have rested. */
let pending = null;
function stateAt(version) {
  if (state.states.has(version)) return Promise.resolve(state.states.get(version));
  // a slider dragged across hundreds of events, or an arrow key held down, asks for one view (the
  // one it stops at), not one per event it passes: the fetch waits until the step rests for 150 ms
  if (pending) { clearTimeout(pending.timer); pending.resolve(null); } // a step passed over: nothing to show
  return new Promise((resolve, reject) => {
    pending = { resolve, timer: setTimeout(() => {
      pending = null;
      api.stateAt(gameId, token, version).then((r) => { state.states.set(version, r.data); resolve(r.data); }, reject);
    }, 150) };
  });
}

/** The hand a step belongs to ({no, first, start, end, dealer}), or undefined before the first deal. */
const handOf = (step) => state.hands.find((h) => h.no === step.hand);

/** Show step ``index``: its words at once, the felt once the server's table at that version is in. */
async function show(index) {
  const steps = state.steps;
  state.index = Math.max(0, Math.min(index, steps.length - 1));
  const step = steps[state.index];
  const ev = step.event;
  $("#slider").value = String(state.index + 1);
  $("#position").textContent = `Event ${state.index + 1} of ${steps.length}`;
  $("#event-text").textContent = describe(state.view, ev);
  $("#hand-jump").value = String(step.hand);
  markMove($("#move-list"), state.index);
  // the advice given while the game stood here
  const advice = $("#step-advice");
  advice.replaceChildren(...(step.advice || []).map((a) => el("li", { text: adviceText(state.view, a) })));
  advice.hidden = !advice.children.length;
  document.body.dataset.step = String(state.index + 1);
  // the place is kept in the address: a reload, or the link passed on, opens at this event
  const here = `#event=${state.index + 1}`;
  if (location.hash !== here) history.replaceState(null, "", here);
  let at;
  try {
    at = await stateAt(ev.version);
  } catch (err) {
    $("#message").textContent = `Could not load version ${ev.version}: ${err.message}`;
    return;
  }
  if (at === null || state.steps[state.index] !== step) return; // the user stepped on meanwhile
  const result = resultAt(step, state.index, handOf(step), at);
  const groups = await groupsAt(state.view, step, result);
  if (state.steps[state.index] !== step) return;
  $("#board").replaceChildren(...renderBoard(state.view, at, step, groups, result));
  // the game's last event: its end (who won, and how) beside the last hand's result, if it ended one
  const over = state.index === steps.length - 1 && ENDINGS.includes(ev.type);
  const section = $("#result");
  section.hidden = !result && !over;
  section.dataset.over = String(over);
  section.replaceChildren(...renderResult(at, result, over));
  // each step's sheet is the game's first hands (a result never changes once its hand is over)
  $("#scores").replaceChildren(el("h2", { text: "Scores" }), scoreSheet(wholeSheet(at)));
  // the step whose felt is drawn (data-step says the step chosen, drawn a moment later)
  document.body.dataset.drawn = String(state.index + 1);
}

// -- autoplay -----------------------------------------------------------------------------------

const speed = () => Number($("#speed").value) || 1;

/** Start or stop the autoplay; started on the last event, it starts again from the first. */
function setPlaying(on) {
  state.playing = on;
  state.run += 1;
  clearTimeout(state.timer);
  $("#play").replaceChildren(el("span", { "aria-hidden": "true", text: on ? "\u275a\u275a " : "\u25b6 " }), on ? "Pause" : "Play");
  document.body.dataset.playing = String(on);
  if (!on) return;
  const run = state.run;
  if (state.index >= state.steps.length - 1) show(0);
  state.timer = setTimeout(() => advance(run), 1000 / speed());
}

/** One step of the autoplay: the next event, held 1/speed seconds (a hand's end, longer, to be read). */
async function advance(run) {
  if (run !== state.run) return;
  const began = performance.now();
  await show(state.index + 1);
  if (run !== state.run) return;
  if (state.index >= state.steps.length - 1) { setPlaying(false); return; }
  const hand = handOf(state.steps[state.index]);
  const atEnd = hand && hand.end !== null && state.index >= hand.end;
  const hold = atEnd ? Math.max(3000, 3000 / speed()) : 1000 / speed();
  state.timer = setTimeout(() => advance(run), Math.max(0, hold - (performance.now() - began)));
}

// -- the controls -------------------------------------------------------------------------------

/** The step of the hand before (or the start of this one, when past it) and of the hand after. */
function handStep(direction) {
  const starts = state.hands.map((h) => h.start);
  if (direction > 0) return starts.find((s) => s > state.index) ?? state.steps.length - 1;
  return [...starts].reverse().find((s) => s < state.index) ?? 0;
}

function wireControls() {
  const slider = $("#slider");
  slider.max = String(state.steps.length);
  slider.addEventListener("input", () => show(Number(slider.value) - 1));
  $("#first").addEventListener("click", () => show(0));
  $("#prev").addEventListener("click", () => show(state.index - 1));
  $("#next").addEventListener("click", () => show(state.index + 1));
  $("#last").addEventListener("click", () => show(state.steps.length - 1));
  $("#play").addEventListener("click", () => setPlaying(!state.playing));
  // a new speed applies from the next step on
  $("#speed").addEventListener("change", () => { if (state.playing) setPlaying(true); });
  const jump = $("#hand-jump");
  const total = state.hands.length;
  const options = state.hands.map((h) => el("option", { value: String(h.no), text: `${h.no} of ${total}` }));
  if (!state.hands.length || state.hands[0].start > 0) options.unshift(el("option", { value: "0", text: "start" }));
  jump.replaceChildren(...options);
  jump.addEventListener("change", () => {
    const hand = state.hands.find((h) => String(h.no) === jump.value);
    show(hand ? hand.start : 0);
  });
  renderMoveList($("#move-list"), state.view, state.steps, state.hands, (i) => show(i));
  document.addEventListener("keydown", (e) => {
    if (e.target === slider || ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
    if (e.key === " " && !e.target.closest("button, a")) { e.preventDefault(); setPlaying(!state.playing); return; }
    const to = { ArrowRight: state.index + 1, ArrowLeft: state.index - 1, Home: 0, End: state.steps.length - 1,
      PageDown: handStep(1), PageUp: handStep(-1) }[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
}

// -- nothing to replay --------------------------------------------------------------------------

/** No replay to show (no such game, a sealed one, one still in play): only the message stays, no
 * controls over an empty table. */
function nothingToReplay() {
  for (const section of document.querySelectorAll("#main > section")) section.hidden = true;
  document.body.dataset.replay = "none";
}

/** A match's game, still sealed: say why there is nothing to replay yet, and lead back to the match when it is known. */
function sealed(matchId) {
  const why = "This game is a board of a match still being played: its hands stay secret until the whole match is over, " +
    "since its other tables are dealt the same cards. ";
  $("#message").replaceChildren(why, ...(matchId
    ? [el("a", { id: "match-link-replay", href: `/match/${encodeURIComponent(matchId)}`, text: "Back to the match" }), "."]
    : ["Come back once the match is over."]));
  nothingToReplay();
}

/** The programs a game may be imported from (POST /games/import), as a reader knows them. */
const IMPORTED_NAMES = { openspiel: "OpenSpiel" };

/** Under the title, for a game imported from another program's record: it was not dealt here. */
function showOrigin(view) {
  const from = view.imported_from;
  if (typeof from !== "string") return;
  const note = $("#origin-note");
  note.textContent = `Imported from ${IMPORTED_NAMES[from] || from}: dealt and played there, not dealt by this ` +
    "server, so no commitment covers its deals. Its moves and scores are checked by ginbox's rules.";
  note.hidden = false;
}

async function start() {
  try {
    state.view = (await api.getGame(gameId, token)).data;
  } catch (err) {
    if (err.code === "match_game_sealed") { sealed(matchOf(gameId)); return; }
    $("#message").textContent = err.code === "game_not_found" ? "There is no such game on this server."
      : err instanceof api.ApiError ? `Could not load the game: ${err.message}` : "The server cannot be reached: try again later.";
    nothingToReplay();
    return;
  }
  if (state.view.status === "over" && isMatchBoard(state.view)) {
    // a seat of a match's game reads it while the match runs, but not its hands: those wait for the match's end
    const matchId = state.view.players.find((p) => p && p.match).match;
    let over = false;
    try { over = (await api.getMatch(matchId)).data.status === "over"; } catch { over = false; }
    if (!over) { sealed(matchId); return; }
  }
  // (the game's id only where there is room for it: a phone's header keeps to the players)
  $("#whoami").replaceChildren(el("span", { class: "wide-only", text: `game ${gameId}: ` }),
    state.view.players.map((p, i) => playerName(state.view, i)).join(" v "));
  showOrigin(state.view);
  if (state.view.status !== "over") {
    $("#message").replaceChildren("This game is not over yet, so its hands are still secret. ",
      el("a", { href: `/watch/${gameId}`, text: "Watch it live" }), ".");
    nothingToReplay();
    return;
  }
  // the whole score sheet, read with the events (a view holds the latest hands' results only)
  const [events] = await Promise.all([api.allEvents(gameId, token), readSheet(state.view, token)]);
  state.steps = withAdvice(followHands(events), state.view.advice);
  state.hands = handsOf(state.steps);
  wireControls();
  renderAuditPanel($("#audit-body"), gameId);
  renderAnalysisPanel($("#analysis-body"), gameId, $("#move-list"));
  document.body.dataset.playing = "false";
  const asked = Number(new URLSearchParams(location.hash.slice(1)).get("event"));
  await show(Number.isInteger(asked) && asked >= 1 ? asked - 1 : 0);
}

start();
