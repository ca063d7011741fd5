// The lobby: create a game, list the server's games, join an open seat, resume your own games.
import * as api from "./api.js";
import {
  forgetChallenge, forgetGame, inviteLink, myChallenges, myGames, saveChallenge, saveInvites, saveSeat, seatsOf,
  updateChallenge,
} from "./seats.js";
import { defaultName, el, isMatchBoard, notRandomText, problemText } from "./ui.js";

const $ = (sel, root = document) => root.querySelector(sel);
const form = $("#create-form");
const SEAT_KINDS = [
  ["you", "You"], ["open", "Open seat (someone joins)"],
  // the built-in bots, weakest first
  ["bot:random", "Bot: random"], ["bot:basic", "Bot: basic"], ["bot:advanced", "Bot: advanced"],
  ["bot:expert", "Bot: expert"],
];
/** Seconds the first deal waits for the client seeds of the seats this browser takes (then deals without them). */
const CLIENT_SEED_WAIT_S = 30;
/** The cursor of the games table's next page (null on the last), and the filter its pages were listed with. */
let nextCursor = null;
let listedWith = {};
/** How many listings of the games were started: only the latest one's answer is shown. */
let listing = 0;
/** The games listed as over: "Your games" offers their replay, not a table to resume. */
const finished = new Set();

function variant() {
  return form.elements.variant.value;
}

function renderSeatRows() {
  const rows = $("#seat-rows");
  rows.replaceChildren();
  const n = variant() === "three-hand" ? 3 : 2;
  for (let i = 0; i < n; i += 1) {
    const kind = el("select", { name: `seat${i}`, id: `seat${i}-kind` });
    for (const [value, text] of SEAT_KINDS) kind.append(el("option", { value, text }));
    kind.value = i === 0 ? "you" : "bot:basic";
    const name = el("input", { name: `name${i}`, id: `seat${i}-name`, maxlength: "40", autocomplete: "nickname",
      value: i === 0 ? $("#your-name").value : "" });
    // what an empty name becomes: a person's seat its default, a bot the name the server gives it
    const hint = () => { name.placeholder = kind.value === "you" ? defaultName(i) : kind.value.startsWith("bot:") ? "the server names it" : ""; };
    kind.addEventListener("change", () => {
      // the name filled in was a person's (yours, on seat 0): a bot or an open seat does not keep
      // it, so that the server names the bot and whoever joins names themselves; back to "You",
      // seat 0 takes your name again
      if (kind.value !== "you") name.value = "";
      else if (i === 0 && !name.value.trim()) name.value = $("#your-name").value.trim();
      hint();
    });
    hint();
    rows.append(el("div", { class: "row" },
      el("label", { for: `seat${i}-kind`, text: `Seat ${i}` }), kind,
      el("label", { for: `seat${i}-name`, text: "name" }), name));
  }
}

function optionalInt(name) {
  const raw = form.elements[name].value.trim();
  return raw === "" ? undefined : Number(raw);
}

function buildBody() {
  const n = variant() === "three-hand" ? 3 : 2;
  const seats = [];
  for (let i = 0; i < n; i += 1) {
    const kind = form.elements[`seat${i}`].value;
    const name = form.elements[`name${i}`].value.trim();
    if (kind === "you") seats.push({ name: name || defaultName(i) });
    else if (kind === "open") seats.push(null);
    else seats.push(name ? { bot: kind.slice(4), name } : { bot: kind.slice(4) });
  }
  const body = { variant: variant(), seats };
  const options = {};
  for (const key of ["target_score", "knock_limit", "turn_timeout_s"]) {
    const v = optionalInt(key);
    if (v !== undefined) options[key] = v;
  }
  // a seat taken here sends a client seed of this browser's making as soon as its table opens: the
  // first deal waits for it (at most CLIENT_SEED_WAIT_S, then the server deals without it), so
  // that every cut and deal depends on it as well as on the seed the server committed to
  if (!decks() && seats.some((s) => s && !s.bot)) options.client_seed_wait_s = CLIENT_SEED_WAIT_S;
  if (Object.keys(options).length) body.options = options;
  if (form.elements.private.checked) body.private = true;
  const dealer = form.elements.first_dealer.value;
  if (dealer !== "" && body.variant === "gin-rami") body.first_dealer = Number(dealer);
  if (decks()) body.decks = JSON.parse(decks());
  return body;
}

