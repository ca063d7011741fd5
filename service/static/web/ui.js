// Pieces shared by the pages: elements, names, a hand's
// result explained line by line, the score sheet.
import { cardList, label, short, sortCards, sortMeld } from "./cards.js";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

/**
 * A refusal as sentences for people: the problem's detail and code, then each field's messages as
 * "boards: must be …" (a nested field's path joined with dots, "decks.0: …"), never the raw JSON.
 */
export function problemText(err) {
  if (!err || !err.problem) return String((err && err.message) || err);
  const fields = [];
  const walk = (path, value) => {
    if (Array.isArray(value)) {
      for (const item of value) walk(path, item);
    } else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) walk(key === "_schema" ? path : [...path, key], inner);
    } else if (value !== null && value !== undefined && String(value).trim()) {
      let text = String(value).trim();
      if (!/[.!?]$/.test(text)) text += ".";
      if (!path.length) { fields.push(text); return; }
      // "Must be …" reads on after "boards:" as "must be …"; "JSON …" keeps its capitals
      if (/^[A-Z][a-z]/.test(text)) text = text[0].toLowerCase() + text.slice(1);
      fields.push(`${path.join(".")}: ${text}`);
    }
  };
  walk([], err.problem.errors);
  const code = err.code ? ` [${err.code}]` : "";
  if (!fields.length) return `${err.message}${code}`;
  // the detail, its code, a full stop, then a sentence per field
  return `${String(err.message).replace(/[\s.:]+$/, "")}${code}. ${fields.join(" ")}`;
}

/** A seat's name, once: a bot's kind is said beside it only where its box shows it (botKind). */
export function playerName(view, seat) {
  const p = view.players && view.players[seat];
  if (!p) return `seat ${seat + 1}`; // seats counted from 1, as people count them
  return p.name;
}

/** A built-in bot's kind ("expert bot"), or "" for a person or a bot whose name already says its kind. */
export function botKind(view, seat) {
  const p = view.players && view.players[seat];
  if (!p || !p.bot) return "";
  return String(p.name).toLowerCase().includes(String(p.bot).toLowerCase()) ? "" : `${p.bot} bot`;
}

/**
 * The name a seat is given when the person leaves theirs empty: "player 1" at the first seat (seat
 * 0 on the wire; people count seats from 1), wherever the seat is taken (created in the lobby,
 * joined there, or claimed by invitation). A default is never kept as this browser's name: only a
 * name typed is.
 */
export const defaultName = (seat) => `player ${seat + 1}`;

export const cardsText = (cards) => (cards.length ? cards.map(short).join(" ") : "none");
export const cardsSpoken = (cards) => cards.map(label).join(", ");

const OUTCOME = { knock: "knock", undercut: "undercut", gin: "gin", big_gin: "big gin" };

/** How a finished hand scored, as sentences (the server's points are the truth; this explains them). */
export function resultLines(view, r) {
  const name = (s) => playerName(view, s);
  if (r.outcome === "drawn") {
    return [`Hand ${r.hand_no} was drawn (${r.reason === "turn_limit" ? "the turn limit was reached" : "the stock ran out"}): nobody scores.`];
  }
  const o = view.options;
  const lines = [];
  const kind = r.outcome === "big_gin" ? "went big gin" : r.outcome === "gin" ? "went gin" : "knocked";
  lines.push(`${name(r.knocker)} ${kind}${r.discard ? `, discarding ${label(r.discard)}` : ""}, with ${r.knocker_deadwood} deadwood` +
    `${r.knocker_deadwood_cards.length ? ` (${cardsText(sortCards(r.knocker_deadwood_cards))})` : ""}.`);
  // each lay-off names the meld as it is then, with the cards laid off on it before
  const grown = r.knocker_melds.map((m) => [...m]);
  for (const [card, meld] of r.layoffs) {
    lines.push(`${name(r.defender)} laid off ${label(card)} on ${name(r.knocker)}'s meld ${cardsText(sortMeld(grown[meld]))}.`);
    grown[meld].push(card);
  }
  lines.push(`${name(r.defender)} kept ${r.defender_melds.length ? `melds ${r.defender_melds.map((m) => cardsText(sortMeld(m))).join(", ")}` : "no meld"}` +
    ` and ${r.defender_deadwood} deadwood${r.defender_deadwood_cards.length ? ` (${cardsText(sortCards(r.defender_deadwood_cards))})` : ""}.`);
  let sum;
  if (r.outcome === "knock") sum = `${r.defender_deadwood} − ${r.knocker_deadwood}`;
  else if (r.outcome === "undercut") sum = `${o.undercut_bonus} + (${r.knocker_deadwood} − ${r.defender_deadwood})`;
  else {
    const bonus = r.outcome === "big_gin" ? o.big_gin_bonus : o.gin_bonus;
    sum = o.gin_adds_deadwood ? `${bonus} + ${r.defender_deadwood}` : `${bonus}`;
  }
  const how = r.outcome === "undercut" ? `undercut: ${name(r.winner)} scores` : `${OUTCOME[r.outcome]}: ${name(r.winner)} scores`;
  lines.push(`${how[0].toUpperCase()}${how.slice(1)} ${sum} = ${r.points}.`);
  lines.push(`Scores: ${r.scores.map((s, i) => `${name(i)} ${s}`).join(", ")}${r.hollywood ? " (the three games added up)" : ""}.`);
  if (r.hollywood) lines.push(...hollywoodLines(view, r));
  return lines;
}

