// The hand's end as a moment of its own, for every seat and every spectator: when a hand ends (by
// anyone's move, this side's own knock included) or the game does, a panel over the table shows
// every hand laid out in its melds, the lay-offs, the points worked out in words, the running score
// and who deals next, until "Next hand" (or Escape) closes it. The page notices the end by comparing
// each view it draws with the last hand end it knows of, whatever answer brought the view: the move's
// own answer is often the next hand already.
import { cardElement, isRun, isSet, label, sortCards, sortMeld } from "./cards.js";
import { state } from "./table-state.js";
import { cardsText, el, hollywoodEnd, isHollywood, isMatchBoard, playerName } from "./ui.js";

/** How long a table of bots alone waits before it goes on by itself, in seconds (a spectator's only). */
export const AUTO_CONTINUE_S = 5;

/** The panel (a modal dialog, built once) and the timer of a table of bots going on by itself. */
let dialog = null;
let ticking = null;

/** Whether no person plays this game: every seat a built-in bot or a bot account. */
const botsAlone = (view) => view.players.length > 0 && view.players.every((p) => p && (p.bot || p.account));

/** A seat as the viewer reads it in a sentence: "you" for their own, else the player's name. */
const who = (view, seat) => (seat === view.viewer ? "you" : playerName(view, seat));
/** A seat at the start of a sentence: "You", or the player's name as they spell it. */
const lead = (view, seat) => (seat === view.viewer ? "You" : playerName(view, seat));
/** A seat's name, with "(you)" for the viewer's own: for lists of names. */
const named = (view, seat) => `${playerName(view, seat)}${seat === view.viewer ? " (you)" : ""}`;
/** The verb after a seat: "you score", "ann scores". */
const verb = (view, seat, base) => (seat === view.viewer ? base : `${base}s`);
const cardsCount = (n) => `${n} card${n === 1 ? "" : "s"}`;

/** The panel's title: what the hand came to ("Hand 2: you knocked"). */
function titleOf(view, r) {
  if (!r) return "Game over";
  if (r.outcome === "drawn") return `Hand ${r.hand_no} was drawn`;
  if (r.outcome === "undercut") return `Hand ${r.hand_no}: ${who(view, r.defender)} undercut ${who(view, r.knocker)}`;
  const act = { knock: "knocked", gin: "went gin", big_gin: "went big gin" }[r.outcome];
  return `Hand ${r.hand_no}: ${who(view, r.knocker)} ${act}`;
}

/** The hand's points worked out in one sentence ("ann knocked with 9; bob had 35 after laying off 2 cards (46 before): ann scores 35 − 9 = 26."). */
export function pointsInWords(view, r) {
  if (r.outcome === "drawn") {
    return `Nobody scores: ${r.reason === "turn_limit" ? "the turn limit was reached" : "the stock ran out"}.`;
  }
  const o = view.options;
  const k = lead(view, r.knocker);
  const d = who(view, r.defender);
  const w = who(view, r.winner);
  const laid = r.layoffs.length;
  const before = r.defender_deadwood_before_layoffs;
  if (r.outcome === "knock" || r.outcome === "undercut") {
    const had = laid ? `${r.defender_deadwood} after laying off ${cardsCount(laid)}${before !== null && before !== undefined ? ` (${before} before)` : ""}`
      : `${r.defender_deadwood} and nothing to lay off`;
    const start = `${k} knocked with ${r.knocker_deadwood}; ${d} had ${had}`;
    if (r.outcome === "knock") return `${start}: ${w} ${verb(view, r.winner, "score")} ${r.defender_deadwood} − ${r.knocker_deadwood} = ${r.points}.`;
    return `${start}, not more than ${r.knocker_deadwood}, so ${w} ${verb(view, r.winner, "undercut")} and ` +
      `${verb(view, r.winner, "score")} the bonus ${o.undercut_bonus} + (${r.knocker_deadwood} − ${r.defender_deadwood}) = ${r.points}.`;
  }
  const kind = r.outcome === "big_gin" ? "big gin" : "gin";
  const bonus = r.outcome === "big_gin" ? o.big_gin_bonus : o.gin_bonus;
  const start = `${k} went ${kind}; ${d} had ${r.defender_deadwood} (nothing is laid off on ${kind})`;
  if (o.gin_adds_deadwood) return `${start}: ${w} ${verb(view, r.winner, "score")} the bonus ${bonus} + ${r.defender_deadwood} = ${r.points}.`;
  return `${start}: ${w} ${verb(view, r.winner, "score")} the ${kind} bonus, ${r.points}.`;
}