/** The fixed decks typed in (lessons, puzzles, tests), or "". */
function decks() {
  return form.elements.decks.value.trim();
}

const CARD_CODE = /^[A2-9TJQK][CDHS]$/;

/**
 * Why the decks typed in cannot be a game's, in words for people (the first fault found), or "":
 * a list of decks, each of the 52 cards once, as codes such as "7H" or "TD".
 */
function decksFault(list) {
  if (!Array.isArray(list) || !list.length) return "The decks must be a list of decks: [[\"AS\", \"2S\", …], …].";
  for (const [i, deck] of list.entries()) {
    const which = list.length > 1 ? `Deck ${i + 1}` : "The deck";
    if (!Array.isArray(deck)) return `${which} must be a list of 52 cards.`;
    if (deck.length !== 52) return `${which} lists ${deck.length} card${deck.length === 1 ? "" : "s"}: a deck lists all 52, top card first.`;
    const odd = deck.find((c) => typeof c !== "string" || !CARD_CODE.test(c));
    if (odd !== undefined) return `${which} holds ${JSON.stringify(odd)}, which is no card: write cards as 7H, TD, AS (rank, then suit).`;
    const twice = deck.find((c, j) => deck.indexOf(c) !== j);
    if (twice) return `${which} holds ${twice} twice: each card appears once.`;
  }
  return "";
}

/** The rules' fields, by their name in the request's options, with the words their labels begin with. */
const RULE_FIELDS = { target_score: "Game to", knock_limit: "Knock limit", turn_timeout_s: "Turn clock (seconds)" };

/**
 * The first rule field out of its range, as [its input, what it must be in the label's words]
 * ("Knock limit: at most 100"), or null. The ranges are the inputs' own min and max, the server's.
 */
function ruleFault() {
  for (const [key, name] of Object.entries(RULE_FIELDS)) {
    const input = form.elements[key];
    const raw = input.value.trim();
    const min = Number(input.min);
    const max = Number(input.max);
    // letters in a number field read as "" with badInput set
    if (input.validity.badInput || (raw !== "" && !Number.isInteger(Number(raw)))) {
      return [input, `${name}: a whole number from ${min} to ${max}.`];
    }
    if (raw === "") continue;
    if (Number(raw) < min) return [input, `${name}: at least ${min}.`];
    if (Number(raw) > max) return [input, `${name}: at most ${max}.`];
  }
  return null;
}

/** Mark the field wrong (aria-invalid, described by the error) and put the focus on it. */
function markInvalid(input) {
  input.setAttribute("aria-invalid", "true");
  input.setAttribute("aria-describedby", "create-error");
  input.focus();
}

function clearInvalid() {
  for (const input of form.querySelectorAll("[aria-invalid]")) {
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
  }
}

/**
 * A refusal of the server's naming rule fields (errors.options.knock_limit …), in the labels'
 * words, with the first such field marked; null when it names none.
 */
function ruleRefusal(err) {
  const options = err instanceof api.ApiError && err.problem && err.problem.errors && err.problem.errors.options;
  if (!options || typeof options !== "object") return null;
  const lines = [];
  let first = null;
  for (const [key, messages] of Object.entries(options)) {
    if (!RULE_FIELDS[key]) continue;
    const text = [].concat(messages).map(String).join(" ").trim();
    lines.push(`${RULE_FIELDS[key]}: ${text[0].toLowerCase()}${text.slice(1)}`);
    first = first || form.elements[key];
  }
  if (!lines.length) return null;
  markInvalid(first);
  return lines.join(" ");
}

