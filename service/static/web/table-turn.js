// The turn line and what is said beside it: whose turn and what to do, how the last hand ended,
// who deals, what the others just did; the page's title, who is watching, and the connection.
// A control here calls the table's actions, `act` (see table-state.js).
import { short } from "./cards.js";
import { $, UNREACHABLE, andList, own, setText, state } from "./table-state.js";
import { el, playerName } from "./ui.js";

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

/** The turn line: the game's state in one sentence ("Hand 2. Your turn: discard."). */
export function phaseText(view) {
  const names = view.to_act.map((s) => (s === view.viewer ? "you" : playerName(view, s)));
  if (view.status === "waiting") {
    const open = view.players.map((p, i) => (p ? null : i + 1)).filter((i) => i !== null); // counted from 1
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
    if (end.reason === "expired") return `Game over: it expired, a seat still free ${end.idle_s} s after it was made; nobody wins.`;
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
 * the hand being played, and the others' moves since, in words, run by run ("bob
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
export function renderRecap(view, act) {
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
        onclick: () => { state.dismissedHand = r.hand_no; act.redraw(); } }, "Dismiss")));
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

export function renderHeader(view) {
  $("#title").textContent = `${view.variant === "three-hand" ? "Box gin" : "Gin rami"} ${state.mode === "watch" ? "(watching)" : ""}`;
  let who = "spectator";
  if (view.viewer !== null) {
    who = `you are ${playerName(view, view.viewer)}, seat ${view.viewer + 1}` +
      (view.viewer_role !== "player" ? `, ${view.viewer_role}` : "");
  }
  $("#whoami").textContent = `game ${view.game_id}: ${who}`;
  document.title = `ginbox — ${phaseText(view)}`;
}

export function renderConnection() {
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
