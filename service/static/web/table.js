// The table (/play/<id>) and the spectator's page (/watch/<id>): one state object, one render.
// Everything shown is the caller's view (GET /games/{id}); the live stream only says when to
// look again, so what a viewer sees is always exactly what the server lets that viewer see.
import * as api from "./api.js";
import {
  backElement, cardElement, cardsInText, deadwood, isMeld, isRun, isSet, label, short, sortCards, sortMeld, value,
} from "./cards.js";
import { inviteLink, invitesOf, matchOf, saveSeat, seatsOf } from "./seats.js";
import { cardsText, defaultName, el, isMatchBoard, notRandomText, playerName, resultSection, scoreSheet } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
/** Set a text only when it changes: a live region re-announces whatever is written into it. */
const setText = (node, text) => { if (node.textContent !== text) node.textContent = text; };
const [, mode, gameId] = location.pathname.split("/");

const state = {
  gameId,
  mode, // "play" or "watch"
  seat: null,
  token: null,
  view: null,
  analysis: new Map(), // sorted hand -> /analysis/melds answer
  knock: null, // {discard, assign: {card: meld index or -1}} while the knock panel is open
  knockChoice: null, // the discard chosen in the Knock control, kept while the table redraws
  connection: "connecting",
  turnStartedAt: null, // ms, the time of the latest event (the turn clock runs from it)
  busy: false,
  confirmResign: false,
  pileOpen: false,
  message: "", // why the last move or advice was refused
  notice: "", // what the turn clock played for this seat, until its next move
  loadError: "", // why the view could not be fetched
  loadErrorCode: null, // the problem code of that refusal, when the server gave one
  matchOver: null, // for a finished game of a match: whether the match is over too (its games are sealed till then)
  recent: null, // the latest events as this viewer may see them ({version, events}): what the others just did
  movedInHand: null, // the hand this page last played a move in (the last hand's outcome then goes)
  dismissedHand: null, // the hand whose outcome the person dismissed from beside the turn line
};

function pickSeat() {
  const seats = seatsOf(gameId) || {};
  const wanted = new URLSearchParams(location.hash.slice(1)).get("seat");
  if (wanted !== null && seats[wanted]) return [Number(wanted), seats[wanted].token];
  const first = Object.keys(seats).sort()[0];
  return first === undefined ? [null, null] : [Number(first), seats[first].token];
}

// ---------------------------------------------------------------- loading

/** What the table says while no answer comes back at all (the server down, the network gone). */
const UNREACHABLE = "The server cannot be reached; retrying…";

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
        if (!state.view || data.version >= state.view.version) state.view = data;
        state.loadError = "";
        state.loadErrorCode = null;
        await Promise.all([analyseHand(), loadRecent()]);
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

function analysisOf(cards) {
  return state.analysis.get(sortCards(cards).join(","));
}

/** How many of the latest events are read to say what the others did since this side's last move. */
const RECENT_EVENTS = 40;

/** The latest events as this viewer may see them, once per version of the game. */
async function loadRecent() {
  const view = state.view;
  if (!view || view.status !== "playing" || (state.recent && state.recent.version === view.version)) return;
  try {
    const after = Math.max(view.version - RECENT_EVENTS, 0);
    const { data } = await api.listEvents(gameId, state.token, after, RECENT_EVENTS);
    state.recent = { version: view.version, after, events: data.events };
  } catch { /* the turn line stands alone */ }
}

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
    await Promise.all([analyseHand(), loadRecent()]);
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

const legal = (type) => (state.view ? state.view.legal_moves.filter((m) => m.type === type) : []);

async function openKnock(discard) {
  const hand = state.view.hand;
  const rest = discard ? hand.filter((c) => c !== discard) : [...hand];
  let melds = [];
  try {
    const { data } = await api.analyseMelds(rest);
    melds = data.melds;
  } catch { melds = []; }
  const assign = {};
  for (const c of rest) assign[c] = -1;
  melds.forEach((m, i) => m.forEach((c) => { assign[c] = i; }));
  state.knock = { discard, assign };
  render();
  const first = document.querySelector("#knock-panel select, #knock-panel button");
  if (first) first.focus();
}

function knockGroups() {
  const groups = [[], [], []];
  const dead = [];
  for (const [card, g] of Object.entries(state.knock.assign)) (g >= 0 ? groups[g] : dead).push(card);
  return { groups, dead };
}

// ---------------------------------------------------------------- rendering

/** "a", "a and b", "a, b and c". */
const andList = (items) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : items.join(""));

/** The draw phase's prompt, from the moves allowed (after both passed the upcard, only the stock). */
function drawPrompt(view) {
  const types = new Set(view.legal_moves.map((m) => m.type));
  const stock = types.has("draw_stock");
  const discard = types.has("draw_discard");
  if (stock && discard) return "draw from the stock or take the discard";
  if (stock) return "draw from the stock";
  if (discard) return "take the discard";
  return "draw"; // another's turn: which piles they may draw from is theirs to see
}