function describeError(err) {
  return err instanceof api.ApiError ? problemText(err) : String(err.message || err);
}

async function onCreate(event) {
  event.preventDefault();
  const out = $("#create-error");
  out.textContent = "";
  clearInvalid();
  const rule = ruleFault();
  if (rule) {
    out.textContent = `The game was not created: ${rule[1]}`;
    markInvalid(rule[0]);
    return;
  }
  let body;
  try {
    body = buildBody();
  } catch (err) {
    out.textContent = `The decks are not JSON: ${err.message}`;
    markInvalid($("#decks"));
    return;
  }
  const fault = body.decks ? decksFault(body.decks) : "";
  if (fault) {
    out.textContent = `The game was not created: ${fault}`;
    markInvalid($("#decks"));
    return;
  }
  const button = $("#create-button");
  button.disabled = true;
  try {
    const { data } = await api.createGame(body);
    let mine = null;
    for (const s of data.seats) {
      if (s.token) {
        saveSeat(data.game_id, body.variant, s.seat, s.token, s.name);
        if (mine === null) mine = s.seat;
      }
    }
    const table = mine === null ? `/watch/${data.game_id}` : `/play/${data.game_id}#seat=${mine}`;
    const invites = Object.fromEntries(data.seats.filter((s) => s.invite).map((s) => [s.seat, s.invite]));
    if (!Object.keys(invites).length) {
      location.assign(table);
      return;
    }
    saveInvites(data.game_id, body.variant, invites);
    showInvitations(data.game_id, invites, table);
    // the game is this browser's and on the server now: both lists say so without a reload
    renderMyGames();
    loadGames();
  } catch (err) {
    out.textContent = `The game was not created: ${ruleRefusal(err) || describeError(err)}`;
  } finally {
    button.disabled = false;
  }
}

/** Links for a private game's open seats, to pass on; then on to the table. */
function showInvitations(gameId, invites, table) {
  const list = $("#invite-links");
  list.replaceChildren();
  for (const [seat, secret] of Object.entries(invites)) {
    const link = inviteLink(gameId, seat, secret);
    const input = el("input", { type: "text", readonly: "", value: link, id: `invite-${seat}`, size: "60",
      class: "invite-link", "data-seat": seat });
    const copy = el("button", { type: "button", text: "Copy",
      onclick: async () => {
        input.select();
        try { await navigator.clipboard.writeText(link); copy.textContent = "Copied"; } catch { copy.textContent = "Select and copy"; }
      } });
    list.append(el("li", {}, el("label", { for: `invite-${seat}`, text: `Seat ${seat}: ` }), input, " ", copy));
  }
  $("#go-to-table").href = table;
  $("#invitations").hidden = false;
  list.querySelector("input").focus();
}