// -- Hollywood (RULES.md §5): three games scored at once -------------------------------------------

/** Whether the game scores three games at once. */
export const isHollywood = (view) => Boolean(view.hollywood);

/** "game 1", "games 1 and 2", "games 1, 2 and 3" */
export function gamesText(numbers) {
  if (numbers.length === 1) return `game ${numbers[0]}`;
  return `games ${numbers.slice(0, -1).join(", ")} and ${numbers[numbers.length - 1]}`;
}

/** Where a won hand of a Hollywood game went, and the games it ended, as sentences. */
function hollywoodLines(view, r) {
  const h = r.hollywood;
  const lines = [h.entered.length ? `Hollywood: the hand goes into ${gamesText(h.entered)}.`
    : `Hollywood: the hand goes into no game: those ${playerName(view, r.winner)}'s win would go into are over.`];
  for (const g of h.ended) {
    lines.push(`Game ${g} is over: ${playerName(view, r.winner)} wins it, ${h.scores[g - 1].join("–")} with its bonuses.`);
  }
  return lines;
}

/**
 * A Hollywood game won: "bob wins the three games added up, 382 to 150 (games 1 and 2 to bob, game 3
 * to ann)."; on equal sums, the player who won two games of three wins (RULES.md §5). Told to the
 * seat ``you`` (a player's own page), that seat is "you": "You win ...", "game 3 to you".
 */
export function hollywoodEnd(view, you = null) {
  const name = (s) => (s === you ? "you" : playerName(view, s));
  const games = view.hollywood.games;
  const by = view.players.map((_, i) => games.filter((g) => g.winner === i).map((g) => g.game))
    .map((won, i) => (won.length ? `${gamesText(won)} to ${name(i)}` : null)).filter(Boolean);
  const other = view.scores.findIndex((_, i) => i !== view.winner);
  const tie = view.scores[view.winner] === view.scores[other] ? ": equal sums, and more games won" : "";
  const wins = view.winner === you ? "You win" : `${name(view.winner)} wins`;
  return `${wins} the three games added up, ${view.scores[view.winner]} to ${view.scores[other]}` +
    `${tie} (${by.join(", ")}).`;
}

/** A Hollywood cell's two scores ("27–54"), kept on one line. */
const pair = (scores) => el("span", { class: "score-pair", text: scores.join("–") });

/**
 * The row that stands for the hands a sheet could not read (the view holds only the latest results,
 * sheet.js reads the others): null when the sheet holds every hand.
 */
function missingRow(view, columns, more = "") {
  const from = view.hand_results_from || 0;
  if (!from) return null;
  return el("tr", { class: "missing", id: "score-sheet-missing" }, el("th", { scope: "row", text: from > 1 ? `1–${from}` : "1" }),
    el("td", { colspan: String(columns), text: `Not shown: ${from === 1 ? "the first hand" : `the first ${from} hands`} could not be read.${more}` }));
}

/** "ann–bob": the order of the two scores in a Hollywood cell. */
const pairHead = (view) => view.players.map((_, i) => playerName(view, i)).join("–");

/**
 * The Hollywood score sheet: one row per finished hand with each game's running hand points where
 * the hand went (and the game it ended), then each game as it stands and the three added up; below
 * it, each game's bonuses and where each player's next win goes.
 */
