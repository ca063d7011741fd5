// Cards as the API writes them ("7H", "TD", "AS") and as a person reads them ("7 of hearts"):
// labels for screen readers, suit symbols so that colour is never the only signal, values,
// sorting, the meld checks the knock panel needs while the player rearranges, and the choice of a
// four-colour deck (clubs green, diamonds blue), kept in this browser.

export const SUITS = {
  C: { name: "clubs", symbol: "\u2663" },
  D: { name: "diamonds", symbol: "\u2666" },
  H: { name: "hearts", symbol: "\u2665" },
  S: { name: "spades", symbol: "\u2660" },
};
const RANK_ORDER = "A23456789TJQK";
const RANK_NAMES = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
const RANK_SHORT = { T: "10" };
const SUIT_ORDER = "SHCD"; // alternating colours in a sorted hand

export const rankIndex = (code) => RANK_ORDER.indexOf(code[0]);
export const value = (code) => Math.min(rankIndex(code) + 1, 10);
export const label = (code) => `${RANK_NAMES[code[0]] || code[0]} of ${SUITS[code[1]].name}`;
export const short = (code) => `${RANK_SHORT[code[0]] || code[0]}${SUITS[code[1]].symbol}`;
/** A text that names cards by their codes ("Discard JS."), with each code written as the page shows
 * cards ("Discard J♠."): a code is a whole word of rank and suit letters, upper case. */
export const cardsInText = (text) => String(text).replace(/\b([A2-9TJQK])([CDHS])\b/g, (code) => short(code));
export const deadwood = (cards) => cards.reduce((sum, c) => sum + value(c), 0);

/** Sort by suit, then rank (ace low). */
export function sortCards(cards) {
  return [...cards].sort((a, b) =>
    SUIT_ORDER.indexOf(a[1]) - SUIT_ORDER.indexOf(b[1]) || rankIndex(a) - rankIndex(b));
}

/** Sort for showing a meld: a run by rank, a set by suit. */
export function sortMeld(cards) {
  return [...cards].sort((a, b) => rankIndex(a) - rankIndex(b) || SUIT_ORDER.indexOf(a[1]) - SUIT_ORDER.indexOf(b[1]));
}

/** Three or four cards of one rank. */
export function isSet(cards) {
  return cards.length >= 3 && cards.length <= 4 && cards.every((c) => c[0] === cards[0][0]);
}

/** Three or more cards of one suit in sequence (ace low, no wrapping). */
export function isRun(cards) {
  if (cards.length < 3 || !cards.every((c) => c[1] === cards[0][1])) return false;
  const ranks = cards.map(rankIndex).sort((a, b) => a - b);
  return ranks.every((r, i) => i === 0 || r === ranks[i - 1] + 1);
}

export const isMeld = (cards) => isSet(cards) || isRun(cards);

/** A card as an element: its symbol text, its spoken label, its code in data-card. */
export function cardElement(code, { tag = "span", extraClass = "", spoken = null } = {}) {
  const el = document.createElement(tag);
  el.className = `card suit-${code[1]} ${extraClass}`.trim();
  el.dataset.card = code;
  const face = document.createElement("span");
  face.className = "face";
  face.setAttribute("aria-hidden", "true");
  face.textContent = short(code);
  el.append(face);
  if (tag === "button") el.type = "button";
  // the spoken name is text inside the element (not aria-label), so it never contradicts the face
  const sr = document.createElement("span");
  sr.className = "sr-only";
  sr.textContent = spoken || label(code);
  el.append(sr);
  return el;
}

/** A face-down card (its count is said by the caller). */
export function backElement() {
  const el = document.createElement("span");
  el.className = "card back";
  el.setAttribute("aria-hidden", "true");
  return el;
}

/** A row of cards, labelled as a list for screen readers. */
export function cardList(cards, { label: listLabel, extraClass = "" } = {}) {
  const ul = document.createElement("ul");
  ul.className = `cards ${extraClass}`.trim();
  if (listLabel) ul.setAttribute("aria-label", listLabel);
  for (const code of cards) {
    const li = document.createElement("li");
    li.append(cardElement(code));
    ul.append(li);
  }
  return ul;
}

const FOUR_COLOURS = "ginbox.fourColours";

/** Whether this browser draws the four-colour deck (clubs green, diamonds blue). */
export function fourColours() {
  try { return localStorage.getItem(FOUR_COLOURS) === "1"; } catch { return false; }
}

/** Draw (or stop drawing) the four-colour deck on this page, and remember the choice in this browser. */
export function setFourColours(on) {
  try {
    if (on) localStorage.setItem(FOUR_COLOURS, "1");
    else localStorage.removeItem(FOUR_COLOURS);
  } catch { /* storage refused: the choice lasts as long as the page */ }
  if (typeof document !== "undefined" && document.body) document.body.classList.toggle("four-colours", Boolean(on));
}

/** The table's switch for the four-colour deck: a checkbox, ticked when the deck is on. */
export function fourColourToggle() {
  const wrap = document.createElement("label");
  wrap.className = "four-colour-toggle";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.id = "four-colours";
  box.checked = fourColours();
  box.addEventListener("change", () => setFourColours(box.checked));
  wrap.append(box, " Four-colour deck (\u2663 green, \u2666 blue)");
  return wrap;
}

// every page that shows cards draws them in the colours this browser chose
if (typeof document !== "undefined" && document.body && fourColours()) document.body.classList.add("four-colours");