/** A row of cards; a laid-off card is marked by a dashed ring and says whose it was. */
function cardsRow(view, cards, laidBy = new Map()) {
  const ul = el("ul", { class: "cards" });
  for (const c of cards) {
    const by = laidBy.get(c);
    const node = by === undefined ? cardElement(c)
      : cardElement(c, { extraClass: "laid-off", spoken: `${label(c)}, laid off by ${playerName(view, by)}` });
    ul.append(el("li", {}, node));
  }
  return ul;
}

/** One group of cards: a meld (its kind said) or the deadwood (its count said). */
function group(view, cards, tag, { meld, laidBy } = {}) {
  return el("div", { class: `group ${meld ? "meld" : "deadwood"}`, role: "group", "aria-label": tag },
    el("span", { class: "tag", "aria-hidden": "true", text: tag }), cardsRow(view, cards, laidBy));
}

const meldKind = (cards) => (isSet(cards) ? "set" : isRun(cards) ? "run" : "meld");

/** A seat's role in a box gin hand ("box, " or "captain, "; nothing in gin rami): the box deals. */
const roleOf = (view, r, seat) => (view.variant !== "three-hand" ? "" : seat === r.dealer ? "box, " : "captain, ");

/** A deadwood group, or nothing when there is none (gin). */
const deadwoodGroup = (view, cards, count) => (cards.length ? group(view, sortCards(cards), `Deadwood ${count}`) : "");

/** The knocker's hand: their melds with the cards laid off on them, and their deadwood. */
function knockerBlock(view, r) {
  const role = { gin: "went gin", big_gin: "went big gin" }[r.outcome] || "knocked";
  const box = el("div", { class: "hand-end-seat", "data-seat": String(r.knocker) },
    el("h3", { text: `${named(view, r.knocker)} — ${roleOf(view, r, r.knocker)}${role}` }));
  r.knocker_melds.forEach((m, i) => {
    const laid = r.layoffs.filter(([, j]) => j === i).map(([c]) => c);
    const laidBy = new Map(laid.map((c) => [c, r.defender]));
    const tag = `Meld ${i + 1} (${meldKind(m)})${laid.length ? ` + ${cardsText(sortCards(laid))} laid off` : ""}`;
    box.append(group(view, sortMeld([...m, ...laid]), tag, { meld: true, laidBy }));
  });
  box.append(deadwoodGroup(view, r.knocker_deadwood_cards, r.knocker_deadwood));
  return box;
}

/** The defender's hand: their own melds, what they laid off (and on which meld), and their deadwood. */
function defenderBlock(view, r) {
  const box = el("div", { class: "hand-end-seat", "data-seat": String(r.defender) },
    el("h3", { text: `${named(view, r.defender)} — ${roleOf(view, r, r.defender)}defender` }));
  r.defender_melds.forEach((m, i) => box.append(group(view, sortMeld(m), `Meld ${i + 1} (${meldKind(m)})`, { meld: true })));
  if (r.layoffs.length) {
    const where = r.layoffs.map(([c, j]) => `${cardsText([c])} on meld ${j + 1}`);
    box.append(el("p", { class: "hand-end-layoffs",
      text: `Laid off on ${playerName(view, r.knocker)}'s melds: ${where.join(", ")}.` }));
  }
  box.append(deadwoodGroup(view, r.defender_deadwood_cards, r.defender_deadwood));
  return box;
}

/** A drawn hand: each hand as it stood, when the result records them. */
function drawnBlocks(view, r) {
  if (!Array.isArray(r.hands)) return [];
  return r.hands.map((cards, seat) => (cards ? el("div", { class: "hand-end-seat", "data-seat": String(seat) },
    el("h3", { text: named(view, seat) }), group(view, sortCards(cards), "Cards")) : null)).filter(Boolean);
}

/** The seat that sat a box gin hand out, advising: the one neither knocker nor defender. */
function advisorOf(view, r) {
  if (view.variant !== "three-hand" || !r) return null;
  if (r.outcome === "drawn") return view.roles ? view.roles.advisor : null;
  return [0, 1, 2].find((s) => s !== r.knocker && s !== r.defender);
}

