// The lobby's "Challenge a bot account": the form (to which account, which variant, a game or a
// match, the bot's time a move), and "Your challenges", looked after until the bot answers; an
// accepted game's seat is kept as this browser's.
import * as api from "./api.js";
import { describeError } from "./lobby-games.js";
import { fillPresets } from "./lobby-rules.js";
import { renderMyGames } from "./lobby-yours.js";
import { forgetChallenge, myChallenges, saveChallenge, saveSeat, seatsOf, updateChallenge } from "./seats.js";
import { el } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
const challengeForm = $("#challenge-form");
/** Seconds between two looks at the challenges still pending. */
const CHALLENGE_POLL_MS = 2000;
let challengePoll = null;

/** The built-in policies a three-hand challenge may name as its third player, weakest first. */
const POLICIES = ["random", "simple", "basic", "advanced", "expert"];
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

/** The POST /challenges body the form asks for. */
function challengeBody() {
  const f = challengeForm.elements;
  const body = { to: f.to.value.trim(), variant: f.variant.value, name: $("#your-name").value.trim() };
  // three-hand names its third participant; gin-rami names none
  if (body.variant === "three-hand") body.with = [f.with.value.trim()];
  if (f.rules.value) body.rules = f.rules.value;
  // a single game has no boards: without them the challenge is to one game
  const boards = f.boards.value.trim();
  if (f.kind.value === "match") body.boards = boards === "" ? NaN : Number(boards);
  const moveTime = f.move_time_s.value.trim();
  if (moveTime !== "") body.move_time_s = Number(moveTime);
  return body;
}

/** Check the form, then send the challenge and keep it in "Your challenges". */
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
  if (!body.name) { out.textContent = "Say your name (Your name, at the top): the bot and anyone watching see you by it."; return; }
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

/** Where a challenge stands, in words, or the link to the game or match it became. */
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

/** The list of this browser's challenges, each with where it stands. */
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

/** The boards only count for a match. */
function onChallengeKind() {
  challengeForm.elements.boards.disabled = challengeForm.elements.kind.value !== "match";
}

/** The third player only counts for three-hand: hidden (and out of the form) for gin rami; the presets follow. */
function onChallengeVariant() {
  const three = challengeForm.elements.variant.value === "three-hand";
  $("#challenge-with-row").hidden = !three;
  challengeForm.elements.with.disabled = !three;
  fillPresets(challengeForm.elements.rules, challengeForm.elements.variant.value);
  renderBotNames();
}

/**
 * Wire the form (the boards follow the kind, the third player the variant; you play under Your name),
 * then list this browser's challenges, look after the pending ones, and offer the rated bots.
 */
export function setUpChallenges() {
  challengeForm.addEventListener("submit", onChallenge);
  for (const radio of challengeForm.elements.kind) radio.addEventListener("change", onChallengeKind);
  onChallengeKind();
  for (const radio of challengeForm.elements.variant) radio.addEventListener("change", onChallengeVariant);
  onChallengeVariant();
  renderMyChallenges();
  watchChallenges();
  loadBotNames();
}