function phaseText(view) {
  const names = view.to_act.map((s) => (s === view.viewer ? "you" : playerName(view, s)));
  if (view.status === "waiting") {
    const open = view.players.map((p, i) => (p ? null : i)).filter((i) => i !== null);
    if (open.length) return `Waiting for players: seat${open.length > 1 ? "s" : ""} ${open.join(", ")} open.`;
    // every seat is taken: the first deal waits for the client seeds of the seats named
    const awaited = (view.awaiting_client_seeds || []).map((s) => (s === view.viewer ? "you" : playerName(view, s)));
    if (awaited.length) return `Waiting for ${andList(awaited)} to shuffle in (fair deal)…`;
    return "Waiting for the deal…";
  }
  if (view.status === "over") {
    const scores = view.scores.map((s, i) => `${playerName(view, i)} ${s}`).join(", ");
    const end = view.end || { reason: "target_score" };
    if (end.reason === "abandoned" && end.drawn_hands) return `Game over: abandoned after ${end.drawn_hands} drawn hands in a row; nobody wins (${scores}).`;
    if (end.reason === "abandoned") return `Game over: abandoned after ${end.idle_s} s without a move; nobody wins (${scores}).`;
    const why = end.reason === "resigned" ? `${playerName(view, end.resigned)} resigned; ` : "";
    return `Game over: ${why}${playerName(view, view.winner)} wins, ${scores}.`;
  }
  const yours = view.viewer !== null && view.to_act.includes(view.viewer);
  const who = yours ? "Your turn" : `${names.join(" and ")} to play`;
  const what = { upcard: "take or pass the upcard", draw: drawPrompt(view),
    discard: yours && view.legal_moves.some((m) => m.type === "knock") ? "discard (or knock)" : "discard",
    hand_over: "the hand is over" }[view.phase] || view.phase;
  return `Hand ${view.hand_no}. ${who}: ${what}.`;
}

/** The seat whose moves are this viewer's side: their own, the captain's for the advisor; null for a spectator. */
const own = (view) => view.hand_owner ?? view.viewer;

/** A move in words, as another player sees it ("drew from the stock", "discarded 7♦"), or null for any other event. */
function moveText(e) {
  const d = e.data || {};
  switch (e.type) {
    case "upcard_passed": return "passed the upcard";
    case "upcard_taken": return `took the upcard${d.card ? `, ${short(d.card)}` : ""}`;
    case "card_drawn": return d.source === "discard" ? `took ${d.card ? short(d.card) : "the discard"} from the discard pile`
      : `drew ${d.card ? `${short(d.card)} ` : ""}from the stock`;
    case "card_discarded": return `discarded ${short(d.card)}`;
    default: return null;
  }
}

/**
 * What happened since this side last moved, from the latest events: whether this side has moved in
 * the hand being played, and the others' moves since, in words, run by run ("bob (basic bot)
 * passed the upcard, drew from the stock and discarded 7♦"). A spectator is told the last move.
 */
function sinceOwnMove(view) {
  const recent = state.recent;
  if (!recent || view.status !== "playing") return { moved: false, moves: [] };
  const side = own(view);
  const events = recent.events;
  let start = events.findLastIndex((e) => e.type === "hand_dealt");
  // a hand dealt before the events read: its first moves are long past
  const dealtBefore = start < 0 && recent.after > 0;
  let moved = dealtBefore;
  for (let i = start + 1; i < events.length; i += 1) {
    if (moveText(events[i]) && side !== null && events[i].data.seat === side) { moved = true; start = i; }
  }
  const moves = events.slice(start + 1).filter((e) => moveText(e) && e.data.seat !== side);
  return { moved, moves: side === null ? moves.slice(-1) : moves };
}

/** The others' moves, one sentence per run of one player's moves. */
function movesInWords(view, moves) {
  const runs = [];
  for (const e of moves) {
    if (runs.length && runs.at(-1).seat === e.data.seat) runs.at(-1).texts.push(moveText(e));
    else runs.push({ seat: e.data.seat, texts: [moveText(e)] });
  }
  return runs.map((r) => `${playerName(view, r.seat)} ${andList(r.texts)}.`).join(" ");
}

/**
 * Beside the turn line: how the last hand ended (until this side's first move of the next hand, or
 * dismissed), who deals this hand, and what the others did since this side's last move.
 */
function renderRecap(view) {
  const box = $("#recap");
  if (view.status !== "playing") { box.replaceChildren(); box.hidden = true; return; }
  const { moved, moves } = sinceOwnMove(view);
  const r = view.last_hand;
  const parts = [];
  if (r && r.hand_no === view.hand_no - 1 && !moved && state.movedInHand !== view.hand_no && state.dismissedHand !== r.hand_no) {
    const outcome = r.outcome === "drawn" ? `Hand ${r.hand_no} was drawn: nobody scored.`
      : `Hand ${r.hand_no}: ${playerName(view, r.winner)} scored ${r.points} (${r.outcome.replace("_", " ")}).`;
    parts.push(el("span", { id: "recap-outcome" }, `${outcome} `,
      el("a", { href: "#result", text: "How it scored" }), " ",
      el("button", { type: "button", id: "recap-dismiss", class: "small", "data-key": "recap-dismiss",
        "aria-label": `Dismiss the outcome of hand ${r.hand_no}`,
        onclick: () => { state.dismissedHand = r.hand_no; render(); } }, "Dismiss")));
  }
  if (view.dealer !== null && view.dealer !== undefined) {
    const dealer = view.dealer === view.viewer ? "You deal" : `${playerName(view, view.dealer)} deals`;
    parts.push(el("span", { id: "recap-dealer", text: `${dealer} hand ${view.hand_no}.` }));
  }
  if (moves.length) parts.push(el("span", { id: "recap-moves", text: `${own(view) === null ? "Last move: " : ""}${movesInWords(view, moves)}` }));
  const same = box.children.length === parts.length
    && parts.every((p, i) => box.children[i].id === p.id && box.children[i].textContent === p.textContent);
  if (!same) box.replaceChildren(...parts.flatMap((p, i) => (i ? [" ", p] : [p])));
  box.hidden = !parts.length;
}

