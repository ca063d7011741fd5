// The table (/play/<id>) and the spectator's page (/watch/<id>): one state object, one render.
// Everything shown is the caller's view (GET /games/{id}); the live stream only says when to
// look again, so what a viewer sees is always exactly what the server lets that viewer see.
// This module loads the view, plays the moves, follows the stream and draws the table; each part of
// the table is a module of its own (table-turn.js, table-seats.js, table-moves.js, table-result.js,
// table-advice.js, table-clock.js, table-deal.js, table-invite.js, table-handend.js, table-boxgin.js)
// and the state is table-state.js's. Others' moves are shown at a pace (table-pace.js), each card
// moved made visible (table-motion.js).
import * as api from "./api.js";
import { sortCards } from "./cards.js";
import { matchOf, seatsOf } from "./seats.js";
import { renderAdvice, renderAdviceNotice } from "./table-advice.js";
import { noteEarlierTimeout, noteTimedOut, renderClock } from "./table-clock.js";
import { clientSeedLine, loadCreated, renderDeal } from "./table-deal.js";
import { renderHandEnd } from "./table-handend.js";
import { answerInvitation, invitation, renderInvites } from "./table-invite.js";
import { renderHand } from "./table-hand.js";
import { renderKnockPanel } from "./table-knock.js";
import { renderKnockOffer, renderResign } from "./table-moves.js";
import { renderResult, renderScores, replayOffer } from "./table-result.js";
import { readSheet, wholeSheet } from "./sheet.js";
import { renderPiles, seatBlock } from "./table-seats.js";
import { renderBoxGin } from "./table-boxgin.js";
import { showMoves, snapshot } from "./table-motion.js";
import { renderPaceControl, stepTo } from "./table-pace.js";
import { $, UNREACHABLE, gameId, legal, own, setText, state } from "./table-state.js";
import { phaseText, renderConnection, renderHeader, renderRecap } from "./table-turn.js";
import { el } from "./ui.js";

/** The seat this browser plays here: the one the address names (#seat=1), else its first in this game. */
function pickSeat() {
  const seats = seatsOf(gameId) || {};
  const wanted = new URLSearchParams(location.hash.slice(1)).get("seat");
  if (wanted !== null && seats[wanted]) return [Number(wanted), seats[wanted].token];
  const first = Object.keys(seats).sort()[0];
  return first === undefined ? [null, null] : [Number(first), seats[first].token];
}

// ---------------------------------------------------------------- loading

let refreshing = null;
let again = false;
let retrying = null; // the timer of the next look while the server does not answer

/** Fetch the view again (coalescing bursts of events into one request at a time). */
async function refresh() {
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    do {
      again = false;
      try {
        const { data } = await api.getGame(gameId, state.token);
        state.latest = Math.max(state.latest || 0, data.version);
        state.loadError = "";
        state.loadErrorCode = null;
        if (!state.view || data.version >= state.view.version) {
          // another's moves one at a time, each shown for its time (table-pace.js)
          await stepTo(data, state.view ? own(state.view) : null, async (view) => {
            state.view = view;
            await Promise.all([analyseHand(), loadRecent(), readSheet(view, state.token)]);
            render();
          });
        }
      } catch (err) {
        state.loadErrorCode = err instanceof api.ApiError ? err.code : null;
        state.loadError = !(err instanceof api.ApiError) ? UNREACHABLE
          : err.code === "game_not_found" ? "There is no such game on this server." : `Could not load the game: ${err.message}`;
        // no answer at all: look again in a while (the stream, when it is back, asks too)
        if (!(err instanceof api.ApiError) && state.view && !retrying) {
          retrying = setTimeout(() => { retrying = null; refresh(); }, 2000);
        }
      }
      render();
    } while (again);
    refreshing = null;
  })();
  return refreshing;
}

/** Ask /analysis/melds for this side's hand, once per hand held. */
async function analyseHand() {
  const hand = state.view && state.view.hand;
  if (!hand || !hand.length) return;
  const key = sortCards(hand).join(",");
  if (state.analysis.has(key)) return;
  try {
    const { data } = await api.analyseMelds(hand);
    state.analysis.set(key, data);
  } catch { /* the hand is shown without its melds */ }
}

/** How many of the latest events are read to say what the others did since this side's last move. */
const RECENT_EVENTS = 40;

/** The latest events as this viewer may see them, once per version of the game. */
async function loadRecent() {
  const view = state.view;
  if (!view || view.status !== "playing" || (state.recent && state.recent.version === view.version)) return;
  try {
    const after = Math.max(view.version - RECENT_EVENTS, 0);
    // a view shown at a pace may be behind the game: nothing after it is read
    const { data } = await api.listEvents(gameId, state.token, after, Math.max(view.version - after, 1));
    state.recent = { version: view.version, after, events: data.events.filter((e) => e.version <= view.version) };
  } catch { /* the turn line stands alone */ }
}