function hollywoodSheet(view) {
  const name = (s) => playerName(view, s);
  const wrap = el("div", { class: "table-wrap" });
  const table = el("table", { id: "score-sheet", class: "hollywood" });
  table.append(el("caption", { text: `Score sheet (Hollywood: three games at once, each to ${view.options.target_score})` }));
  const head = el("tr", {}, el("th", { scope: "col", text: "Hand" }), el("th", { scope: "col", text: "Result" }));
  for (let g = 1; g <= 3; g += 1) head.append(el("th", { scope: "col" }, `Game ${g}`, el("br"), el("small", { text: pairHead(view) })));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const points = [0, 1, 2].map(() => view.players.map(() => 0));
  const missing = missingRow(view, 4, " The points in the games below count only the hands shown.");
  if (missing) body.append(missing);
  for (const r of view.hand_results) {
    const won = r.outcome !== "drawn" && r.hollywood;
    const where = won ? (r.hollywood.entered.length ? ` → ${gamesText(r.hollywood.entered)}` : " → no game") : "";
    const row = el("tr", { "data-hand": String(r.hand_no) }, el("th", { scope: "row", text: String(r.hand_no) }),
      el("td", { text: r.outcome === "drawn" ? "drawn" : `${OUTCOME[r.outcome]}: ${name(r.winner)} +${r.points}${where}` }));
    for (let g = 1; g <= 3; g += 1) {
      const cell = el("td");
      if (won && r.hollywood.entered.includes(g)) {
        points[g - 1][r.winner] += r.points;
        cell.className = "entered";
        cell.append(pair(points[g - 1]), r.hollywood.ended.includes(g) ? `, over: ${name(r.winner)}` : "");
      }
      row.append(cell);
    }
    body.append(row);
  }
  const games = view.hollywood.games;
  const total = el("tr", { class: "total" }, el("th", { scope: "row", text: "Now" }),
    el("td", { text: `the three added up: ${view.scores.map((s, i) => `${name(i)} ${s}`).join(", ")}` }));
  for (const game of games) {
    total.append(el("td", { "data-game": String(game.game) }, pair(game.scores), game.over ? `, ${name(game.winner)} wins` : ", open"));
  }
  body.append(total);
  table.append(body);
  wrap.append(table, hollywoodNotes(view));
  return wrap;
}

/** Each game's end and bonuses, or that it is open; and where each player's next win goes. */
function hollywoodNotes(view) {
  const name = (s) => playerName(view, s);
  const both = (list) => list.join("–");
  const ul = el("ul", { id: "hollywood-games", class: "score-lines" });
  for (const game of view.hollywood.games) {
    let text = `Game ${game.game}: open, ${both(game.hand_points)} in hand points.`;
    if (game.over) {
      text = `Game ${game.game}: ${name(game.winner)} wins, ${both(game.scores)}`;
      const b = game.bonuses;
      if (b) {
        const parts = [`hand points ${both(b.hand_points)}`];
        if (b.box_bonus.some(Boolean)) parts.push(`box bonuses ${both(b.box_bonus)}`);
        if (b.game_bonus.some(Boolean)) parts.push(`game bonus ${Math.max(...b.game_bonus)}`);
        if (b.shutout_bonus.some(Boolean)) parts.push(`shutout bonus ${Math.max(...b.shutout_bonus)}`);
        if (b.shutout_doubling.some(Boolean)) parts.push("a shutout: doubled");
        text += ` (${parts.join(", ")})`;
      }
      text += ".";
    }
    ul.append(el("li", { "data-game": String(game.game), text }));
  }
  if (view.status === "playing") {
    const next = view.hollywood.next_win_enters.map((games, i) =>
      `${name(i)}'s into ${games.length ? gamesText(games) : "no game"}`);
    ul.append(el("li", { id: "hollywood-next", text: `The next win goes: ${next.join("; ")}.` }));
  }
  return ul;
}

