// The replay's graph of expected points: for each hand, each deciding seat's expected points in the
// hand after each of its decisions (the analysis's ev_chosen), one line per seat; the costly moves
// (mistakes, blunders) ringed. A point goes to its move in the list when chosen.
import { el } from "./ui.js";

const NS = "http://www.w3.org/2000/svg";
const W = 640;
const H = 180;
const PAD = { left: 34, right: 8, top: 16, bottom: 18 };
/** The gap between two hands, in decisions' widths. */
const GAP = 1.5;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

/** The x of each decision (its index in ``decisions``), hands apart by GAP; and each hand's span. */
function layout(decisions) {
  const xs = [];
  const hands = [];
  let x = 0;
  decisions.forEach((d, i) => {
    if (i > 0 && d.hand_no !== decisions[i - 1].hand_no) x += GAP;
    if (!hands.length || hands[hands.length - 1].no !== d.hand_no) hands.push({ no: d.hand_no, from: x, to: x });
    hands[hands.length - 1].to = x;
    xs.push(x);
    x += 1;
  });
  return { xs, hands, span: Math.max(1, x - 1) };
}

/**
 * The graph of ``result`` (an analysis) as an <figure>; ``go(version)`` shows a move. Seats are named
 * as ``names(seat)`` gives them. Null when nothing was rated.
 */
export function expectedPointsGraph(result, names, go) {
  const decisions = result.decisions.filter((d) => d.kind !== "arrangement");
  if (!decisions.length) return null;
  const { xs, hands, span } = layout(decisions);
  const evs = decisions.map((d) => d.ev_chosen);
  const top = Math.max(5, ...evs);
  const bottom = Math.min(-5, ...evs);
  const px = (x) => PAD.left + (x / span) * (W - PAD.left - PAD.right);
  const py = (y) => PAD.top + ((top - y) / (top - bottom)) * (H - PAD.top - PAD.bottom);
  const parts = [];
  // the zero line, and the scale's two ends
  parts.push(svg("line", { class: "graph-zero", x1: PAD.left, x2: W - PAD.right, y1: py(0), y2: py(0) }));
  for (const y of [top, 0, bottom]) {
    parts.push(svg("text", { class: "graph-scale", x: PAD.left - 4, y: py(y) + 4, "text-anchor": "end" },
      document.createTextNode(y > 0 ? `+${Math.round(y)}` : String(Math.round(y)))));
  }
  for (const h of hands) {
    parts.push(svg("text", { class: "graph-hand", x: (px(h.from) + px(h.to)) / 2, y: H - 4, "text-anchor": "middle" },
      document.createTextNode(hands.length > 12 ? String(h.no) : `Hand ${h.no}`)));
  }
  const seats = [...new Set(decisions.map((d) => d.seat))].sort();
  for (const seat of seats) {
    for (const h of hands) {
      const points = decisions.map((d, i) => [d, i]).filter(([d]) => d.seat === seat && d.hand_no === h.no)
        .map(([d, i]) => `${px(xs[i]).toFixed(1)},${py(d.ev_chosen).toFixed(1)}`);
      if (points.length > 1) parts.push(svg("polyline", { class: `graph-line seat-${seat}`, points: points.join(" ") }));
    }
  }
  decisions.forEach((d, i) => {
    const costly = d.class === "mistake" || d.class === "blunder";
    const dot = svg("circle", { class: `graph-dot seat-${d.seat}${costly ? " costly" : ""}`, cx: px(xs[i]).toFixed(1),
      cy: py(d.ev_chosen).toFixed(1), r: costly ? 5 : 2.5, "data-version": d.version, "data-class": d.class },
    svg("title", {}, document.createTextNode(`${names(d.seat)}, hand ${d.hand_no}: ${d.ev_chosen.toFixed(1)} expected` +
      (d.loss > 0 ? `, ${d.class} (${d.loss.toFixed(1)} given away)` : ""))));
    dot.addEventListener("click", () => go(d.version));
    parts.push(dot);
  });
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "ev-graph", role: "img",
    "aria-label": `Expected points of each seat after each of its decisions, hand by hand; ${
      decisions.filter((d) => d.class === "mistake" || d.class === "blunder").length} costly moves ringed.` }, ...parts);
  const legend = el("p", { class: "graph-legend" }, ...seats.map((s) =>
    el("span", { class: `graph-key seat-${s}`, text: names(s) })), el("span", { class: "muted", text: "Ringed: a mistake or blunder." }));
  return el("figure", { class: "ev-figure", id: "ev-graph" }, chart,
    el("figcaption", { text: "Expected points in the hand after each decision" }), legend);
}
