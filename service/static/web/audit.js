// An independent fairness auditor for a finished game, in the browser: it checks the revealed
// seed against the commitment published at creation and re-derives every deck and every cut
// from the seed, byte by byte, with WebCrypto (HMAC-SHA256 and SHA-256), as the algorithm in
// service/rules/fairness.py specifies (the numbered steps below are its steps), with a game's
// derivation 1 (the server's seed alone) or 2 (the server's seed and every seat's client seed,
// step 6; service/docs/FAIRNESS.md). It shares no code with the server;
// service/docs/fairness-vectors.json holds the vectors both must match.
//
//   import auditGame, { auditExport } from "/web/audit.js";
//   const checks = await auditGame(id);  // fetches GET /games/{id}/export, then auditExport(text)
//   // [{name: "commitment", passed: true, detail: "..."}, {name: "deal_1", ...}, ...]

export const DECK_LABEL = "ginbox/deck/";
export const CUT_LABEL = "ginbox/cut/";
export const KEY_LABEL_V2 = "ginbox/deal-key/v2";
/** The client seed of a seat that sent none. */
export const DEFAULT_CLIENT_SEED = "";
const RANKS = "A23456789TJQK";
/** The 52 codes in card-index order: AC 2C .. KC AD .. KD AH .. KH AS .. KS. */
export const ORDERED_DECK = [..."CDHS"].flatMap((suit) => [...RANKS].map((rank) => rank + suit));

/** Lowercase hex of bytes. */
export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The bytes of a seed given as hex (as the export writes it) or as a Uint8Array. */
export function seedBytes(seed) {
  if (seed instanceof Uint8Array) return seed;
  if (typeof seed !== "string" || !/^([0-9a-fA-F]{2})+$/.test(seed)) {
    throw new Error("a seed is an even number of hex digits, at least two");
  }
  return Uint8Array.from(seed.match(/../g), (pair) => parseInt(pair, 16));
}

/** The commitment of a seed: its SHA-256, lowercase hex. */
export async function commitment(seed) {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", seedBytes(seed))));
}

/** Step 1, the message of block k: label (ASCII), number and k, each as 8 bytes big-endian. */
export function blockMessage(label, number, k) {
  const text = new TextEncoder().encode(label);
  const message = new Uint8Array(text.length + 16);
  message.set(text);
  const view = new DataView(message.buffer);
  view.setBigUint64(text.length, toUint64(number));
  view.setBigUint64(text.length + 8, toUint64(k));
  return message;
}

function toUint64(n) {
  const big = BigInt(n); // throws on a fraction or a non-number
  if (big < 0n || big >= 1n << 64n) throw new RangeError(`${n} does not fit 8 unsigned bytes`);
  return big;
}

/**
 * Step 1, the byte stream of (seed, label, number): block k is HMAC-SHA256(key = seed,
 * message = blockMessage(label, number, k)); the stream is block 0, block 1, ... one byte at
 * a time. `await stream.next()` is the next byte; `stream.read` counts the bytes read.
 */