function renderHeader(view) {
  $("#title").textContent = `${view.variant === "three-hand" ? "Box gin" : "Gin rami"} ${state.mode === "watch" ? "(watching)" : ""}`;
  let who = "spectator";
  if (view.viewer !== null) {
    who = `you are ${playerName(view, view.viewer)}, seat ${view.viewer}` +
      (view.viewer_role !== "player" ? `, ${view.viewer_role}` : "");
  }
  $("#whoami").textContent = `game ${view.game_id}: ${who}`;
  document.title = `ginbox — ${phaseText(view)}`;
}

function renderConnection() {
  const c = $("#connection");
  const text = { connecting: "connecting…", live: "live", reconnecting: "connection lost — reconnecting…",
    ended: state.view && state.view.status === "over" ? "game over" : "not live",
    // the view could not be fetched at all: nothing will come, say why in a word
    failed: { match_game_sealed: "sealed", game_not_found: "no such game" }[state.loadErrorCode] || "not loaded",
  }[state.connection];
  // the stream may look open while the server answers nothing: the page says what it knows
  const unreachable = state.connection === "live" && state.loadError === UNREACHABLE;
  setText(c, unreachable ? "connection lost — reconnecting…" : text);
  c.classList.toggle("lost", state.connection === "reconnecting" || unreachable);
  c.dataset.state = state.connection;
}

/**
 * A seat's last hand once the game is over: from all_hands, or, for a board of a match in play
 * (whose view keeps all_hands back, the board's deal being the other tables' too), from the hand's
 * result, which shows it already, when that hand is the game's last.
 */
function finalHand(view, seat) {
  if (view.all_hands) return view.all_hands[seat];
  const r = view.last_hand;
  return r && r.hand_no === view.hand_no && Array.isArray(r.hands) ? r.hands[seat] : null;
}

function seatBlock(view, seat) {
  const p = view.players[seat];
  const role = view.roles ? Object.entries(view.roles).find(([, s]) => s === seat)?.[0] : null;
  const size = view.hand_sizes ? view.hand_sizes[seat] : 0;
  const known = view.known_cards ? view.known_cards[seat] : [];
  const acting = view.to_act.includes(seat);
  const you = seat === view.viewer ? " (you)" : "";
  const revealed = view.status === "over" ? finalHand(view, seat) : null;
  let about = `${size} card${size === 1 ? "" : "s"} in hand; score ${view.scores[seat]}`;
  if (view.status === "waiting") about = p ? "waiting for the deal" : "waiting for a player";
  else if (role === "advisor" && view.status === "playing") about = `sits out this hand, advising; score ${view.scores[seat]}`;
  else if (role === "advisor" && !size && !(revealed && revealed.length)) about = `sat out the last hand, advising; score ${view.scores[seat]}`;
  else if (revealed && revealed.length) about = `score ${view.scores[seat]}; the last hand, face up:`;
  const box = el("div", { class: "pile opponent", "data-seat": String(seat) },
    el("h3", { text: `${p ? playerName(view, seat) : `seat ${seat} (open)`}${you}${role ? ` — ${role}` : ""}${acting ? " — to play" : ""}` }),
    el("p", { class: "muted", text: about }));
  if (revealed && revealed.length) {
    // the game is over: every hand is public now
    const ul = el("ul", { class: "cards", "aria-label": `${playerName(view, seat)}'s last hand` });
    for (const c of sortCards(revealed)) ul.append(el("li", {}, cardElement(c)));
    box.append(ul);
  } else {
    const backs = el("div", { "aria-hidden": "true" });
    for (let i = 0; i < Math.min(size, 11); i += 1) backs.append(backElement());
    box.append(backs);
  }
  // once the whole hand is face up, what was known of it says nothing more
  if (known.length && !(revealed && revealed.length)) {
    box.append(el("p", { text: "Known to hold (taken from the discard pile):" }));
    const ul = el("ul", { class: "cards" });
    for (const c of known) ul.append(el("li", {}, cardElement(c)));
    box.append(ul);
  }
  return box;
}

function moveButton(text, move, key, extra = {}) {
  return el("button", { type: "button", class: "move", "data-key": key, disabled: state.busy,
    onclick: () => play(move), ...extra }, text);
}

function dropZone(node, onDrop, accepts) {
  node.classList.add("drop-target");
  node.addEventListener("dragover", (e) => {
    if (accepts(e)) { e.preventDefault(); node.classList.add("over"); }
  });
  node.addEventListener("dragleave", () => node.classList.remove("over"));
  node.addEventListener("drop", (e) => {
    e.preventDefault();
    node.classList.remove("over");
    onDrop(e.dataTransfer.getData("text/plain"));
  });
}

