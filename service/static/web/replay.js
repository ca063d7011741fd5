// The replay (/replay/<id>): a finished game stepped event by event, every hand face up.
// The events come from GET /games/{id}/events (shown in full once the game is over); the hands at
// each step are followed here from the deal, and the public table at each step is the server's
// own (GET /games/{id}/state?version=), so the page adds nothing the server did not say.
import * as api from "./api.js";
import { cardElement, cardsInText, label, sortCards } from "./cards.js";
import { matchOf, seatsOf } from "./seats.js";
import { el, isMatchBoard, playerName, resultSection, scoreSheet } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
const gameId = location.pathname.split("/")[2];
const state = { view: null, steps: [], index: 0, states: new Map() };
/** A seat token this browser holds in the game, if any: a match's game reads only for its seats till the match is over. */
const token = (() => {
  const seats = seatsOf(gameId) || {};
  const first = Object.keys(seats).sort()[0];
  return first === undefined ? null : seats[first].token;
})();

/** The hands after every event, followed from each deal (RULES.md §1: alternate cards, non-dealer first). */
export function followHands(events) {
  let hands = {};
  let upcard = null;
  const steps = [];
  const remove = (seat, card) => { hands[seat] = (hands[seat] || []).filter((c) => c !== card); };
  for (const ev of events) {
    const d = ev.data || {};
    if (ev.type === "hand_dealt" && Array.isArray(d.deck)) {
      hands = { [d.non_dealer]: [], [d.dealer]: [] };
      for (let i = 0; i < 20; i += 1) hands[i % 2 === 0 ? d.non_dealer : d.dealer].push(d.deck[i]);
      upcard = d.deck[20];
    } else if (ev.type === "upcard_taken" || ev.type === "card_drawn") {
      hands[d.seat] = [...(hands[d.seat] || []), d.card];
    } else if (ev.type === "card_discarded") {
      remove(d.seat, d.card);
    } else if (ev.type === "knocked" && d.discard) {
      remove(d.seat, d.discard);
    }
    steps.push({ event: ev, hands: Object.fromEntries(Object.entries(hands).map(([s, h]) => [s, [...h]])), upcard });
  }
  return steps;
}

/** "a", "a and b", "a, b and c". */
const andList = (items) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : items.join(""));

/**
 * The steps with the game's advice in its place: each piece given at version v (the game as it
 * stood after event v) goes with that event's step, in the order given. Advice is no event of the
 * game's log (it has a log of its own, public once the game is over), so it adds no step: the
 * finished game's view lists it, each piece with the version it was given at.
 */
export function withAdvice(steps, advice) {
  const sorted = [...(advice || [])].sort((x, y) => x.version - y.version || (x.seq ?? 0) - (y.seq ?? 0));
  return steps.map((step) => ({ ...step, advice: sorted.filter((a) => a.version === step.event.version) }));
}

/** A piece of advice in words: "abe advises cal, the captain: “Take the upcard”". */
function adviceText(view, a) {
  const captain = a.captain !== undefined && a.captain !== null ? `${playerName(view, a.captain)}, the captain` : "the captain";
  return `${playerName(view, a.advisor)} advises ${captain}: “${cardsInText(a.text)}”`;
}

