// A bot account in TypeScript, on the types openapi-typescript generates from openapi.yaml
// (./ginbox-api.ts, written by build.sh) and the fetch client openapi-fetch makes of them.
//
// It registers an account, starts a gin-rami game against the built-in `basic` bot (first to
// 1 point), then plays from its stream, GET /bots/me/stream: each message's JSON is a
// BotStreamMessage, told apart by `type`, so the `switch` below hands each branch its own
// message type, with no cast. The default branch holds what no case took: `never`, as long as
// every kind the spec lists has its case.
//
//   node build/bot.js http://127.0.0.1:8000 [NAME] [SECONDS]
//
// At the end it prints one line of JSON: the account, the game, the moves it made, the kinds of
// message it read, and the game_over it was told of.
import createClient from "openapi-fetch";
import type { components, paths } from "./ginbox-api.js";

type BotStreamMessage = components["schemas"]["BotStreamMessage"];
type Move = components["schemas"]["Move"];

const base = process.argv[2] ?? "http://127.0.0.1:8000";
const name = process.argv[3] ?? `ts-${Math.random().toString(36).slice(2, 10)}`;
const seconds = Number(process.argv[4] ?? "60");
const RANKS = "A23456789TJQK";

/** Knock when allowed, else discard the highest card, else pass the upcard or draw from the stock. */
function choose(moves: Move[]): Move {
  const preference = (move: Move): number => {
    switch (move.type) {
      case "knock":
        return 100;
      case "discard":
        return 50 + RANKS.indexOf(move.card.charAt(0));
      case "pass_upcard":
      case "draw_stock":
        return 10;
      default:
        return 0;
    }
  };
  return moves.reduce((best, move) => (preference(move) > preference(best) ? move : best));
}

interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** The server-sent events of a body, one at a time (comments and keep-alives skipped). */
async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  let message: Partial<SseMessage> & { data?: string } = {};
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "");
      buffer = buffer.slice(end + 1);
      if (line === "") {
        if (message.data !== undefined) {
          yield { id: message.id, event: message.event, data: message.data };
        }
        message = {};
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") message.id = value;
      else if (field === "event") message.event = value;
      else if (field === "data") message.data = message.data === undefined ? value : `${message.data}\n${value}`;
    }
  }
}

const anyone = createClient<paths>({ baseUrl: base });
const registered = await anyone.POST("/bots", { body: { name, description: "a TypeScript bot" } });
if (!registered.data) throw new Error(`registering ${name}: ${JSON.stringify(registered.error)}`);
const token = registered.data.token;
const bot = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });

const created = await bot.POST("/games", {
  body: { variant: "gin-rami", seats: [{ account: name }, { bot: "basic" }], options: { target_score: 1 } },
});
if (!created.data) throw new Error(`creating the game: ${JSON.stringify(created.error)}`);
const gameId = created.data.game_id;

const stop = new AbortController();
const timer = setTimeout(() => stop.abort(), seconds * 1000);
const stream = await bot.GET("/bots/me/stream", { parseAs: "stream", signal: stop.signal });
if (!stream.data) throw new Error(`opening the stream: ${stream.response.status}`);

const seen: Record<string, number> = {};
let mismatched = 0; // messages whose `event:` line is not their data's `type`
let moves = 0;
let played = 0; // the last version the bot played from
let seat: number | null = null;
let gameOver: { version: number; seat: number; scores: number[] } | null = null;

/** One move at the seat's turn at `version` (none if that turn was played already). */
async function play(version: number): Promise<void> {
  if (version <= played) return;
  played = version;
  const view = await bot.GET("/games/{game_id}", { params: { path: { game_id: gameId } } });
  if (!view.data || view.data.legal_moves.length === 0) return;
  const answer = await bot.POST("/games/{game_id}/moves", {
    params: {
      path: { game_id: gameId },
      header: { "If-Match": `"${view.data.version}"`, "Idempotency-Key": `${gameId}-${view.data.version}` },
    },
    body: choose(view.data.legal_moves),
  });
  if (answer.data) moves += 1;
  // a 409 or 412 (the game moved on meanwhile) is no error: the stream tells of the next turn
  else if (answer.response.status !== 409 && answer.response.status !== 412) {
    throw new Error(`a move at version ${version}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
}

try {
  for await (const message of serverSentEvents(stream.data)) {
    const ev: BotStreamMessage = JSON.parse(message.data);
    seen[ev.type] = (seen[ev.type] ?? 0) + 1;
    if (message.event !== ev.type) mismatched += 1;
    switch (ev.type) {
      case "game_started":
        if (ev.game_id === gameId) seat = ev.seat;
        break;
      case "your_turn":
        if (ev.game_id === gameId) await play(ev.version);
        break;
      case "clock_moved":
        // too slow: the server moved for the seat (ev.moves); a your_turn follows if it is still to act
        break;
      case "game_over":
        if (ev.game_id === gameId) gameOver = { version: ev.version, seat: ev.seat, scores: ev.scores };
        break;
      case "match_started":
      case "match_over":
        break;
      case "challenge":
        await bot.POST("/challenges/{challenge_id}/decline", {
          params: { path: { challenge_id: ev.challenge_id } },
          body: { reason: "later" },
        });
        break;
      case "challenge_accepted":
      case "challenge_declined":
      case "challenge_withdrawn":
        break;
      default: {
        // every kind of BotStreamMessage has its case above, so none is left here
        const unheard: never = ev;
        throw new Error(`a message of no known kind: ${JSON.stringify(unheard)}`);
      }
    }
    if (gameOver) break;
  }
} catch (err) {
  if (!stop.signal.aborted) throw err;
} finally {
  clearTimeout(timer);
  stop.abort();
}

console.log(JSON.stringify({ name, game_id: gameId, seat, moves, seen, mismatched, game_over: gameOver }));
process.exit(gameOver ? 0 : 1);