function renderPiles(view) {
  const piles = el("div", { class: "row piles" });
  const stockMoves = legal("draw_stock");
  const stock = el("div", { class: "pile", id: "stock" }, el("h3", { text: "Stock" }),
    el("p", { id: "stock-size", text: `${view.stock_size} card${view.stock_size === 1 ? "" : "s"}` }));
  if (view.stock_size > 0) {
    // a card back only on a stock that holds cards
    const stockBack = backElement();
    if (stockMoves.length) {
      stockBack.setAttribute("draggable", "true");
      stockBack.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "draw:stock"));
    }
    stock.append(stockBack);
  }
  if (stockMoves.length) stock.append(el("div", {}, moveButton("Draw from the stock", { type: "draw_stock" }, "draw_stock")));
  const discard = el("div", { class: "pile", id: "discard-pile" }, el("h3", { text: "Discard pile" }));
  if (view.discard_top) {
    const top = cardElement(view.discard_top, { extraClass: "top" });
    if (legal("draw_discard").length || legal("take_upcard").length) {
      top.setAttribute("draggable", "true");
      top.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "draw:discard"));
    }
    discard.append(el("p", { class: "muted", text: `top card (${view.discard_pile.length} in the pile)` }), top);
  } else {
    discard.append(el("p", { class: "muted", text: "empty" }));
  }
  for (const m of legal("take_upcard")) discard.append(el("div", {}, moveButton(`Take the upcard, ${label(view.discard_top)}`, m, "take_upcard")));
  for (const m of legal("pass_upcard")) discard.append(el("div", {}, moveButton("Pass the upcard", m, "pass_upcard")));
  for (const m of legal("draw_discard")) discard.append(el("div", {}, moveButton(`Take the discard, ${label(view.discard_top)}`, m, "draw_discard")));
  if (view.discard_pile.length > 1) {
    // the table is redrawn as the game moves: whether the pile is unfolded lives in the state
    const det = el("details", { open: state.pileOpen, ontoggle: (e) => { state.pileOpen = e.target.open; } },
      el("summary", { text: "Whole pile" }));
    const ul = el("ul", { class: "cards", "aria-label": "discard pile, bottom first" });
    for (const c of view.discard_pile) ul.append(el("li", {}, cardElement(c)));
    det.append(ul);
    discard.append(det);
  }
  if (legal("discard").length) {
    dropZone(discard, (data) => {
      if (data.startsWith("card:")) play({ type: "discard", card: data.slice(5) });
    }, () => true);
  }
  piles.append(stock, discard);
  return piles;
}

function renderHand(view) {
  const box = el("div", { id: "hand", "aria-labelledby": "hand-h" });
  const owner = view.hand_owner;
  const whose = owner === view.viewer ? "Your hand" : `${playerName(view, owner)}'s hand — captain (you advise)`;
  const hand = view.hand;
  const analysis = analysisOf(hand);
  const discards = new Set(legal("discard").map((m) => m.card));
  let dwText = "";
  if (analysis) {
    dwText = `deadwood ${analysis.deadwood}`;
    if (hand.length === 11 && analysis.deadwood_after_discard !== undefined) {
      dwText += `; ${analysis.deadwood_after_discard} after the best discard`;
    }
  }
  // the score of the side this hand plays for, beside it: the other seats show theirs in their boxes
  const target = isMatchBoard(view) ? "" : ` of ${view.options.target_score}`;
  box.append(el("h3", { id: "hand-h" }, `${whose} — `,
    el("span", { id: "hand-score", text: `score ${view.scores[owner]}${target}` }), "; ",
    el("span", { id: "deadwood", text: dwText || `${hand.length} cards` })));
  const groups = analysis ? [...analysis.melds.map((m) => ({ cards: sortMeld(m), meld: true })),
    { cards: sortCards(analysis.deadwood_cards), meld: false }] : [{ cards: sortCards(hand), meld: false }];
  const row = el("div", { class: "hand-groups" });
  groups.forEach((g, i) => {
    if (!g.cards.length) return;
    const kind = g.meld ? (isSet(g.cards) ? "set" : isRun(g.cards) ? "run" : "meld") : "";
    const tag = g.meld ? `Meld ${i + 1} (${kind})` : analysis ? `Deadwood ${deadwood(g.cards)}` : "Cards";
    const group = el("div", { class: `group ${g.meld ? "meld" : "deadwood"}`, role: "group", "aria-label": tag },
      el("span", { class: "tag", "aria-hidden": "true", text: tag }));
    const ul = el("ul", { class: "cards" });
    for (const c of g.cards) {
      let node;
      if (discards.has(c)) {
        node = cardElement(c, { tag: "button", extraClass: "discard", spoken: `Discard ${label(c)}` });
        node.dataset.key = `discard:${c}`;
        node.disabled = state.busy;
        node.setAttribute("draggable", "true");
        node.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", `card:${c}`));
        node.addEventListener("click", () => play({ type: "discard", card: c }));
      } else {
        node = cardElement(c);
      }
      if (c === view.drawn_card) node.classList.add("drawn");
      if (c === view.taken_card) node.classList.add("taken");
      ul.append(el("li", {}, node));
    }
    group.append(ul);
    row.append(group);
  });
  box.append(row);
  // the arrow keys move between the cards that may be played, as in a toolbar
  box.addEventListener("keydown", (e) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    if (!step || !e.target.matches("button.card")) return;
    const buttons = Array.from(box.querySelectorAll("button.card:not(:disabled)"));
    const next = buttons[(buttons.indexOf(e.target) + step + buttons.length) % buttons.length];
    if (next) { e.preventDefault(); next.focus(); }
  });
  if (view.drawn_card) box.append(el("p", { class: "muted", text: `Just drawn: ${label(view.drawn_card)} (ringed in blue, marked new).` }));
  if (view.taken_card) box.append(el("p", { class: "muted", text: `${label(view.taken_card)} was just taken from the discard pile: it may not be discarded this turn.` }));
  if (discards.size) box.append(el("p", { class: "muted", text: "Choose a card to discard (or drag it onto the discard pile)." }));
  if (legal("draw_stock").length || legal("draw_discard").length) {
    dropZone(box, (data) => {
      if (data === "draw:stock") play({ type: "draw_stock" });
      if (data === "draw:discard") play(legal("draw_discard")[0] || legal("take_upcard")[0]);
    }, () => true);
  }
  return box;
}