/** Both hands of a finished hand laid out (unless ``hands`` is false: shown elsewhere), and its score line by line. */
export function resultSection(view, r, { headingId = "result-h", hands = true } = {}) {
  const box = el("div", { class: "result" });
  box.append(el("h2", { id: headingId, text: `Hand ${r.hand_no}: ${r.outcome === "drawn" ? "drawn" : OUTCOME[r.outcome]}` }));
  if (r.outcome !== "drawn" && hands) {
    const grid = el("div", { class: "hands-grid" });
    const knocker = el("div", {}, el("h3", { text: `${playerName(view, r.knocker)} — ${r.outcome === "gin" || r.outcome === "big_gin" ? "gin" : "knocker"}` }));
    r.knocker_melds.forEach((m, i) => {
      const laid = r.layoffs.filter(([, j]) => j === i).map(([c]) => c);
      const group = el("div", { class: "group meld" }, el("span", { class: "tag", text: `Meld ${i + 1}${laid.length ? ` + laid off ${cardsText(laid)}` : ""}` }),
        cardList(sortMeld([...m, ...laid]), { label: `meld ${i + 1}${laid.length ? `, with ${cardsSpoken(laid)} laid off` : ""}` }));
      knocker.append(group);
    });
    knocker.append(el("div", { class: "group deadwood" }, el("span", { class: "tag", text: `Deadwood ${r.knocker_deadwood}` }),
      cardList(sortCards(r.knocker_deadwood_cards), { label: "deadwood" })));
    const defender = el("div", {}, el("h3", { text: `${playerName(view, r.defender)} — defender` }));
    r.defender_melds.forEach((m, i) => defender.append(el("div", { class: "group meld" },
      el("span", { class: "tag", text: `Meld ${i + 1}` }), cardList(sortMeld(m), { label: `meld ${i + 1}` }))));
    defender.append(el("div", { class: "group deadwood" }, el("span", { class: "tag", text: `Deadwood ${r.defender_deadwood}` }),
      cardList(sortCards(r.defender_deadwood_cards), { label: "deadwood" })));
    grid.append(knocker, defender);
    box.append(grid);
  }
  const ol = el("ol", { class: "score-lines" });
  for (const line of resultLines(view, r)) ol.append(el("li", { text: line }));
  box.append(ol);
  return box;
}

/**
 * What the creator of a game not randomly dealt chose of its deal, in words, from the public data
 * of its game_created event (``created``, or null when it could not be read). Roles and a first
 * dealer are public; decks given stay secret until the game is over, so a game with neither roles
 * nor a first dealer was given decks, and one with either may have been given decks as well.
 */
export function notRandomText(created, decksGiven) {
  const d = (created && created.data) || null;
  // an imported game (POST /games/import) was dealt and played by another program, not by a creator here
  if (d && d.imported_from) {
    const by = d.imported_from === "openspiel" ? "OpenSpiel" : d.imported_from;
    return `Imported: ${by} dealt and played this game, so no commitment of this server covers its deals.`;
  }
  if (!d) return "Not randomly dealt: the creator chose the decks, the roles or who deals first; with decks, the creator may know every card.";
  const chose = [];
  if (d.roles) chose.push("the roles (box, captain and advisor)");
  if (d.first_dealer !== null && d.first_dealer !== undefined) chose.push("who deals first");
  if (!chose.length) return "Not randomly dealt: the creator chose the decks, so the creator may know every card.";
  const instead = `Not randomly dealt: the creator chose ${chose.join(" and ")} instead of a cut.`;
  // the view's decks_given says whether decks came too (a server before it said nothing of them)
  if (decksGiven === true) return `${instead} The creator also chose the decks, so the creator may know every card.`;
  if (decksGiven === false) return `${instead} The cards come from the seeds, as in a random deal.`;
  return `${instead} The cards come from the seeds ` +
    "unless the creator also gave decks, which stay secret until the game is over: then the creator may know every card.";
}

/** Whether the game is a board of a duplicate match: one hand, whatever its score. */
export const isMatchBoard = (view) => view.players.some((p) => p && p.match);

/** The score sheet: one row per finished hand, with the running totals. */
export function scoreSheet(view) {
  if (isHollywood(view)) return hollywoodSheet(view);
  const n = view.players.length;
  const wrap = el("div", { class: "table-wrap" });
  const table = el("table", { id: "score-sheet" });
  const target = isMatchBoard(view) ? "one hand, a match board" : `game to ${view.options.target_score}`;
  table.append(el("caption", { text: `Score sheet (${target})` }));
  const head = el("tr", {}, el("th", { scope: "col", text: "Hand" }), el("th", { scope: "col", text: "Result" }));
  for (let i = 0; i < n; i += 1) head.append(el("th", { scope: "col", text: playerName(view, i) }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const missing = missingRow(view, n + 1);
  if (missing) body.append(missing);
  for (const r of view.hand_results) {
    const row = el("tr", {}, el("th", { scope: "row", text: String(r.hand_no) }),
      el("td", { text: r.outcome === "drawn" ? "drawn" : `${OUTCOME[r.outcome]}: ${playerName(view, r.winner)} +${r.points}` }));
    for (let i = 0; i < n; i += 1) row.append(el("td", { text: r.outcome === "drawn" ? "" : String(r.scores[i]) }));
    body.append(row);
  }
  const total = el("tr", { class: "total" }, el("th", { scope: "row", text: "Now" }), el("td", { text: "" }));
  for (let i = 0; i < n; i += 1) total.append(el("td", { text: String(view.scores[i]) }));
  body.append(total);
  table.append(body);
  wrap.append(table);
  return wrap;
}
