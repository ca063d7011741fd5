// Code that the generated types must refuse: tsc --strict fails on each line marked REFUSED, with
// the error code named there. Were BotStreamMessage `any`, none would fail; were it `unknown`,
// other errors would come. tests/contract/test_generated_ts_client.py checks exactly these.
import type { components } from "./ginbox-api.js";

type BotStreamMessage = components["schemas"]["BotStreamMessage"];

export function versionOf(ev: BotStreamMessage): number {
  return ev.version; // REFUSED TS2339: not every kind of message has a version
}

export function scoresOfATurn(ev: BotStreamMessage): number[] {
  if (ev.type === "your_turn") {
    return ev.scores; // REFUSED TS2339: a your_turn has no scores
  }
  return [];
}

export function kindOf(ev: BotStreamMessage): string {
  switch (ev.type) {
    case "game_started":
    case "your_turn":
    case "game_over":
    case "clock_moved":
    case "match_started":
    case "match_over":
    case "challenge":
    case "challenge_accepted":
    case "challenge_declined":
      return ev.type;
    default: {
      const unheard: never = ev; // REFUSED TS2322: challenge_withdrawn has no case
      return unheard;
    }
  }
}

export function notAKind(ev: BotStreamMessage): boolean {
  return ev.type === "your_move"; // REFUSED TS2367: no kind is called your_move
}