/**
 * The way to knock: one button when one discard allows it, else one Knock control with a choice of
 * discard (the deadwood cards first, the highest first: the likeliest best discards); big gin apart.
 */
function renderKnockOffer(view) {
  const knocks = legal("knock");
  if (!knocks.length) return null;
  const box = el("div", { class: "moves", id: "knock-offer" });
  const discards = knocks.filter((m) => m.discard).map((m) => m.discard);
  if (discards.length === 1) {
    box.append(el("button", { type: "button", class: "knock", "data-key": `knock:${discards[0]}`, disabled: state.busy,
      onclick: () => openKnock(discards[0]) }, `Knock, discarding ${label(discards[0])}…`));
  } else if (discards.length > 1) {
    const analysis = analysisOf(view.hand);
    const dead = new Set(analysis ? analysis.deadwood_cards : []);
    const inHand = sortCards(view.hand);
    const ordered = [...discards].sort((a, b) => Number(dead.has(b)) - Number(dead.has(a))
      || value(b) - value(a) || inHand.indexOf(a) - inHand.indexOf(b));
    if (!ordered.includes(state.knockChoice)) state.knockChoice = ordered[0];
    const select = el("select", { id: "knock-discard", "data-key": "knock-discard", disabled: state.busy,
      onchange: (e) => { state.knockChoice = e.target.value; } });
    for (const c of ordered) {
      const opt = el("option", { value: c, text: label(c) });
      if (c === state.knockChoice) opt.selected = true;
      select.append(opt);
    }
    box.append(el("span", { class: "knock-choice" }, el("label", { for: "knock-discard", text: "Knock, discarding" }), " ", select),
      el("button", { type: "button", class: "knock", "data-key": "knock", disabled: state.busy,
        onclick: () => openKnock(select.value) }, "Knock…"));
  }
  if (knocks.some((m) => !m.discard)) {
    box.append(el("button", { type: "button", class: "knock", "data-key": "knock:", disabled: state.busy,
      onclick: () => openKnock(null) }, "Big gin (no discard)…"));
  }
  return box;
}

function renderKnockPanel(view) {
  const k = state.knock;
  const { groups, dead } = knockGroups();
  const panel = el("div", { id: "knock-panel", class: "knock-panel", role: "region", "aria-labelledby": "knock-h" });
  panel.append(el("h3", { id: "knock-h", text: k.discard ? `Knock, discarding ${label(k.discard)}` : "Big gin" }));
  panel.append(el("p", { text: "These melds are the least-deadwood arrangement. Move a card to another meld or to deadwood if you want to lay them out otherwise." }));
  // shown meld by meld, then the deadwood, so that the panel reads like the table will
  // and each group in the hand's order: a meld as a meld is shown, the deadwood by suit and rank
  const order = (g) => (g < 0 ? sortCards(dead) : sortMeld(groups[g]));
  const cards = [0, 1, 2, -1].flatMap(order);
  const list = el("div", { class: "knock-cards" });
  for (const c of cards) {
    const id = `assign-${c}`;
    const select = el("select", { id, "data-card": c, onchange: (e) => { k.assign[c] = Number(e.target.value); render(); } });
    for (const [v, t] of [[0, "meld 1"], [1, "meld 2"], [2, "meld 3"], [-1, "deadwood"]]) {
      const opt = el("option", { value: String(v), text: t });
      if (k.assign[c] === v) opt.selected = true;
      select.append(opt);
    }
    list.append(el("div", { class: "knock-card" }, cardElement(c),
      el("label", { for: id, class: "sr-only", text: `Where ${label(c)} goes` }), select));
  }
  panel.append(list);
  let ok = true;
  const summary = el("ul", { id: "knock-summary" });
  groups.forEach((g, i) => {
    if (!g.length) return;
    const valid = isMeld(g);
    ok = ok && valid;
    summary.append(el("li", { class: valid ? "" : "error",
      text: `Meld ${i + 1}: ${cardsText(sortMeld(g))} — ${valid ? (isSet(g) ? "a set" : "a run") : "not a set or a run"}` }));
  });
  const dw = deadwood(dead);
  const limit = view.options.knock_limit;
  if (!k.discard && dead.length) ok = false;
  if (dw > limit) ok = false;
  summary.append(el("li", { id: "knock-deadwood", class: dw > limit ? "error" : "",
    text: `Deadwood: ${dw} (${cardsText(sortCards(dead))})${dw > limit ? ` — more than the limit of ${limit}` : ""}` }));
  panel.append(summary);
  const melds = groups.filter((g) => g.length);
  panel.append(el("div", { class: "moves" },
    el("button", { type: "button", class: "primary", id: "knock-confirm", disabled: !ok || state.busy,
      onclick: () => play({ type: "knock", discard: k.discard, melds }) }, dw === 0 ? "Go gin" : "Knock"),
    el("button", { type: "button", id: "knock-reset", onclick: () => openKnock(k.discard) }, "Least deadwood again"),
    el("button", { type: "button", id: "knock-cancel", onclick: () => { state.knock = null; render(); } }, "Cancel")));
  return panel;
}