function describe(view, ev) {
  const d = ev.data || {};
  const name = (s) => playerName(view, s);
  switch (ev.type) {
    case "game_created": return `The game is created: ${d.variant}, ${isMatchBoard(view) ? "one hand, a match board"
      : `game to ${d.options ? d.options.target_score : "?"}`}.`;
    case "client_seed_sent": return `${name(d.seat)} sends a client seed (${String(d.client_seed).slice(0, 8)}…): every cut and deal depends on it too.`;
    case "client_seeds_closed": return `The wait for client seeds ends after ${d.waited_s} s: ${andList(d.seats.map(name))} sent none, so the empty seed counts for ${d.seats.length === 1 ? "that seat" : "those seats"}.`;
    case "seat_claimed": return `${d.player && d.player.name ? d.player.name : "someone"} sits at seat ${d.seat}.`;
    case "cards_cut": return `Cut for ${d.purpose === "roles" ? "the roles" : "the first deal"}: ${d.seats.map((s, i) => `${name(s)} ${label(d.cards[i])}`).join(", ")}.`;
    case "roles_assigned": return `Roles: ${name(d.box)} is in the box, ${name(d.captain)} captain, ${name(d.advisor)} advisor.`;
    case "dealer_chosen": return `${name(d.dealer)} deals first.`;
    case "hand_dealt": return `Hand ${d.hand_no}: ${name(d.dealer)} deals; the upcard is ${d.deck ? label(d.deck[20]) : "turned"}.`;
    case "upcard_taken": return `${name(d.seat)} takes the upcard, ${label(d.card)}.`;
    case "upcard_passed": return `${name(d.seat)} passes the upcard.`;
    case "card_drawn": return `${name(d.seat)} draws ${label(d.card)} from the ${d.source === "discard" ? "discard pile" : "stock"}.`;
    case "card_discarded": return `${name(d.seat)} discards ${label(d.card)}.`;
    case "knocked": return `${name(d.seat)} ${d.kind === "gin" ? "goes gin" : d.kind === "big_gin" ? "goes big gin" : "knocks"}${d.discard ? `, discarding ${label(d.discard)}` : ""}.`;
    case "hand_scored": return `Hand ${d.hand_no} is scored: ${name(d.winner)} scores ${d.points}.`;
    case "hand_drawn": return `Hand ${d.hand_no} is drawn: nobody scores.`;
    case "turn_timed_out": return `${name(d.seat)}'s turn clock runs out: the basic bot moves for them.`;
    case "advice_given": return `${name(d.seat)} advises ${d.captain !== undefined && d.captain !== null ? `${name(d.captain)}, the captain` : "the captain"}: “${cardsInText(d.text)}”`;
    case "game_resigned": return `${name(d.seat)} resigns: ${d.winner !== undefined && d.winner !== null ? `${name(d.winner)} wins` : "the game is over"}.`;
    case "game_abandoned": return d.drawn_hands
      ? `${d.drawn_hands} hands in a row were drawn: the game of bots is abandoned, and nobody wins.`
      : "Nobody moved for too long: the game is abandoned, and nobody wins.";
    case "game_ended": return `Game over: ${name(d.winner)} wins, ${d.scores.map((s, i) => `${name(i)} ${s}`).join(", ")}.`;
    default: {
      // an event this page has no words for: a sentence all the same ("Client seed sent: Alice.")
      const what = ev.type.replaceAll("_", " ");
      return `${what[0].toUpperCase()}${what.slice(1)}${d.seat !== undefined ? `: ${name(d.seat)}` : ""}.`;
    }
  }
}

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

async function show(index) {
  const steps = state.steps;
  state.index = Math.max(0, Math.min(index, steps.length - 1));
  const step = steps[state.index];
  const ev = step.event;
  $("#slider").value = String(state.index + 1);
  $("#position").textContent = `Event ${state.index + 1} of ${steps.length}`;
  $("#event-text").textContent = describe(state.view, ev);
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
  if (at === null) return;
  if (state.steps[state.index] !== step) return; // the user stepped on meanwhile
  const board = [];
  const seats = at.players.map((_, i) => i);
  const grid = el("div", { class: "hands-grid" });
  for (const s of seats) {
    const hand = step.hands[s];
    const role = at.roles ? Object.entries(at.roles).find(([, r]) => r === s)?.[0] : null;
    const box = el("div", { class: "pile", "data-seat": String(s) },
      el("h3", { text: `${playerName(state.view, s)}${role ? ` — ${role}` : ""}${at.to_act.includes(s) ? " — to play" : ""}: score ${at.scores[s]}` }));
    if (hand && hand.length) {
      const ul = el("ul", { class: "cards", "aria-label": `${playerName(state.view, s)}'s hand` });
      for (const c of sortCards(hand)) ul.append(el("li", {}, cardElement(c)));
      box.append(ul);
    } else {
      box.append(el("p", { class: "muted", text: role === "advisor" ? "sits out this hand" : "no cards" }));
    }
    grid.append(box);
  }
  board.push(grid);
  const piles = el("div", { class: "row" },
    el("div", { class: "pile" }, el("h3", { text: "Stock" }), el("p", { text: `${at.stock_size} cards` })),
    el("div", { class: "pile" }, el("h3", { text: "Discard pile" }),
      at.discard_top ? cardElement(at.discard_top) : el("p", { class: "muted", text: "empty" })));
  board.push(piles);
  $("#board").replaceChildren(...board);
  const result = $("#result");
  if ((ev.type === "hand_scored" || ev.type === "hand_drawn") && at.last_hand) {
    result.hidden = false;
    result.replaceChildren(resultSection(at, at.last_hand));
  } else {
    result.hidden = true;
    result.replaceChildren();
  }
  $("#scores").replaceChildren(el("h2", { text: "Scores" }), scoreSheet(at));
}

