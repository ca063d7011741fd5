// The score sheet's hands. A view carries only the latest few results: ``hand_results``, from index
// ``hand_results_from`` of ``hand_results_total``. The earlier ones are read from
// GET /games/{id}/hand-results, with the viewer's own token, so that they are what the viewer's view
// would show. A result never changes once its hand is over: the results read once serve every later
// view (each adds its own latest) and every earlier one (the replay's), and are read again only when
// a view starts past them (the page was away for more than a view's worth of hands).
import * as api from "./api.js";

/** The most results one read asks for (the route's largest limit). */
const PAGE = 200;
/** game id -> {results: the game's first results as known so far, reading: the read under way, tried: the total last read at} */
const sheets = new Map();

function sheetOf(id) {
  if (!sheets.has(id)) sheets.set(id, { results: [], reading: null, tried: null });
  return sheets.get(id);
}

/**
 * The view with every finished hand's result in ``hand_results`` (and ``hand_results_from`` 0) when
 * the results before its own are known; else the view as it is, with its latest results only.
 */
export function wholeSheet(view) {
  const from = view.hand_results_from || 0;
  if (!from) return view;
  const sheet = sheetOf(view.game_id);
  if (sheet.results.length < from) return view;
  const results = [...sheet.results.slice(0, from), ...view.hand_results];
  if (results.length > sheet.results.length) sheet.results = results;
  return { ...view, hand_results: results, hand_results_from: 0 };
}

/**
 * Read the results before the view's own unless they are known, or being read: at most once per
 * ``hand_results_total`` (a read that failed is tried again when a hand has ended since).
 * Resolves once the read is over, whether it gave them or not.
 */
export function readSheet(view, token) {
  const from = view.hand_results_from || 0;
  const sheet = sheetOf(view.game_id);
  if (sheet.results.length >= from) return Promise.resolve();
  if (sheet.reading) return sheet.reading;
  if (sheet.tried === view.hand_results_total) return Promise.resolve();
  sheet.tried = view.hand_results_total;
  sheet.reading = (async () => {
    const results = [...sheet.results];
    try {
      for (let pages = 0; pages < 1000; pages += 1) {
        const { data } = await api.handResults(view.game_id, token, results.length, PAGE);
        results.push(...data.hand_results);
        if (data.hand_results.length < PAGE) break;
      }
    } catch { /* the sheet shows the view's latest hands, and says the earlier ones are missing */ }
    if (results.length > sheet.results.length) sheet.results = results;
    sheet.reading = null;
  })();
  return sheet.reading;
}