/** Box gin: the roles of the next hand in one sentence, and that the advisor does not score (§2 Rotation). */
export function rotationText(view, r) {
  if (view.variant !== "three-hand") return null;
  const box = r.dealer; // the box deals
  const advisor = advisorOf(view, r);
  const captain = [0, 1, 2].find((s) => s !== box && s !== advisor);
  let why = "The box lost, so the roles move round";
  let next = { box: captain, captain: advisor, advisor: box };
  if (r.outcome === "drawn") {
    why = "The hand was drawn, so the roles stay";
    next = { box, captain, advisor };
  } else if (r.winner === box) {
    why = `The box won, so ${named(view, box)} stays in the box and the captain and the advisor swap`;
    next = { box, captain: advisor, advisor: captain };
  }
  // the view of the next hand says its roles itself
  if (view.roles && view.status === "playing" && view.hand_no === r.hand_no + 1) next = view.roles;
  return `${why}: for hand ${r.hand_no + 1}, ${named(view, next.box)} is the box (and deals), ${named(view, next.captain)} ` +
    `the captain and ${named(view, next.advisor)} the advisor, who sits the hand out and does not score.`;
}

/** Who deals the next hand, in words (null once the game is over). */
function dealerText(view, r) {
  let dealer = r.outcome === "drawn" ? r.dealer : r.next_dealer;
  if (view.status === "playing" && view.hand_no === r.hand_no + 1) dealer = view.dealer;
  if (dealer === null || dealer === undefined) return null;
  return `${lead(view, dealer)} ${verb(view, dealer, "deal")} hand ${r.hand_no + 1}.`;
}

/** The running score after the hand ("Score: ann 26, bob 0 (a game to 100)."). */
function scoreText(view, scores) {
  const target = isMatchBoard(view) ? "one hand, a match board"
    : isHollywood(view) ? `three games added up, each to ${view.options.target_score}` : `a game to ${view.options.target_score}`;
  return `Score: ${scores.map((s, i) => `${named(view, i)} ${s}`).join(", ")} (${target}).`;
}

/** The game's end: who won and how, and the final score ("You win the game, reaching 126 (the target is 100). Final score: …"). */
export function finalText(view) {
  const end = view.end || { reason: "target_score" };
  const scores = `Final score: ${view.scores.map((s, i) => `${named(view, i)} ${s}`).join(", ")}.`;
  if (end.reason === "expired") return `The game expired: a seat was still free ${end.idle_s} s after it was made. Nobody wins.`;
  if (end.reason === "abandoned") {
    const why = end.drawn_hands ? `${end.drawn_hands} drawn hands in a row` : `${end.idle_s} s without a move`;
    return `Abandoned after ${why}: nobody wins. ${scores}`;
  }
  const wins = `${who(view, view.winner)} ${verb(view, view.winner, "win")}`;
  if (end.reason === "resigned") return `${lead(view, end.resigned)} resigned, so ${wins}. ${scores}`;
  const w = `${lead(view, view.winner)} ${verb(view, view.winner, "win")}`;
  if (isMatchBoard(view)) return `${w} this board of the match. ${scores}`;
  if (isHollywood(view)) return `${hollywoodEnd(view, view.viewer)} ${scores}`;
  return `${w} the game, reaching ${view.scores[view.winner]} (the target is ${view.options.target_score}). ${scores}`;
}

/** The panel's content for ``end`` ({result, over, skipped}). */
function panelContent(view, end, close) {
  const r = end.result;
  const title = titleOf(view, r);
  const summary = r ? pointsInWords(view, r) : finalText(view);
  // the game's end beside the hand's, at the top: it stays in view while the hands scroll
  const final = end.over && r ? `Game over. ${finalText(view)}` : "";
  const head = el("div", { class: "hand-end-head" }, el("h2", { id: "hand-end-h", text: title }),
    el("p", { id: "hand-end-summary", class: "hand-end-summary", text: summary }),
    final ? el("p", { id: "hand-end-final", class: "hand-end-final", text: final }) : null);
  const body = el("div", { class: "hand-end-body" });
  if (r) {
    const hands = r.outcome === "drawn" ? drawnBlocks(view, r) : [knockerBlock(view, r), defenderBlock(view, r)];
    body.append(el("div", { class: "hand-end-hands" }, ...hands));
    const advisor = advisorOf(view, r);
    if (advisor !== null && advisor !== undefined && r.outcome !== "drawn") {
      body.append(el("p", { class: "muted", text: `${named(view, advisor)} sat this hand out, advising: the advisor does not score.` }));
    }
    if (!end.over) {
      body.append(el("p", { id: "hand-end-score", text: scoreText(view, r.scores || view.scores) }));
      const rotation = rotationText(view, r);
      const dealer = dealerText(view, r);
      if (rotation) body.append(el("p", { id: "hand-end-roles", text: rotation }));
      else if (dealer) body.append(el("p", { id: "hand-end-dealer", text: dealer }));
    }
  }
  if (end.skipped > 0) {
    const hands = end.skipped === 1 ? "One earlier hand" : `${end.skipped} earlier hands`;
    body.append(el("p", { class: "muted", text: `${hands} also ended meanwhile: the score sheet below the table has every hand.` }));
  }
  const foot = el("div", { class: "hand-end-foot" });
  const auto = !end.over && view.viewer === null && botsAlone(view);
  if (auto) foot.append(el("p", { id: "hand-end-auto", class: "muted", text: autoText(AUTO_CONTINUE_S) }));
  foot.append(el("button", { type: "button", id: "hand-end-next", class: "primary", onclick: close },
    end.over ? "Close" : "Next hand"));
  return { nodes: [head, body, foot], spoken: [`${title}.`, summary, final].filter(Boolean).join(" "), auto };
}