/** Resigning (an extension, never among legal_moves): any seated player of a game in play, asked twice. */
function renderResign(view) {
  if (view.viewer === null || view.status !== "playing" || state.mode !== "play") return null;
  if (!state.confirmResign) {
    return el("p", {}, el("button", { type: "button", id: "resign", "data-key": "resign",
      onclick: () => { state.confirmResign = true; render(); document.getElementById("resign-yes").focus(); } },
    "Resign the game…"));
  }
  const dismiss = () => {
    state.confirmResign = false;
    render();
    const again = document.getElementById("resign");
    if (again) again.focus();
  };
  // Escape answers "no", as it dismisses any dialog
  return el("div", { class: "knock-panel", role: "alertdialog", "aria-labelledby": "resign-q", id: "resign-dialog",
    onkeydown: (e) => { if (e.key === "Escape") { e.preventDefault(); dismiss(); } } },
    el("p", { id: "resign-q", text: "Resign? The game ends now: the other side wins and the scores stand." }),
    el("div", { class: "moves" },
      el("button", { type: "button", id: "resign-yes", class: "primary", disabled: state.busy,
        onclick: () => { state.confirmResign = false; play({ type: "resign" }); } }, "Yes, resign"),
      el("button", { type: "button", id: "resign-no", onclick: dismiss }, "No, play on")));
}

function renderBoard(view) {
  const board = $("#board");
  const parts = [];
  const others = view.players.map((_, i) => i).filter((i) => i !== view.hand_owner);
  const opp = el("div", { class: "row" });
  for (const s of others) opp.append(seatBlock(view, s));
  parts.push(opp, renderPiles(view));
  if (view.hand) parts.push(renderHand(view));
  const knockOffer = renderKnockOffer(view);
  if (knockOffer) parts.push(knockOffer);
  if (state.knock && legal("knock").length) parts.push(renderKnockPanel(view));
  else state.knock = null;
  if (view.status === "over") parts.push(replayOffer(view));
  if (view.viewer !== null && Array.isArray(view.client_seeds) && view.client_seeds[view.viewer]) {
    // a hand dealt from decks the creator gave depends on no seed: only the others do
    const what = dealtByCreator(view) ? "every cut, and every hand dealt from the seeds rather than from decks the creator gave,"
      : "every cut and deal";
    parts.push(el("p", { class: "muted", id: "client-seed",
      text: `Fair deal: ${what} also depends on the seed this seat sent (${view.client_seeds[view.viewer].slice(0, 8)}…), which the server could not know when it committed to its own.` }));
  }
  const invites = renderInvites(view);
  if (invites) parts.unshift(invites);
  const resign = renderResign(view);
  if (resign) parts.push(resign);
  board.replaceChildren(...parts);
}

/** The id of the match a game is a board of, from its players (or null). */
const matchIdOf = (view) => (view.players.find((p) => p && p.match) || {}).match || null;

/**
 * A finished game's way to its replay. A match's game is sealed until the whole match is over (its
 * deal is the other tables' deal too): until then, the way back to the match instead.
 */
function replayOffer(view) {
  const matchId = matchIdOf(view);
  if (matchId && state.matchOver !== true) {
    if (state.matchOver === null) {
      state.matchOver = false; // asked once; the answer redraws the table
      api.getMatch(matchId).then(({ data }) => {
        if (data.status === "over") { state.matchOver = true; render(); }
      }, () => {});
    }
    return el("p", { id: "replay-later" }, "The replay opens once the whole match is over (its other tables are dealt these cards too). ",
      el("a", { class: "button", href: `/match/${encodeURIComponent(matchId)}`, text: "Back to the match" }));
  }
  return el("p", {}, el("a", { class: "button", id: "replay-link", href: `/replay/${view.game_id}`, text: "Replay this game" }),
    " ", el("a", { class: "button", id: "export-link", href: `/games/${encodeURIComponent(view.game_id)}/export`,
      download: `${view.game_id}.ndjson`, text: "Download the game's log" }));
}

function renderResult(view) {
  const section = $("#result");
  const r = view.last_hand;
  if (!r) { section.hidden = true; section.replaceChildren(); return; }
  section.hidden = false;
  section.replaceChildren(resultSection(view, r));
}

/** The advice section: built once and then updated in place, so that the live list announces only
 * new advice and the advisor's draft, caret and focus survive the game changing under them. */
function renderAdvice(view) {
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
  if (!form && mayAdvise) section.append(adviceForm());
}

/**
 * For the captain, beside the turn line: the latest advice of this hand, as it arrives (the whole
 * list is further down the page, out of view while playing).
 */
function renderAdviceNotice(view) {
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

function adviceForm() {
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
    render();
    text.focus();
  });
  return form;
}

/** A move the clock played, in words ("drew 7♥ from the stock"), or null for any other event. */
function clockMoveText(e) {
  const d = e.data || {};
  const card = (c) => (c ? short(c) : "a card");
  switch (e.type) {
    case "upcard_passed": return "passed the upcard";
    case "upcard_taken": return `took the upcard, ${card(d.card)}`;
    case "card_drawn": return d.source === "discard" ? `took ${card(d.card)} from the discard pile` : `drew ${card(d.card)} from the stock`;
    case "card_discarded": return `discarded ${card(d.card)}`;
    case "knocked": return d.kind === "knock" ? `knocked${d.discard ? `, discarding ${card(d.discard)}` : ""}` : d.kind === "big_gin" ? "went big gin" : "went gin";
    default: return null;
  }
}

/**
 * This seat's clock ran out (a turn_timed_out event at ``version``): the events after it in the
 * same append are the basic bot's move, played for the seat; say what they were.
 */
async function noteTimedOut(version, seat) {
  let moves = [];
  try {
    const { data } = await api.listEvents(gameId, state.token, version, 6);
    moves = clockMoves(data.events, seat);
  } catch { moves = []; }
  state.notice = clockNotice(moves);
  render();
}

