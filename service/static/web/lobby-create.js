// The lobby's "New game" form: the variant, who sits in each seat, the rules, a private game's
// invitations and fixed decks; checked here first, then created, and then on to the table (or, for a
// private game, to the links to pass on).
import * as api from "./api.js";
import { describeError, loadGames } from "./lobby-games.js";
import { fillPresets, preset } from "./lobby-rules.js";
import { renderMyGames } from "./lobby-yours.js";
import { inviteLink, saveInvites, saveSeat } from "./seats.js";
import { defaultName, el } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
const form = $("#create-form");
const SEAT_KINDS = [
  ["you", "You"], ["open", "Open seat (someone joins)"],
  // the built-in bots, weakest first
  ["bot:random", "Bot: random"], ["bot:simple", "Bot: simple"], ["bot:basic", "Bot: basic"],
  ["bot:advanced", "Bot: advanced"], ["bot:expert", "Bot: expert"],
];
/** Seconds the first deal waits for the client seeds of the seats this browser takes (then deals without them). */
const CLIENT_SEED_WAIT_S = 30;

function variant() {
  return form.elements.variant.value;
}

/**
 * Whether seat ``i`` is the first "You" seat: it sits under the lobby's one "Your name". A further
 * "You" seat (a second person at this screen) and a bot are named in their row; an open seat is
 * named by whoever joins.
 */
function firstYou(i) {
  for (let j = 0; j < i; j += 1) if (form.elements[`seat${j}`].value === "you") return false;
  return form.elements[`seat${i}`].value === "you";
}

/** What a seat row shows beside who sits there: a name field, or what its name will be. */
function showSeatName(i) {
  const kind = form.elements[`seat${i}`].value;
  const name = form.elements[`name${i}`];
  const box = $(`#seat${i}-name-box`);
  const note = $(`#seat${i}-note`);
  const mine = firstYou(i);
  const named = kind.startsWith("bot:") || (kind === "you" && !mine);
  box.hidden = !named;
  if (!named) name.value = "";
  // what an empty name becomes: a person's seat its default, a bot the name the server gives it
  name.placeholder = kind === "you" ? defaultName(i) : kind.startsWith("bot:") ? "the server names it" : "";
  const yours = $("#your-name").value.trim();
  note.textContent = mine ? `you, as ${yours || defaultName(i)} (Your name, above)`
    : kind === "open" ? "whoever joins names themselves" : "";
  note.hidden = !note.textContent;
}

/** Every seat row's name field or note, after a seat's kind or your name changed. */
function showSeatNames() {
  const n = variant() === "three-hand" ? 3 : 2;
  for (let i = 0; i < n; i += 1) showSeatName(i);
}

/**
 * A row per seat of the chosen variant: who sits there (you, an open seat, a built-in bot), and a
 * name for a bot or another person here. Seats are numbered from 1 for people; the fields keep the
 * wire's seat index (seat0-kind is the first seat).
 */
function renderSeatRows() {
  const rows = $("#seat-rows");
  rows.replaceChildren();
  const n = variant() === "three-hand" ? 3 : 2;
  for (let i = 0; i < n; i += 1) {
    const kind = el("select", { name: `seat${i}`, id: `seat${i}-kind` });
    for (const [value, text] of SEAT_KINDS) kind.append(el("option", { value, text }));
    kind.value = i === 0 ? "you" : "bot:basic";
    const name = el("input", { name: `name${i}`, id: `seat${i}-name`, maxlength: "40", autocomplete: "off" });
    kind.addEventListener("change", showSeatNames);
    rows.append(el("div", { class: "row seat-row" },
      el("label", { for: `seat${i}-kind`, text: `Seat ${i + 1}` }), kind,
      el("span", { id: `seat${i}-name-box` }, el("label", { for: `seat${i}-name`, text: "name " }), name),
      el("span", { id: `seat${i}-note`, class: "muted seat-note" })));
  }
  showSeatNames();
}

/** A rule field's number, or undefined when it is left empty. */
function optionalInt(name) {
  const raw = form.elements[name].value.trim();
  return raw === "" ? undefined : Number(raw);
}

/** The POST /games body the form asks for. */
function buildBody() {
  const n = variant() === "three-hand" ? 3 : 2;
  const seats = [];
  for (let i = 0; i < n; i += 1) {
    const kind = form.elements[`seat${i}`].value;
    // the first "You" seat is named by the lobby's "Your name"; any other seat by its own field
    const name = (firstYou(i) ? $("#your-name") : form.elements[`name${i}`]).value.trim();
    if (kind === "you") seats.push({ name: name || defaultName(i) });
    else if (kind === "open") seats.push(null);
    else seats.push(name ? { bot: kind.slice(4), name } : { bot: kind.slice(4) });
  }
  const body = { variant: variant(), seats };
  // a preset stands for its options; the fields filled in override it, as on the API
  if (form.elements.rules.value) body.rules = form.elements.rules.value;
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

/** No field is marked wrong any more. */
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

/** Check the form, create the game, and go to its table (or show a private game's invitations). */
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
    list.append(el("li", {}, el("label", { for: `invite-${seat}`, text: `Seat ${Number(seat) + 1}: ` }), input, " ", copy));
  }
  $("#go-to-table").href = table;
  $("#invitations").hidden = false;
  list.querySelector("input").focus();
}

/**
 * The rule fields under the chosen preset: empty, they show its target and knock limit; a preset that
 * plays Oklahoma takes the knock limit from the upcard, so that field is off.
 */
function showPreset() {
  const p = preset(form.elements.rules.value);
  const knock = form.elements.knock_limit;
  form.elements.target_score.placeholder = String(p ? p.target_score : 100);
  const byUpcard = Boolean(p) && p.knock_limit === null;
  knock.disabled = byUpcard;
  if (byUpcard) knock.value = "";
  knock.placeholder = byUpcard ? "by the upcard" : "10";
}

/** The variant's seats and presets. */
function onVariant() {
  renderSeatRows();
  fillPresets(form.elements.rules, variant());
  showPreset();
}

/** Wire the form (its seats and presets follow the variant, your seat your name), then draw its seat rows. */
export function setUpCreateForm() {
  $("#your-name").addEventListener("input", showSeatNames);
  form.addEventListener("submit", onCreate);
  for (const radio of form.elements.variant) radio.addEventListener("change", onVariant);
  form.elements.rules.addEventListener("change", showPreset);
  onVariant();
}