/** The time of the game's latest event (the turn clock runs from it), or null. */
async function lastEventTime(view) {
  try {
    const { data } = await api.listEvents(gameId, state.token, Math.max(view.version - 1, 0), 1);
    const last = data.events[data.events.length - 1];
    return last ? last.ts : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- moves

/** Play ``move`` at the version shown; a refusal is said, and the view fetched again. */
async function play(move) {
  if (state.busy || !state.view) return;
  state.busy = true;
  state.message = "";
  state.notice = "";
  render();
  try {
    const { data } = await api.playMove(gameId, state.token, move, state.view.version);
    // the stream may already have brought a later view (a bot answers fast): never go back
    if (data.version >= state.view.version) state.view = data;
    state.knock = null;
    state.movedInHand = state.view.hand_no;
    await Promise.all([analyseHand(), loadRecent(), readSheet(state.view, state.token)]);
  } catch (err) {
    if (err instanceof api.ApiError && (err.status === 409 || err.status === 412)) {
      state.message = "The game moved on before your move arrived; here is where it stands now.";
    } else if (!(err instanceof api.ApiError)) {
      // no answer at all: the move was not played; the loading line below says the server is away
      state.message = "";
    } else {
      state.message = `Move refused: ${err.message}${err.code ? ` [${err.code}]` : ""}`;
    }
    await refresh();
  } finally {
    state.busy = false;
    render();
  }
}

/** What the parts' controls may do: play a move, or draw the table again. */
const act = { play, redraw: render };

/**
 * A seat that has sent no client seed while the game has not started sends one of this browser's
 * making (a fairness extension: it is mixed into every cut and deal with the server's committed
 * seed). Too late, or a server that does not know the move: nothing is lost, the deal is the server's.
 */
async function contributeClientSeed() {
  const view = state.view;
  if (!view || state.mode !== "play" || view.viewer === null || view.status !== "waiting") return;
  if (!Array.isArray(view.client_seeds) || view.client_seeds[view.viewer] !== null) return;
  try {
    const { data } = await api.playMove(gameId, state.token, { type: "client_seed", client_seed: api.randomKey() }, view.version);
    if (data.version >= state.view.version) state.view = data;
    // the seed may have been the last thing the deal waited for: the answer then holds the hand
    await analyseHand();
  } catch { /* the game moved on (it started, or another seed came first): refresh shows it */ }
  render();
}

/**
 * The felt, in fixed areas so that nothing moves when a control comes or goes: the other seats, the
 * piles, this side's hand, the row of the moves beyond a draw or a discard (kept whether empty or
 * not while this side holds a hand), then what may wait below (the replay, the fair deal, resigning).
 */
function renderBoard(view) {
  const board = $("#board");
  const parts = [];
  const others = view.players.map((_, i) => i).filter((i) => i !== view.hand_owner);
  const opp = el("div", { class: "row seats", id: "seats" });
  for (const s of others) opp.append(seatBlock(view, s));
  parts.push(opp, renderPiles(view, act));
  const hand = view.hand ? renderHand(view, act) : null;
  if (hand) parts.push(hand);
  const knockOffer = renderKnockOffer(view, act);
  const actions = el("div", { id: "actions", class: "actions" });
  if (knockOffer) actions.append(knockOffer);
  if (knockOffer || (view.hand && view.status === "playing" && state.mode === "play")) parts.push(actions);
  // the hand's tools (Sort, four colours, the keys) under the moves, so that Knock stays by the cards
  const tools = hand && hand.querySelector(".hand-tools");
  if (tools) parts.push(tools);
  if (state.knock && legal("knock").length) parts.push(renderKnockPanel(view, act));
  else state.knock = null;
  if (view.status === "over") parts.push(replayOffer(view, act));
  const extras = el("div", { class: "row extras", id: "extras" });
  const seedLine = clientSeedLine(view);
  if (seedLine) extras.append(seedLine);
  const invites = renderInvites(view);
  if (invites) parts.unshift(invites);
  const resign = renderResign(view, act);
  if (resign) extras.append(resign);
  if (extras.children.length) parts.push(extras);
  board.replaceChildren(...parts);
}

/** Draw every part of the table from the state. */
function render() {
  setText($("#message"), [state.loadError, state.message].filter(Boolean).join(" "));
  setText($("#notice"), state.notice);
  renderConnection();
  const view = state.view;
  if (!view) return;
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key || document.activeElement.id : null;
  renderHeader(view);
  renderDeal(view);
  renderPaceControl(Math.max(state.latest || 0, view.version), () => refresh());
  setText($("#turn"), phaseText(view));
  renderBoxGin(view);
  renderRecap(view, act);
  renderClock(view);
  const before = snapshot();
  renderBoard(view);
  showMoves(view, before);
  renderResult(view);
  renderAdvice(view, act);
  renderAdviceNotice(view);
  // the score sheet and the hand-end panel read every hand's result, the view only the latest (sheet.js)
  const sheet = wholeSheet(view);
  renderScores(sheet);
  document.body.dataset.version = String(view.version);
  if (view.legal_moves.length && !performance.getEntriesByName("ginbox-playable").length) {
    performance.mark("ginbox-playable"); // the first moment a move can be played (tests/bench/bench_pages.py)
  }
  document.body.dataset.phase = view.phase;
  if (focused) {
    const again = document.querySelector(`[data-key="${CSS.escape(focused)}"]`) || document.getElementById(focused);
    if (again && !again.disabled) again.focus();
  }
  // when the focus is nowhere (the control just used went away) and this player has something to
  // do, put it on that (the card just drawn, when it is time to discard), so that a keyboard user
  // need not find their place again
  if (view.legal_moves.length && (!document.activeElement || document.activeElement === document.body)) {
    const first = document.querySelector("#board button.discard.drawn:not(:disabled)")
      || document.querySelector("#board button.move:not(:disabled), #board button.discard:not(:disabled)");
    if (first) first.focus();
  }
  // last: a hand that just ended takes the focus to its panel, whatever the table focused above
  renderHandEnd(sheet, act);
}

// ---------------------------------------------------------------- start and follow

/** The stream's states so far ("live", "reconnecting", "ended"), for whoever wants the history. */
const connectionStates = [];
globalThis.ginboxConnectionStates = connectionStates;

/** A game of a duplicate match this browser plays: a way back to the match page, beside the lobby's. */
function linkToMatch() {
  const matchId = matchOf(gameId);
  const lobby = document.querySelector("header.top a[href='/']");
  if (!matchId || !lobby) return;
  lobby.before(el("a", { href: `/match/${encodeURIComponent(matchId)}`, id: "match-link", text: "Match" }), " ");
}

/** Take an invitation's seat if there is one, load the view, then follow the game's stream. */
async function start() {
  linkToMatch();
  const invite = invitation();
  if (state.mode === "play" && invite && !(seatsOf(gameId) || {})[invite.seat]) {
    if (await answerInvitation(invite)) return;
  }
  if (state.mode === "play") {
    [state.seat, state.token] = pickSeat();
    if (state.token === null) {
      state.message = "This browser holds no seat in this game: you are watching it as a spectator. " +
        "Join from the lobby, or open the link you were invited with.";
      state.mode = "watch";
    }
  }
  await refresh();
  // the server not answering at all: try again now and then, as said, until it does
  while (!state.view && state.loadError === UNREACHABLE) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await refresh();
  }
  if (!state.view) {
    // nothing to show and nothing to follow: a final state, not an endless "connecting"; and no
    // word of watching a game that is not there
    state.message = "";
    render();
    state.connection = "failed";
    renderConnection();
    $("#board").hidden = true;
    $("#scores").hidden = true;
    document.title = `ginbox — ${$("#connection").textContent}`;
    return;
  }
  await loadCreated(state.view);
  await contributeClientSeed();
  await noteEarlierTimeout(state.view);
  state.turnStartedAt = await lastEventTime(state.view);
  render();
  setInterval(() => { if (state.view) renderClock(state.view); }, 1000);
  const stream = api.followStream(gameId, state.token, {
    lastEventId: state.view.version,
    isOver: () => state.view && state.view.status === "over",
    onState: (s) => {
      connectionStates.push(s);
      const wasLost = state.connection === "reconnecting";
      state.connection = s;
      renderConnection();
      if (s === "live" && wasLost) refresh(); // catch up whatever the stream may not resend
    },
    onEvent: (msg) => {
      if (msg.id !== null && msg.data && typeof msg.data === "object" && msg.data.ts) state.turnStartedAt = msg.data.ts;
      if (msg.event === "turn_timed_out" && state.view && state.view.viewer !== null && msg.data && msg.data.data
        && msg.data.data.seat === state.view.viewer) noteTimedOut(Number(msg.id), state.view.viewer, act);
      if (msg.id !== null && Number(msg.id) > (state.latest || 0)) state.latest = Number(msg.id);
      if (msg.event === "advice_given" || !state.view || Number(msg.id) > state.view.version) refresh();
    },
  });
  globalThis.ginboxStream = stream;
}

start();