export function byteStream(seed, label, number) {
  const key = crypto.subtle.importKey("raw", seedBytes(seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  let block = new Uint8Array(0);
  let k = 0;
  return {
    read: 0,
    async next() {
      const offset = this.read % 32;
      if (offset === 0) {
        block = new Uint8Array(await crypto.subtle.sign("HMAC", await key, blockMessage(label, number, k)));
        k += 1;
      }
      this.read += 1;
      return block[offset];
    },
  };
}

/**
 * Step 2, a uniform integer in [0, n), 2 <= n <= 52: read a byte b; if b >= 256 - (256 % n),
 * reject it and read the next; otherwise the result is b % n. Rejected bytes are pushed onto
 * `rejected` when it is given.
 */
export async function uniform(stream, n, rejected = null) {
  const limit = 256 - (256 % n);
  for (;;) {
    const b = await stream.next();
    if (b < limit) return b % n;
    if (rejected) rejected.push(b);
  }
}

/**
 * Step 3, Fisher-Yates: from card-index order, for i from 51 down to 1, j = uniform in
 * [0, i + 1) and swap positions i and j. The result is the deck, top card first.
 */
export async function shuffle(seed, label, number) {
  const stream = byteStream(seed, label, number);
  const deck = [...ORDERED_DECK];
  for (let i = 51; i >= 1; i -= 1) {
    const j = await uniform(stream, i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/**
 * Step 6, the input of derivation 2's key: the label (ASCII), the server seed's length as 4 bytes
 * big-endian and the seed, the number of seats as 1 byte, then each seat's client seed (null:
 * the default, the empty text) as UTF-8, its byte length first as 2 bytes big-endian.
 */
export function dealKeyInput(seed, clientSeeds) {
  const encoder = new TextEncoder();
  const seedData = seedBytes(seed);
  const texts = clientSeeds.map((c) => encoder.encode(c == null ? DEFAULT_CLIENT_SEED : c));
  const parts = [encoder.encode(KEY_LABEL_V2), u32(seedData.length), seedData, Uint8Array.of(clientSeeds.length)];
  for (const text of texts) parts.push(Uint8Array.of(text.length >> 8, text.length & 0xff), text);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function u32(n) {
  return Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

/** Step 6: the key decks and cuts derive from: derivation 1, the seed; 2, SHA-256(dealKeyInput). */
export async function dealKey(derivation, seed, clientSeeds) {
  if (derivation === 1) return seedBytes(seed);
  if (derivation !== 2) throw new Error(`unknown derivation ${derivation}`);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", dealKeyInput(seed, clientSeeds)));
}

/** Whether `value` is a client seed the server accepts: text of 1 to 64 characters, no control character. */
export function isClientSeed(value) {
  return typeof value === "string" && [...value].length >= 1 && [...value].length <= 64
    && !/[\p{Cc}\p{Cs}]/u.test(value);
}

/** Step 4: the deck of hand `handNo` (1-based), top card first. */
export function deckForHand(seed, handNo) {
  return shuffle(seed, DECK_LABEL, handNo);
}

/** Step 5: the cards cut in round `roundNo` (0-based) by `count` players, in seat order. */
export async function cutCards(seed, roundNo, count) {
  return (await shuffle(seed, CUT_LABEL, roundNo)).slice(0, count);
}

/**
 * Step 5, the whole cutting: round 0 is cut by `seats`; players who tie on rank (ace low, king
 * high) cut again in the next round, tied groups from the highest rank down. Returns the
 * rounds ({round, seats, cards}) and the seats from highest cut to lowest.
 */
export async function cutting(seed, seats) {
  const rounds = [];
  async function order(group) {
    const round = rounds.length;
    const cards = await cutCards(seed, round, group.length);
    rounds.push({ round, seats: group, cards });
    const rankOf = new Map(group.map((seat, i) => [seat, RANKS.indexOf(cards[i][0])]));
    const out = [];
    for (const rank of [...new Set(rankOf.values())].sort((a, b) => b - a)) {
      const tied = group.filter((seat) => rankOf.get(seat) === rank);
      out.push(...(tied.length === 1 ? tied : await order(tied)));
    }
    return out;
  }
  const ranked = await order(seats);
  return { rounds, order: ranked };
}

// -- the audit of an export ------------------------------------------------------------------

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
/** The events that end a game; each reveals the seed. */
export const ENDINGS = ["game_ended", "game_resigned", "game_abandoned", "game_expired"];

function firstDifference(got, want) {
  if (!Array.isArray(got)) return "the log holds no list of cards";
  if (got.length !== want.length) return `${got.length} cards in the log, ${want.length} expected`;
  const i = got.findIndex((card, k) => card !== want[k]);
  return `card ${i + 1} is ${got[i]} in the log, ${want[i]} from the seed`;
}

/** The events of an export's text (NDJSON), in version order; advice lines are left out. */
export function parseExport(exportText) {
  const events = [];
  exportText.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    let record;
    try {
      record = JSON.parse(line);
    } catch (err) {
      throw new Error(`line ${i + 1} is not JSON`);
    }
    if (record === null || typeof record !== "object" || typeof record.type !== "string") {
      throw new Error(`line ${i + 1} is no event`);
    }
    if (!("at_version" in record)) events.push(record); // advice is no event of the log
  });
  return events;
}

/**
 * Audit the text of `GET /games/{id}/export`: the checks, each {name, passed, detail}.
 *
 * "log": the lines parse, their versions run 1, 2, 3 ..., the first is game_created and the
 * last ends the game (ENDINGS); "seed_recorded": the seed the end reveals is the one recorded
 * at creation; "commitment": its SHA-256 is the commitment published at creation;
 * "derivation": the game's derivation is 1 or 2; "client_seeds" (derivation 2): each seat's
 * client seed is valid, sent once, before the first cut or deal (the key of the cuts and deals
 * is then step 6's);
 * "randomly_dealt_flag": the flag says whether decks, roles or a first dealer were given;
 * "cut_<r>": the cards of each round of cutting; "cut_outcome": the rounds, and the roles or
 * first dealer, follow from the cuts; "deal_<n>": each hand's deck is the seed's (or the
 * explicit one given at creation); "deals", only when nothing was dealt: whether the game
 * ended before it started. A game imported from another program's record (its game_created says
 * `imported_from`) has only "log" and "origin": its deals were not made by this server.
 */
export async function auditExport(exportText) {
  const checks = [];
  const check = (name, passed, detail) => checks.push({ name, passed: Boolean(passed), detail });

  let events;
  try {
    events = parseExport(exportText);
  } catch (err) {
    check("log", false, err.message);
    return checks;
  }
  const versionsInOrder = events.every((e, i) => e.version === i + 1);
  const created = events[0]?.type === "game_created" ? events[0].data || {} : null;
  const ended = ENDINGS.includes(events.at(-1)?.type) ? events.at(-1).data || {} : null;
  check("log", versionsInOrder && created && ended,
    !versionsInOrder ? "the versions do not run 1, 2, 3 ... in order"
      : !created ? "the log does not start with game_created"
        : !ended ? `the log does not end with ${ENDINGS.join(" or ")}: the seed is revealed only then`
          : `${events.length} events, from game_created to ${events.at(-1).type}`);
  if (!created || !ended) return checks;
  if (typeof created.imported_from === "string") {
    // dealt and played by another program (ginbox convert): no commitment was published before its
    // deals, so there is no seed to check them against; that is no fairness failure
    check("origin", true, `imported from ${created.imported_from}: dealt and played there, not by this server, so `
      + "no commitment was published before its deals and they cannot be checked against one (this is no "
      + "fairness failure); ginbox audit FILE replays every move and score by these rules");
    return checks;
  }

  const seed = ended.seed;
  try {
    seedBytes(seed);
  } catch (err) {
    check("seed_recorded", false, `${events.at(-1).type} reveals no seed: ${err.message}`);
    return checks;
  }
  check("seed_recorded", created.seed === seed,
    created.seed === seed ? `${events.at(-1).type} reveals the seed recorded at creation`
      : `the seed ${events.at(-1).type} reveals is not the one recorded at creation`);

  const digest = await commitment(seed);
  check("commitment", digest === created.commitment, `sha256(seed) = ${digest}; committed ${created.commitment}`);

  // the key of the cuts and deals: the seed (derivation 1), or mixed with the client seeds (2)
  const derivation = created.fairness ?? 1;
  check("derivation", derivation === 1 || derivation === 2,
    derivation === 2 ? "derivation 2: the server's seed and every seat's client seed"
      : derivation === 1 ? "derivation 1: the server's seed alone" : `unknown derivation ${derivation}`);
  if (derivation !== 1 && derivation !== 2) return checks;
  const nseats = Array.isArray(created.players) ? created.players.length : 0;
  const clientSeeds = Array(nseats).fill(null);
  let closed = false;
  if (derivation === 2) {
    const problems = [];
    let begun = false;
    for (const e of events) {
      if (["cards_cut", "hand_dealt", "roles_assigned", "dealer_chosen"].includes(e.type)) begun = true;
      if (e.type === "client_seeds_closed") closed = true;
      if (e.type !== "client_seed_sent") continue;
      const { seat, client_seed: text } = e.data || {};
      if (begun) problems.push(`seat ${seat}'s client seed came after the first cut or deal`);
      if (!Number.isInteger(seat) || seat < 0 || seat >= nseats) problems.push(`a client seed names seat ${seat}`);
      else if (clientSeeds[seat] !== null) problems.push(`seat ${seat} sent two client seeds`);
      else if (!isClientSeed(text)) problems.push(`seat ${seat}'s client seed is not 1 to 64 characters of text`);
      else clientSeeds[seat] = text;
    }
    check("client_seeds", problems.length === 0, problems.length ? problems.join("; ")
      : `client seeds ${clientSeeds.map((c, s) => `${s}: ${c === null ? "(default)" : JSON.stringify(c)}`).join(", ")}`);
  }
  const key = await dealKey(derivation, seed, clientSeeds);

  const decks = Array.isArray(created.decks) ? created.decks : [];
  const explicit = decks.length > 0 || created.roles != null || created.first_dealer != null;
  check("randomly_dealt_flag", created.randomly_dealt === !explicit,
    `randomly_dealt is ${created.randomly_dealt}; decks, roles or first dealer given: ${explicit}`);

  // the cuts: each logged round's cards, then the whole cutting replayed from the seed
  const cuts = events.filter((e) => e.type === "cards_cut").map((e) => e.data || {});
  for (const cut of cuts) {
    const name = `cut_${cut.round}`;
    try {
      const want = await cutCards(key, cut.round, cut.seats.length);
      check(name, same(cut.cards, want),
        same(cut.cards, want) ? `seats ${cut.seats.join(", ")} cut ${want.join(", ")}` : firstDifference(cut.cards, want));
    } catch (err) {
      check(name, false, `an unreadable cut: ${err.message}`);
    }
  }
  // a game starts when its last open seat is taken; then, unless roles or a first dealer were
  // given, it must have cut
  const open = (Array.isArray(created.players) ? created.players : []).flatMap((p, seat) => (p == null ? [seat] : []));
  const claimed = new Set(events.filter((e) => e.type === "seat_claimed").map((e) => e.data?.seat));
  // with a wait for client seeds (derivation 2), it starts once every human seat sent one or the wait closed
  const waits = derivation === 2 && created.options?.client_seed_wait_s != null;
  const players = events.reduce((ps, e) => {
    if (e.type === "seat_claimed" && Number.isInteger(e.data?.seat)) ps[e.data.seat] = e.data.player;
    return ps;
  }, Array.isArray(created.players) ? [...created.players] : []);
  const seedsIn = !waits || closed || players.every((p, seat) => (p && p.bot) || clientSeeds[seat] !== null);
  const started = open.every((seat) => claimed.has(seat)) && seedsIn;
  const mustCut = started && created.roles == null && created.first_dealer == null;
  const chosen = events.find((e) => e.type === "roles_assigned" || e.type === "dealer_chosen");
  if (mustCut || cuts.length || chosen?.data?.reason === "cut") {
    const threeHand = created.variant === "three-hand";
    const { rounds, order } = await cutting(key, threeHand ? [0, 1, 2] : [0, 1]);
    const roundsOk = same(cuts.map(({ round, seats, cards }) => ({ round, seats, cards })), rounds);
    const d = chosen?.data || {};
    const outcomeOk = threeHand
      ? chosen?.type === "roles_assigned" && same([d.box, d.captain, d.advisor], order)
      : chosen?.type === "dealer_chosen" && d.dealer === order.at(-1);
    const wanted = threeHand ? `box ${order[0]}, captain ${order[1]}, advisor ${order[2]}` : `seat ${order.at(-1)} deals first`;
    check("cut_outcome", roundsOk && outcomeOk && d.reason === "cut",
      !roundsOk ? `the seed gives ${rounds.length} round(s) of cutting; the log has ${cuts.length} that differ`
        : `the cuts give ${wanted}; the log says ${threeHand ? `box ${d.box}, captain ${d.captain}, advisor ${d.advisor}` : `seat ${d.dealer}`} (${d.reason})`);
  }

  // the deals: hands numbered 1, 2, 3 ...; the explicit decks first, the seed's after
  const deals = events.filter((e) => e.type === "hand_dealt").map((e) => e.data || {});
  for (const [i, deal] of deals.entries()) {
    const name = `deal_${deal.hand_no}`;
    try {
      if (deal.hand_no !== i + 1) {
        check(name, false, `hand ${i + 1} of the log is numbered ${deal.hand_no}`);
      } else if (deal.hand_no <= decks.length) {
        const want = decks[deal.hand_no - 1];
        const ok = deal.source === "explicit" && same(deal.deck, want);
        check(name, ok, ok ? "the explicit deck given at creation"
          : deal.source !== "explicit" ? `source ${deal.source}, but a deck was given at creation` : firstDifference(deal.deck, want));
      } else {
        const want = await deckForHand(key, deal.hand_no);
        const ok = deal.source === "seed" && same(deal.deck, want);
        check(name, ok, ok ? `the seed's deck of hand ${deal.hand_no}`
          : deal.source !== "seed" ? `source ${deal.source}, but no deck was given for this hand` : firstDifference(deal.deck, want));
      }
    } catch (err) {
      check(name, false, `an unreadable deal: ${err.message}`);
    }
  }
  if (!deals.length) {
    check("deals", !started, started ? "every seat was taken, yet the log holds no deal"
      : "the game ended before every seat was taken (or every client seed was in): nothing was dealt");
  }
  return checks;
}

/** Fetch a finished game's export from this page's server and audit it: the checks. */
export default async function auditGame(gameId) {
  const resp = await fetch(`/games/${encodeURIComponent(gameId)}/export`);
  if (!resp.ok) throw new Error(`GET /games/${gameId}/export answered ${resp.status}`);
  return auditExport(await resp.text());
}
