// The lobby's "Games on this server": the games table, page by page and filtered, with a way to
// join an open seat, resume, watch or replay each game; and how the lobby words a refusal.
import * as api from "./api.js";
import { finished, renderMyGames } from "./lobby-yours.js";
import { saveSeat, seatsOf } from "./seats.js";
import { defaultName, el, isMatchBoard, notRandomText, problemText } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
/** The cursor of the games table's next page (null on the last), and the filter its pages were listed with. */
let nextCursor = null;
let listedWith = {};
/** How many listings of the games were started: only the latest one's answer is shown. */
let listing = 0;

/** A refusal (or a server not answering) in words for people. */
export function describeError(err) {
  return err instanceof api.ApiError ? problemText(err) : String(err.message || err);
}

/**
 * What the lobby says of a game its creator dealt (randomly_dealt false), from its first event (its
 * roles and first dealer are public): with decks given, it may be played against open cards.
 */
async function notRandomOf(gameId, view) {
  try {
    const { data } = await api.listEvents(gameId, null, 0, 1);
    const created = data.events.find((e) => e.type === "game_created") || null;
    // whether decks came with the roles or the first dealer is the view's to say
    const seen = view || (created && (created.data.roles || created.data.first_dealer != null)
      ? (await api.getGame(gameId)).data : null);
    return notRandomText(created, seen ? seen.decks_given : undefined);
  } catch {
    return notRandomText(null);
  }
}

/** Take an open seat under your name, then go to its table. */
async function joinSeat(gameId, seat, gameVariant, notRandom = "") {
  // a seat of a game its creator dealt is taken only once the player has read what that means
  if (notRandom && !window.confirm(`${notRandom} Take seat ${seat + 1} of game ${gameId} anyway?`)) {
    $("#lobby-message").textContent = `You did not join game ${gameId}.`;
    return;
  }
  const name = $("#your-name").value.trim() || defaultName(seat);
  try {
    const { data } = await api.claimSeat(gameId, seat, name);
    saveSeat(gameId, gameVariant, data.seat, data.token, name);
    location.assign(`/play/${gameId}#seat=${data.seat}`);
  } catch (err) {
    $("#lobby-message").textContent = err.code === "invite_required"
      ? "That seat is by invitation: open the link its creator sent you."
      : `Could not join: ${describeError(err)}`;
  }
}

/** The games table's Players cell: who sits where, and the word on a game its creator dealt. */
function playersCell(summary, view, notRandom) {
  // newer servers may list players in the summary; otherwise a waiting game's view says who sits where
  const players = summary.players || (view && view.players) || null;
  if (!players) return el("span", { class: "muted", text: "—" });
  const privateSeats = summary.private_seats || (view && view.private_seats) || [];
  // seats counted from 1, as people count them (the wire's seat 0 is "seat 1")
  const empty = (i) => (privateSeats.includes(i) ? `seat ${i + 1} by invitation` : `seat ${i + 1} open`);
  // a bot's kind once: "basic-bot-1" says it already, "rook (basic bot)" needs it
  const kind = (p) => (p.bot && !String(p.name).toLowerCase().includes(String(p.bot).toLowerCase()) ? ` (${p.bot} bot)` : "");
  const names = players.map((p, i) => (p ? `${p.name}${kind(p)}` : empty(i)));
  const cell = el("span", { text: names.join(", ") });
  if (notRandom) {
    // a warning while someone may still sit down; of a game over, a plain note
    const tone = summary.status === "over" ? "muted" : "error";
    return el("div", {}, cell, el("div", { class: `${tone} not-random`, "data-game": summary.game_id, text: notRandom }));
  }
  return cell;
}

/**
 * Whether the game was dealt by its creator (decks, roles or first dealer given), from its summary
 * or view. Not a match's game: the match fixes who deals, but its cards come from the board's seed.
 */
function notRandomlyDealt(summary, view) {
  const flag = summary.randomly_dealt ?? (view ? view.randomly_dealt : undefined);
  const players = summary.players || (view && view.players) || [];
  return flag === false && !isMatchBoard({ players });
}

/** A seat's name in a summary's players, or "seat 2" (counted from 1) when none sits there. */
const seatName = (players, i) => (players && players[i] ? players[i].name : `seat ${i + 1}`);

/**
 * How a game over ended, in words: "expert-bot-1 won: ann resigned", "ann won 103 to 51",
 * "abandoned, no winner" (from the summary's winner and end; an older server's summary without
 * end says only who won, or nothing).
 */
export function endText(summary, players) {
  const end = summary.end || null;
  const won = summary.winner === null || summary.winner === undefined ? null : `${seatName(players, summary.winner)} won`;
  if (end && end.reason === "abandoned") return "abandoned, no winner";
  if (end && end.reason === "expired") return "expired before it started, no winner";
  if (end && end.reason === "resigned" && won) return `${won}: ${seatName(players, end.resigned)} resigned`;
  if (!won) return "";
  // the winner's score first, then the others' in seat order: "won 103 to 51" (or "to 51 and 20")
  const scores = summary.scores || [];
  const others = scores.filter((_, i) => i !== summary.winner);
  return scores.length ? `${won} ${scores[summary.winner]} to ${others.join(" and ")}` : won;
}

