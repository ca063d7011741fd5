// The lobby's "Play a bot now": one click creates a game of gin rami against the expert bot, with
// the standard rules, and opens its table with this browser in the first seat.
import * as api from "./api.js";
import { describeError } from "./lobby-games.js";
import { saveSeat } from "./seats.js";
import { defaultName } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
/** The bot "Play a bot now" sits you against: the strongest built-in one. */
const QUICK_BOT = "expert";
/** Seconds the first deal waits for this browser's client seed, as a game made in the form does. */
const CLIENT_SEED_WAIT_S = 30;

/** The POST /games body of a quick game: you (by your name) against the expert bot, the rules' defaults. */
export function quickBody() {
  const name = $("#your-name").value.trim() || defaultName(0);
  return {
    variant: "gin-rami", seats: [{ name }, { bot: QUICK_BOT }],
    options: { client_seed_wait_s: CLIENT_SEED_WAIT_S },
  };
}

/** Create the quick game, keep its seat's token, and go to its table. */
async function playBotNow() {
  const button = $("#play-bot-now");
  const out = $("#quick-error");
  out.textContent = "";
  button.disabled = true;
  try {
    const body = quickBody();
    const { data } = await api.createGame(body);
    const mine = data.seats.find((s) => s.token);
    saveSeat(data.game_id, body.variant, mine.seat, mine.token, mine.name);
    location.assign(`/play/${data.game_id}#seat=${mine.seat}`);
  } catch (err) {
    out.textContent = `The game was not created: ${describeError(err)}`;
    button.disabled = false;
  }
}

/** Wire the button. */
export function setUpQuickPlay() {
  $("#play-bot-now").addEventListener("click", playBotNow);
}