/** The clock's moves for ``seat`` at the start of ``events`` (those right after its turn_timed_out), in words. */
function clockMoves(events, seat) {
  const moves = [];
  for (const e of events) {
    const text = e.data && e.data.seat === seat ? clockMoveText(e) : null;
    if (!text) break;
    moves.push(text);
  }
  return moves;
}

const clockNotice = (moves) => `Time ran out: the basic move was played for you${moves.length ? `: ${andList(moves)}` : ""}.`;

/**
 * Every move the clock played for ``seat`` since the player's own last move, in words, in order
 * (null when the clock played none since): each turn_timed_out of the seat is followed by the
 * moves played for it, up to the next event of anyone else's.
 */
function clockMovesSince(events, seat) {
  let moves = null;
  let clocked = false; // whether the seat's moves now are the clock's
  for (const e of events) {
    const mine = e.data && e.data.seat === seat;
    if (e.type === "turn_timed_out" && mine) {
      clocked = true;
      moves = moves || [];
    } else if (mine && clockMoveText(e)) {
      if (clocked) moves.push(clockMoveText(e));
      else moves = null; // the player's own move: what the clock did before, they have seen
    } else {
      clocked = false;
    }
  }
  return moves;
}

/**
 * On opening the table: if the clock played this seat's turns while the page was not open (a
 * turn_timed_out among the latest events, and no move of the player's own since), say what it played.
 */
async function noteEarlierTimeout(view) {
  const seat = view.viewer;
  if (seat === null || state.mode !== "play" || !view.options.turn_timeout_s || view.status === "waiting") return;
  try {
    const { data } = await api.listEvents(gameId, state.token, Math.max(view.version - 100, 0), 100);
    const moves = clockMovesSince(data.events, seat);
    if (moves) state.notice = clockNotice(moves);
  } catch { /* no notice */ }
}

function renderClock(view) {
  const limit = view.options.turn_timeout_s;
  const clock = $("#clock");
  // the clock runs for people only: a bot's turn has none
  const people = view.to_act.filter((seat) => view.players[seat] && !view.players[seat].bot);
  if (!limit || view.status !== "playing" || !state.turnStartedAt || !people.length) { clock.textContent = ""; return; }
  const left = Math.max(0, Math.ceil(limit - (Date.now() - state.turnStartedAt) / 1000));
  const whom = people.includes(view.viewer) ? "you" : andList(people.map((seat) => playerName(view, seat)));
  clock.textContent = `Turn clock: ${left} s left of ${limit} s (then the basic bot moves for ${whom}).`;
}

function render() {
  setText($("#message"), [state.loadError, state.message].filter(Boolean).join(" "));
  setText($("#notice"), state.notice);
  renderConnection();
  const view = state.view;
  if (!view) return;
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key || document.activeElement.id : null;
  renderHeader(view);
  renderDeal(view);
  setText($("#turn"), phaseText(view));
  renderRecap(view);
  renderClock(view);
  renderBoard(view);
  renderResult(view);
  renderAdvice(view);
  renderAdviceNotice(view);
  $("#scores").replaceChildren(el("h2", { id: "scores-h", text: "Scores" }), scoreSheet(view));
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
}

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

// ---------------------------------------------------------------- invitations

/**
 * An invitation in the fragment: {seat, secret}, or null. The links the lobby and this page give
 * are #seat=1&secret=...; a link written by hand as the documentation once said, #invite=...
 * with no seat, gives seat null: the seat is the open invited one the secret opens.
 */
function invitation() {
  const params = new URLSearchParams(location.hash.slice(1));
  const secret = params.get("secret") || params.get("invite");
  const seat = params.get("seat");
  if (!secret) return null;
  return { seat: seat !== null && /^[0-9]{1,3}$/.test(seat) ? Number(seat) : null, secret };
}

/** Claim the invited seat; without a seat number, try each open invited seat until one takes the secret. */
async function claimInvited(invite, typed) {
  const name = (seat) => typed || defaultName(seat);
  if (invite.seat !== null) return api.claimSeat(gameId, invite.seat, name(invite.seat), invite.secret);
  const { data: view } = await api.getGame(gameId, null);
  const open = (view.private_seats || []).filter((seat) => view.players[seat] === null);
  let refusal = new api.ApiError(403, { code: "invite_required", detail: "no open invited seat takes this invitation" });
  for (const seat of open) {
    try {
      return await api.claimSeat(gameId, seat, name(seat), invite.secret);
    } catch (err) {
      if (err.code !== "invite_required") throw err;
      refusal = err; // (a wrong secret changes nothing: the next seat is tried)
    }
  }
  throw refusal;
}

/** The game_created event as this viewer may read it (its roles and first dealer are public), once read. */
let created = null;