const autoText = (s) => `Every player is a bot: the game goes on by itself in ${s} s.`;

/** The dialog, built once: its live region exists before anything is written into it, so that it is announced. */
function dialogNode(act) {
  if (dialog) return dialog;
  dialog = el("dialog", { id: "hand-end", class: "hand-end", "aria-labelledby": "hand-end-h" },
    el("div", { id: "hand-end-content", class: "hand-end-content" }),
    el("p", { id: "hand-end-live", class: "sr-only", role: "status", "aria-live": "polite" }));
  // Escape closes it as the button does: either way the close event says the end was seen
  dialog.addEventListener("close", () => closed(act));
  document.body.append(dialog);
  return dialog;
}

/** The panel was closed: the end it showed is seen, and the table is drawn again (the next end, if any, opens). */
function closed(act) {
  const end = state.handEnd;
  if (!end) return;
  if (ticking) { clearInterval(ticking); ticking = null; }
  state.handEnd = null;
  state.endSeen = {
    hand: Math.max(state.endSeen.hand, end.result ? end.result.hand_no : 0),
    over: state.endSeen.over || end.over,
  };
  document.getElementById("hand-end-live").textContent = "";
  // back to the table where the next hand begins (the redraw then focuses a move to play, if any)
  document.getElementById("turn").scrollIntoView({ block: "nearest" });
  act.redraw();
}

/** Open the panel for ``end``, focus its button and say what happened. */
function open(view, end, act) {
  const node = dialogNode(act);
  const close = () => { if (node.open) node.close(); };
  const { nodes, spoken, auto } = panelContent(view, end, close);
  node.querySelector("#hand-end-content").replaceChildren(...nodes);
  if (!node.open) node.showModal();
  document.getElementById("hand-end-next").focus();
  // written once the dialog shows, so that the live region is announced rather than skipped
  setTimeout(() => { if (state.handEnd === end) document.getElementById("hand-end-live").textContent = spoken; }, 150);
  if (auto) {
    let left = AUTO_CONTINUE_S;
    ticking = setInterval(() => {
      left -= 1;
      const line = document.getElementById("hand-end-auto");
      if (line) line.textContent = autoText(Math.max(left, 0));
      if (left <= 0) close();
    }, 1000);
  }
}

/**
 * Open the hand-end panel when the view shows a hand end (or the game's end) this page has not shown.
 * The first view drawn only records where the game stands: what ended before the page was opened
 * was not seen happening, and the result below the table tells it.
 */
export function renderHandEnd(view, act) {
  const results = view.hand_results || [];
  const latest = results.length ? results.at(-1).hand_no : 0;
  const over = view.status === "over";
  if (!state.endSeen) { state.endSeen = { hand: latest, over }; return; }
  if (state.handEnd) return; // one end at a time: the next opens once this one is closed
  const unseen = results.filter((r) => r.hand_no > state.endSeen.hand);
  const newOver = over && !state.endSeen.over;
  if (!unseen.length && !newOver) return;
  // several hands ended while the page was away: the latest is shown, and the others counted
  state.handEnd = { result: unseen.at(-1) || null, over: newOver, skipped: Math.max(unseen.length - 1, 0) };
  open(view, state.handEnd, act);
}