/** The games table's Status cell: waiting, or the hand being played or the end, with the scores. */
function statusText(summary, players) {
  if (!summary.scores || summary.status === "waiting") return summary.status;
  if (summary.status === "over") {
    const how = endText(summary, players);
    if (how) return `over — ${how}`;
  }
  // each score after its player's name: "ann 56, bob 101, cal 0", not "56–101–0"
  const scores = players && players.length === summary.scores.length
    ? summary.scores.map((s, i) => `${seatName(players, i)} ${s}`).join(", ")
    : summary.scores.join("–");
  return summary.status === "playing" ? `playing hand ${summary.hand_no}, ${scores}` : `over, ${scores}`;
}

/** The games table's row of one game (a waiting game's view is read when its summary names no players). */
async function gameRow(summary) {
  const id = summary.game_id;
  let view = null;
  if (summary.status === "waiting" && !summary.players) {
    try { view = (await api.getGame(id)).data; } catch { view = null; }
  }
  // an imported game is said so from its summary alone; another not randomly dealt, from its first event
  const notRandom = summary.imported_from ? notRandomText({ data: { imported_from: summary.imported_from } })
    : notRandomlyDealt(summary, view) ? await notRandomOf(id, view) : "";
  const actions = el("td", {});
  const players = summary.players || (view && view.players);
  // a finished game is not resumed: its Replay is offered below
  if (seatsOf(id) && summary.status !== "over") {
    actions.append(el("a", { class: "button", href: `/play/${id}`, text: "Resume" }), " ");
  }
  if (summary.status === "over") finished.set(id, endText(summary, players));
  // a seat by invitation is claimed only through its creator's link: no Join button for it
  const privateSeats = summary.private_seats || (view && view.private_seats) || [];
  if (summary.status === "waiting" && players) {
    players.forEach((p, seat) => {
      if (p !== null) return;
      if (privateSeats.includes(seat)) {
        actions.append(el("div", { class: "muted by-invitation", "data-game": id, "data-seat": String(seat),
          text: `Seat ${seat + 1} by invitation` }));
      } else {
        actions.append(el("button", { type: "button", class: "join", "data-game": id, "data-seat": String(seat),
          text: `Join seat ${seat + 1}`, onclick: () => joinSeat(id, seat, summary.variant, notRandom) }), " ");
      }
    });
  }
  if (summary.status !== "waiting") actions.append(el("a", { class: "button", href: `/watch/${id}`, text: "Watch" }), " ");
  if (summary.status === "over") actions.append(el("a", { class: "button", href: `/replay/${id}`, text: "Replay" }));
  const updated = new Date(summary.updated).toLocaleString();
  // data-label: on a phone's width each row is a card, each cell led by its column's name
  actions.setAttribute("data-label", "Actions");
  return el("tr", { "data-game": id },
    el("td", { "data-label": "Game" }, el("code", { text: id })), el("td", { "data-label": "Variant", text: summary.variant }),
    el("td", { "data-label": "Status", text: statusText(summary, players) }),
    el("td", { "data-label": "Players" }, playersCell(summary, view, notRandom)),
    el("td", { "data-label": "Updated", text: updated }), actions);
}

/**
 * The first page of the games the filter asks for, or (append) the next page after the one shown,
 * by the cursor the last page gave: the filter stays the one that page was listed with. A listing
 * started later (Refresh) wins over one still under way, whose rows are then dropped.
 */
export async function loadGames(append = false) {
  const tbody = $("#games-table tbody");
  const more = $("#more-games");
  if (append && !nextCursor) return;
  if (!append) {
    const filter = $("#filter-form").elements;
    listedWith = { status: filter.status.value || undefined, variant: filter.variant.value || undefined };
    nextCursor = null;
  }
  listing += 1;
  const mine = listing;
  more.disabled = true;
  try {
    const { data } = await api.listGames({ ...listedWith, cursor: append ? nextCursor : undefined });
    const rows = await Promise.all(data.games.map(gameRow));
    if (mine !== listing) return;
    if (!append) tbody.replaceChildren();
    for (const note of tbody.querySelectorAll("tr:not([data-game])")) note.remove();
    // a game is listed once, even should a page repeat one
    const shown = new Set(Array.from(tbody.querySelectorAll("tr[data-game]"), (tr) => tr.dataset.game));
    tbody.append(...rows.filter((tr) => !shown.has(tr.dataset.game)));
    nextCursor = data.next_cursor || null;
    // the games found over change what "Your games" offers for them
    renderMyGames();
    if (!tbody.children.length) {
      // a page may hold no game while more follow (a match's games are listed once it is over)
      tbody.append(el("tr", {}, el("td", { colspan: "6", class: "muted",
        text: nextCursor ? "None on this page: more games follow." : "No games yet." })));
    }
  } catch (err) {
    if (mine !== listing) return;
    $("#lobby-message").textContent = `Could not list games: ${describeError(err)}`;
  } finally {
    if (mine === listing) {
      more.hidden = !nextCursor;
      more.disabled = !nextCursor;
    }
  }
}

/** Wire the filter and the "More games" button, then list the first page. */
export function setUpGamesTable() {
  $("#filter-form").addEventListener("submit", (e) => { e.preventDefault(); loadGames(); });
  $("#more-games").addEventListener("click", () => loadGames(true));
  loadGames();
}