// AUDIT PANEL: audit.js re-derives, in this browser, every deck and cut of the game's export
// from its revealed seed and checks the seed against the commitment published at creation.
async function loadAuditPanel() {
  const body = $("#audit-body");
  const button = el("button", { type: "button", id: "audit-run" }, "Audit this game in the browser");
  body.replaceChildren(el("p", { text: "Check that every deal came from the seed the server committed to before the game began, without trusting the server." }), button,
    " ", el("a", { class: "button", id: "export-link", href: `/games/${encodeURIComponent(gameId)}/export`, download: `${gameId}.ndjson`,
      text: "Download the game's log (NDJSON)" }));
  button.addEventListener("click", async () => {
    button.disabled = true;
    const out = el("div", { id: "audit-report", role: "status" }, el("p", { text: "Auditing…" }));
    body.append(out);
    try {
      const { auditExport } = await import("./audit.js");
      const checks = await auditExport(await api.exportGame(gameId));
      const failed = checks.filter((c) => !c.passed);
      const list = el("ul", {});
      for (const c of checks) list.append(el("li", { class: c.passed ? "" : "error", text: `${c.passed ? "✓ passed" : "✗ FAILED"}: ${c.name} — ${c.detail}` }));
      out.replaceChildren(el("p", { class: failed.length ? "error" : "", "data-ok": String(!failed.length),
        text: failed.length ? `${failed.length} of ${checks.length} checks failed.` : `All ${checks.length} checks passed.` }), list);
    } catch (err) {
      out.replaceChildren(el("p", { class: "error", text: `The audit could not run: ${err.message}` }));
    } finally {
      button.disabled = false;
    }
  });
}

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
  $("#whoami").textContent = `game ${gameId}: ${state.view.players.map((p, i) => playerName(state.view, i)).join(" v ")}`;
  if (state.view.status !== "over") {
    $("#message").replaceChildren("This game is not over yet, so its hands are still secret. ",
      el("a", { href: `/watch/${gameId}`, text: "Watch it live" }), ".");
    nothingToReplay();
    return;
  }
  const events = await api.allEvents(gameId, token);
  state.steps = withAdvice(followHands(events), state.view.advice);
  const slider = $("#slider");
  slider.max = String(state.steps.length);
  slider.addEventListener("input", () => show(Number(slider.value) - 1));
  $("#first").addEventListener("click", () => show(0));
  $("#prev").addEventListener("click", () => show(state.index - 1));
  $("#next").addEventListener("click", () => show(state.index + 1));
  $("#last").addEventListener("click", () => show(state.steps.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.target === slider || ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) return;
    const to = { ArrowRight: state.index + 1, ArrowLeft: state.index - 1, Home: 0, End: state.steps.length - 1 }[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  loadAuditPanel();
  const asked = Number(new URLSearchParams(location.hash.slice(1)).get("event"));
  await show(Number.isInteger(asked) && asked >= 1 ? asked - 1 : 0);
}

start();