/** Read the game's first event, for what its creator chose of the deal (only for a game not randomly dealt). */
async function loadCreated(view) {
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
const dealtByCreator = (view) => view.randomly_dealt === false && !isMatchBoard(view);

/** The word on a game its creator dealt, under the table's notices; nothing for a random deal. */
function renderDeal(view) {
  let note = document.getElementById("not-random");
  if (!dealtByCreator(view)) {
    if (note) note.remove();
    return;
  }
  if (!note) {
    note = el("p", { id: "not-random", class: "notice" });
    $("#notice").after(note);
  }
  setText(note, notRandomText(created, view.decks_given));
}

/** What an invitation is to, from the game's public view: its rules and who already sits there. */
function invitationContext(view) {
  const rules = view.variant === "three-hand" ? "box gin (three players)" : "gin rami (two players)";
  const seated = view.players.map((p, i) => (p ? playerName(view, i) : null)).filter(Boolean);
  const target = view.options && view.options.target_score ? `, a game to ${view.options.target_score}` : "";
  return `A game of ${rules}${target}, game ${view.game_id}.` +
    (seated.length ? ` Seated: ${andList(seated)}.` : "");
}

/** Whether the seat an invitation is to is taken already (without a seat: every invited seat is). */
function invitationSpent(invite, view) {
  if (invite.seat !== null) return invite.seat < view.players.length && view.players[invite.seat] !== null;
  return !(view.private_seats || []).some((seat) => view.players[seat] === null);
}

/** Ask the invited person's name and take the seat; resolves once the token is stored. */
function acceptInvitation(invite, view) {
  return new Promise((resolve) => {
    const remembered = localStorage.getItem("ginbox.name") || "";
    const name = el("input", { id: "invite-name", maxlength: "40", autocomplete: "nickname", value: remembered,
      placeholder: invite.seat === null ? "" : defaultName(invite.seat), "aria-describedby": "invite-name-help" });
    const error = el("p", { class: "error", role: "alert" });
    const form = el("form", { id: "invite-form", class: "knock-panel" },
      el("h2", { text: invite.seat === null ? "You are invited to this game" : `You are invited to seat ${invite.seat} of this game` }),
      el("p", { id: "invite-context", text: invitationContext(view) }),
      // before the seat is taken, the invited person reads that its creator chose the deal
      dealtByCreator(view) ? el("p", { id: "invite-not-random", class: "error", text: notRandomText(created, view.decks_given) }) : null,
      el("label", { for: "invite-name", text: "Your name" }), " ", name, " ",
      el("button", { type: "submit", class: "primary" }, dealtByCreator(view) ? "Take the seat anyway" : "Take the seat"),
      el("p", { id: "invite-name-help", class: "muted", text: "Left empty, you sit as \u201cplayer\u201d and your seat's number." }),
      error);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const typed = name.value.trim();
      try {
        const { data } = await claimInvited(invite, typed);
        const chosen = data.view.players[data.seat] ? data.view.players[data.seat].name : typed || defaultName(data.seat);
        // only a name typed is this browser's name from now on: a default is not
        if (typed) localStorage.setItem("ginbox.name", typed);
        saveSeat(gameId, data.view.variant, data.seat, data.token, chosen);
        // the secret has done its work: it leaves the address bar (and the history)
        history.replaceState(null, "", `${location.pathname}#seat=${data.seat}`);
        form.remove();
        resolve();
      } catch (err) {
        error.textContent = err.code === "invite_required" ? "This invitation is not valid for that seat."
          : err.code === "seat_taken" ? "Someone has already taken that seat." : `Could not take the seat: ${err.message}`;
      }
    });
    $("#main").prepend(form);
    name.focus();
  });
}

function renderInvites(view) {
  const invites = invitesOf(gameId);
  const open = Object.entries(invites).filter(([seat]) => view.players[Number(seat)] === null);
  if (view.status !== "waiting" || !open.length || state.mode !== "play") return null;
  const list = el("ul", { id: "table-invites" });
  for (const [seat, secret] of open) {
    const link = inviteLink(gameId, seat, secret);
    const input = el("input", { type: "text", readonly: "", size: "50", id: `table-invite-${seat}`, value: link });
    // as in the lobby: one press puts the link on the clipboard (or selects it, where that is not allowed)
    const copy = el("button", { type: "button", class: "copy", "data-key": `copy-invite:${seat}`, text: "Copy",
      onclick: async () => {
        input.select();
        try { await navigator.clipboard.writeText(link); copy.textContent = "Copied"; } catch { copy.textContent = "Select and copy"; }
      } });
    list.append(el("li", {}, el("label", { for: `table-invite-${seat}`, text: `Invitation to seat ${seat}: ` }), input, " ", copy));
  }
  return el("div", { class: "knock-panel" }, el("h3", { text: "Waiting for your guests: send them these links" }), list);
}

// ---------------------------------------------------------------- start

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

async function start() {
  linkToMatch();
  const invite = invitation();
  if (state.mode === "play" && invite && !(seatsOf(gameId) || {})[invite.seat]) {
    $("#connection").textContent = "not joined";
    // the game is looked up first: a link to a game this server does not hold asks for no name
    let publicView = null;
    try {
      publicView = (await api.getGame(gameId, null)).data;
    } catch { /* refresh below says why the game cannot be shown */ }
    if (publicView && invitationSpent(invite, publicView)) {
      // nobody can sit there any more: no name is asked, the game may be watched
      $("#main").prepend(el("div", { id: "invite-taken", class: "knock-panel", role: "alert" },
        el("p", { text: invite.seat === null ? "Every seat this invitation could open is already taken."
          : `Someone has already taken seat ${invite.seat} of this game, so this invitation can no longer be used.` }),
        el("p", {}, el("a", { class: "button", id: "invite-watch", href: `/watch/${encodeURIComponent(gameId)}`, text: "Watch the game" }),
          " ", el("a", { href: "/", text: "Back to the lobby" }))));
      document.title = "ginbox — invitation already used";
      $("#connection").textContent = "not joined";
      for (const id of ["#board", "#scores", "#turn"]) $(id).hidden = true;
      return;
    }
    if (publicView) {
      await loadCreated(publicView);
      await acceptInvitation(invite, publicView);
    }
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
        && msg.data.data.seat === state.view.viewer) noteTimedOut(Number(msg.id), state.view.viewer);
      if (msg.event === "advice_given" || !state.view || Number(msg.id) > state.view.version) refresh();
    },
  });
  globalThis.ginboxStream = stream;
}

start();
