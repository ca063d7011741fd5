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
  lines.push(`Scores: ${r.scores.map((s, i) => `${name(i)} ${s}`).join(", ")}.`);
  return lines;
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
  const n = view.players.length;
  const wrap = el("div", { class: "table-wrap" });
  const table = el("table", { id: "score-sheet" });
  const target = isMatchBoard(view) ? "one hand, a match board" : `game to ${view.options.target_score}`;
  table.append(el("caption", { text: `Score sheet (${target})` }));
  const head = el("tr", {}, el("th", { scope: "col", text: "Hand" }), el("th", { scope: "col", text: "Result" }));
  for (let i = 0; i < n; i += 1) head.append(el("th", { scope: "col", text: playerName(view, i) }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
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