function renderMyGames() {
  const games = myGames();
  const box = $("#my-games");
  if (!games.length) {
    box.replaceChildren(el("p", { class: "muted", text: "None yet: this browser holds no seat." }));
    return;
  }
  const ul = el("ul");
  for (const game of games) {
    const seats = Object.entries(game.seats);
    // a game of a duplicate match, saved by the match page, is named by its place in the match,
    // which has a page of its own (its turns, standings and boards)
    const place = Number.isInteger(game.board) && Number.isInteger(game.table)
      ? `board ${game.board + 1}, table ${game.table + 1}` : game.game_id;
    const what = game.match ? `the match game at ${place}` : `game ${game.game_id}`;
    const li = game.match ? el("li", { class: "match-game", "data-match": game.match }) : el("li", {});
    if (finished.has(game.game_id) && !game.match) {
      li.append(el("a", { href: `/replay/${game.game_id}`, class: "button replay", "data-game": game.game_id,
        text: `Replay ${game.game_id}`, "aria-label": `Replay ${what} (over)` }), " ");
    } else if (game.match) {
      li.append(el("span", { text: `Match game (${place}): ` }));
      for (const [seat, info] of seats) {
        li.append(el("a", { href: `/play/${game.game_id}#seat=${seat}`, class: "button resume", "data-game": game.game_id,
          text: "Resume", "aria-label": `Resume ${what} as ${info.name || "seat " + seat}` }), " ");
      }
      li.append(el("a", { href: `/match/${game.match}`, class: "button match-page", "data-match": game.match,
        text: "Match page", "aria-label": `Match page of ${what}` }), " ");
    } else {
      for (const [seat, info] of seats) {
        li.append(el("a", { href: `/play/${game.game_id}#seat=${seat}`, class: "button resume",
          "data-game": game.game_id, text: `Resume ${game.game_id} as ${info.name || "seat " + seat}` }), " ");
      }
    }
    li.append(el("span", { class: "muted", text: ` ${game.variant} ` }),
      el("button", { type: "button", class: "forget", "data-game": game.game_id,
        "aria-label": `Forget ${what} (its seat tokens leave this browser)`, text: "Forget",
        onclick: () => { forgetGame(game.game_id); renderMyGames(); } }));
    ul.append(li);
  }
  box.replaceChildren(ul);
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

async function joinSeat(gameId, seat, gameVariant, notRandom = "") {
  // a seat of a game its creator dealt is taken only once the player has read what that means
  if (notRandom && !window.confirm(`${notRandom} Take seat ${seat} of game ${gameId} anyway?`)) {
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

function playersCell(summary, view, notRandom) {
  // newer servers may list players in the summary; otherwise a waiting game's view says who sits where
  const players = summary.players || (view && view.players) || null;
  if (!players) return el("span", { class: "muted", text: "—" });
  const privateSeats = summary.private_seats || (view && view.private_seats) || [];
  const empty = (i) => (privateSeats.includes(i) ? `seat ${i} by invitation` : `seat ${i} open`);
  const names = players.map((p, i) => (p ? `${p.name}${p.bot ? ` (${p.bot} bot)` : ""}` : empty(i)));
  const cell = el("span", { text: names.join(", ") });
  if (notRandom) {
    return el("div", {}, cell, el("div", { class: "error not-random", "data-game": summary.game_id, text: notRandom }));
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

function statusText(summary, players) {
  if (!summary.scores || summary.status === "waiting") return summary.status;
  // each score after its player's name: "ann 56, bob 101, cal 0", not "56–101–0"
  const scores = players && players.length === summary.scores.length
    ? summary.scores.map((s, i) => `${players[i] ? players[i].name : `seat ${i}`} ${s}`).join(", ")
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
  const notRandom = notRandomlyDealt(summary, view) ? await notRandomOf(id, view) : "";
  const actions = el("td", {});
  const players = summary.players || (view && view.players);
  // a finished game is not resumed: its Replay is offered below
  if (seatsOf(id) && summary.status !== "over") {
    actions.append(el("a", { class: "button", href: `/play/${id}`, text: "Resume" }), " ");
  }
  if (summary.status === "over") finished.add(id);
  // a seat by invitation is claimed only through its creator's link: no Join button for it
  const privateSeats = summary.private_seats || (view && view.private_seats) || [];
  if (summary.status === "waiting" && players) {
    players.forEach((p, seat) => {
      if (p !== null) return;
      if (privateSeats.includes(seat)) {
        actions.append(el("div", { class: "muted by-invitation", "data-game": id, "data-seat": String(seat),
          text: `Seat ${seat} by invitation` }));
      } else {
        actions.append(el("button", { type: "button", class: "join", "data-game": id, "data-seat": String(seat),
          text: `Join seat ${seat}`, onclick: () => joinSeat(id, seat, summary.variant, notRandom) }), " ");
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
async function loadGames(append = false) {
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

// ---------------------------------------------------------------- challenges to bot accounts

const challengeForm = $("#challenge-form");
/** Seconds between two looks at the challenges still pending. */
const CHALLENGE_POLL_MS = 2000;
let challengePoll = null;

/** The built-in policies a three-hand challenge may name as its third player, weakest first. */
const POLICIES = ["random", "basic", "advanced", "expert"];
const VARIANT_NAMES = { "gin-rami": "gin rami", "three-hand": "box gin" };
/** The rated bot accounts by variant ({variant: [{name, rating}]}), as GET /ratings gave them. */
const ratedBots = { "gin-rami": [], "three-hand": [] };
/** Whether GET /ratings has answered (until then the list is not known to be empty). */
let botsLoaded = false;

/** The rated bot accounts of both variants (any other name may still be typed). */
async function loadBotNames() {
  await Promise.all(Object.keys(ratedBots).map(async (v) => {
    try {
      const { data } = await api.getRatings(v);
      ratedBots[v] = data.ratings.filter((r) => r.kind === "bot");
    } catch { /* the name is typed instead */ }
  }));
  botsLoaded = true;
  renderBotNames();
}

/**
 * Offer the bot accounts rated in the chosen variant (with their rating) and then those rated only
 * in the other one; for three-hand, the third player may also be a built-in policy.
 */
function renderBotNames() {
  const chosen = challengeForm.elements.variant.value;
  const other = chosen === "gin-rami" ? "three-hand" : "gin-rami";
  const seen = new Set(ratedBots[chosen].map((r) => r.name));
  const bots = [
    ...ratedBots[chosen].map((r) => [r.name, `${r.name} (rating ${Math.round(r.rating)})`]),
    ...ratedBots[other].filter((r) => !seen.has(r.name))
      .map((r) => [r.name, `${r.name} (rated at ${VARIANT_NAMES[other]})`]),
  ];
  const option = ([value, text]) => el("option", { value, text });
  $("#bot-names").replaceChildren(...bots.map(option));
  if (botsLoaded) renderBotHelp(bots.length > 0);
  $("#third-names").replaceChildren(...POLICIES.map((p) => [p, `${p} (built-in bot)`]).map(option),
    ...bots.map(option));
}

/** Under the account field: pick from the list, or, with no account to list, how one comes to be. */
function renderBotHelp(listed) {
  const help = $("#challenge-to-help");
  if (listed) {
    help.replaceChildren("pick a rated one, or type any account's name (an account, not a built-in bot)");
    return;
  }
  help.replaceChildren("No bot account is rated on this server yet, so none is listed. A bot program registers " +
    "one with POST /bots (", el("a", { href: "/docs#/arena/registerBot", text: "the API documentation" }),
  "); then type its name here. To play a built-in bot, create a new game above.");
}

function challengeBody() {
  const f = challengeForm.elements;
  const body = { to: f.to.value.trim(), variant: f.variant.value, name: f.name.value.trim() };
  // three-hand names its third participant; gin-rami names none
  if (body.variant === "three-hand") body.with = [f.with.value.trim()];
  // a single game has no boards: without them the challenge is to one game
  const boards = f.boards.value.trim();
  if (f.kind.value === "match") body.boards = boards === "" ? NaN : Number(boards);
  const moveTime = f.move_time_s.value.trim();
  if (moveTime !== "") body.move_time_s = Number(moveTime);
  return body;
}

async function onChallenge(event) {
  event.preventDefault();
  const out = $("#challenge-error");
  out.textContent = "";
  const body = challengeBody();
  if (!body.to) { out.textContent = "Name the bot account to challenge."; return; }
  if (POLICIES.includes(body.to.toLowerCase())) {
    out.textContent = `${body.to} is a built-in bot, not a bot account: play it in a new game above (a seat set to` +
      ` “Bot: ${body.to.toLowerCase()}”), or name it as box gin's third player. A challenge goes to an account a bot program registered.`;
    return;
  }
  if (body.with && !body.with[0]) {
    out.textContent = "Name the third player: a built-in bot (such as basic) or another bot account."; return;
  }
  if (!body.name) { out.textContent = "Say your name: the bot and anyone watching see you by it."; return; }
  if ("boards" in body && !Number.isInteger(body.boards)) {
    out.textContent = "Say how many boards the match has (1 to 1000)."; return;
  }
  if ("move_time_s" in body && !(Number.isInteger(body.move_time_s) && body.move_time_s >= 5 && body.move_time_s <= 86400)) {
    out.textContent = "Give the bot at least 5 seconds a move (up to 86400), or leave the time empty for no clock."; return;
  }
  const button = $("#challenge-button");
  button.disabled = true;
  try {
    const { data } = await api.createChallenge(body);
    saveChallenge(data, data.token, body.name);
    localStorage.setItem("ginbox.name", body.name);
    renderMyChallenges();
    watchChallenges();
  } catch (err) {
    out.textContent = `The challenge was refused: ${describeError(err)}`;
  } finally {
    button.disabled = false;
  }
}

function challengeState(c) {
  if (c.status === "accepted" && c.game_id) {
    return el("a", { class: "button game-link", href: `/play/${c.game_id}`, "data-game": c.game_id,
      text: "Accepted: play the game", onclick: (event) => openGame(event, c) });
  }
  if (c.status === "accepted" && c.match_id) {
    return el("a", { class: "button match-link", href: `/match/${c.match_id}`, "data-match": c.match_id,
      text: `Accepted: go to the match` });
  }
  if (c.status === "declined") return el("strong", { text: "Declined" });
  if (c.status === "withdrawn") return el("strong", { text: "Withdrawn" });
  if (c.status === "expired") return el("strong", { text: "Expired: the bot did not answer within a day" });
  if (c.status === "gone") return el("strong", { text: "No longer on this server" });
  return el("span", { class: "status", text: "Pending: waiting for the bot to answer" });
}

function renderMyChallenges() {
  const mine = myChallenges();
  const box = $("#my-challenges");
  if (!mine.length) {
    box.replaceChildren(el("p", { class: "muted", text: "None yet: this browser made no challenge." }));
    return;
  }
  const ul = el("ul", { class: "challenges" });
  for (const c of mine) {
    const size = c.boards ? `a match of ${c.boards} board${c.boards === 1 ? "" : "s"}` : "a single game";
    const others = [c.to, ...(c.with || [])];
    const against = others.length > 1 ? `${others.slice(0, -1).join(", ")} and ${others.at(-1)}` : c.to;
    const rules = c.variant === "three-hand" ? "box gin (three-hand)" : c.variant;
    const what = `${c.name} against ${against}, ${rules}, ${size}` +
      `${c.move_time_s ? `, ${c.move_time_s} s a move` : ""}: `;
    const li = el("li", { "data-challenge": c.challenge_id, "data-status": c.status },
      el("span", { text: what }), challengeState(c), " ");
    if (c.status === "pending" && c.token) {
      li.append(el("button", { type: "button", class: "withdraw", text: "Withdraw",
        "aria-label": `Withdraw the challenge to ${c.to} (the bot can no longer accept it)`,
        onclick: (event) => withdraw(c, event.currentTarget) }), " ");
    }
    ul.append(li);
    li.append(el("button", { type: "button", class: "forget", text: "Forget",
        "aria-label": `Forget the challenge to ${c.to} (its token leaves this browser)`,
        onclick: () => { forgetChallenge(c.challenge_id); renderMyChallenges(); } }));
  }
  box.replaceChildren(ul);
}

/**
 * Keep the challenge's token as the person's seat of the game the bot accepted, so that the table
 * page plays it (and "Your games" lists it). The seat is the one the game's view, read with the
 * token, says it holds.
 */
async function seatChallengeGame(c) {
  const held = Object.entries(seatsOf(c.game_id) || {}).find(([, seat]) => seat.token === c.token);
  if (held) return Number(held[0]);
  const { data } = await api.getGame(c.game_id, c.token);
  saveSeat(c.game_id, data.variant || c.variant, data.viewer, c.token, c.name);
  renderMyGames();
  return data.viewer;
}

/** Open the accepted game at its table, the token saved as its seat first. */
async function openGame(event, c) {
  event.preventDefault();
  try {
    const seat = await seatChallengeGame(c);
    location.assign(`/play/${c.game_id}#seat=${seat}`);
  } catch (err) {
    $("#challenge-error").textContent = `Could not open the game: ${describeError(err)}`;
  }
}

/** Take back a pending challenge on the server (the token it gave proves who made it). */
async function withdraw(c, button) {
  const out = $("#challenge-error");
  out.textContent = "";
  button.disabled = true;
  try {
    const { data } = await api.withdrawChallenge(c.challenge_id, c.token);
    updateChallenge(data);
  } catch (err) {
    if (err instanceof api.ApiError && err.code === "challenge_not_pending") {
      // the bot answered first: show what it said
      try { updateChallenge((await api.getChallenge(c.challenge_id)).data); } catch { /* the poll will */ }
    }
    out.textContent = `The challenge could not be withdrawn: ${describeError(err)}`;
  }
  renderMyChallenges();
}

/** Ask after every pending challenge until none is left pending. */
function watchChallenges() {
  if (challengePoll !== null) return;
  const look = async () => {
    const pending = myChallenges().filter((c) => c.status === "pending");
    for (const c of pending) {
      try {
        const { data } = await api.getChallenge(c.challenge_id);
        if (data.status !== c.status || data.match_id !== c.match_id || data.game_id !== (c.game_id || null)) {
          updateChallenge(data);
          if (data.game_id) {
            try { await seatChallengeGame({ ...c, game_id: data.game_id }); } catch { /* the link saves it */ }
          }
          renderMyChallenges();
        }
      } catch (err) {
        if (err instanceof api.ApiError && err.status === 404) {
          updateChallenge({ challenge_id: c.challenge_id, status: "gone", match_id: null });
          renderMyChallenges();
        }
      }
    }
    challengePoll = myChallenges().some((c) => c.status === "pending") ? setTimeout(look, CHALLENGE_POLL_MS) : null;
  };
  challengePoll = setTimeout(look, 0);
}

const yourName = $("#your-name");
yourName.value = localStorage.getItem("ginbox.name") || "";
yourName.addEventListener("change", () => {
  // an empty name is not kept: each seat then takes its default (defaultName)
  if (yourName.value.trim()) localStorage.setItem("ginbox.name", yourName.value.trim());
  else localStorage.removeItem("ginbox.name");
  const first = form.elements.name0;
  if (first && form.elements.seat0.value === "you") first.value = yourName.value.trim();
});
form.addEventListener("submit", onCreate);
challengeForm.addEventListener("submit", onChallenge);
/** The boards only count for a match. */
function onChallengeKind() {
  challengeForm.elements.boards.disabled = challengeForm.elements.kind.value !== "match";
}
for (const radio of challengeForm.elements.kind) radio.addEventListener("change", onChallengeKind);
onChallengeKind();
/** The third player only counts for three-hand: hidden (and out of the form) for gin rami. */
function onChallengeVariant() {
  const three = challengeForm.elements.variant.value === "three-hand";
  $("#challenge-with-row").hidden = !three;
  challengeForm.elements.with.disabled = !three;
  renderBotNames();
}
for (const radio of challengeForm.elements.variant) radio.addEventListener("change", onChallengeVariant);
onChallengeVariant();
challengeForm.elements.name.value = yourName.value;
yourName.addEventListener("change", () => {
  if (!challengeForm.elements.name.value.trim()) challengeForm.elements.name.value = yourName.value.trim();
});
for (const radio of form.elements.variant) radio.addEventListener("change", renderSeatRows);
$("#filter-form").addEventListener("submit", (e) => { e.preventDefault(); loadGames(); });
$("#more-games").addEventListener("click", () => loadGames(true));
renderSeatRows();
renderMyGames();
renderMyChallenges();
watchChallenges();
loadBotNames();
loadGames();
