// A thin client of the ginbox API: one function per operation of openapi.yaml that the pages
// use, nothing else. It is also the example of how a browser client talks to the server:
// the seat token goes in the Authorization header (never in a URL), a move carries If-Match
// and an Idempotency-Key, a 429 or 503 is retried after its Retry-After, and the live stream is
// read with fetch so that it, too, sends the token as a header and resumes with Last-Event-ID.

/** Every exchange of this page, in order ({method, url, status, body}): for the curious and the tests. */
export const exchanges = [];
globalThis.ginboxExchanges = exchanges;

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || `http_${status}`;
    this.problem = problem;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A random key for Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function randomKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function call(method, path, { token, body, headers = {} } = {}) {
  const h = { Accept: "application/json", ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (body !== undefined) h["Content-Type"] = "application/json";
  for (let attempt = 0; ; attempt += 1) {
    const resp = await fetch(path, {
      method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
    });
    const text = await resp.text();
    exchanges.push({ method, url: path, status: resp.status, body: text });
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = null; }
    if ((resp.status === 429 || resp.status === 503) && attempt < 3) {
      const wait = Math.min(Number(resp.headers.get("Retry-After")) || 1, 5);
      await sleep(wait * 1000);
      continue;
    }
    if (!resp.ok) throw new ApiError(resp.status, data || { detail: text });
    const etag = resp.headers.get("ETag");
    // "<version>", or a view's "<version>-<digest>": the version comes first
    return { data, text, status: resp.status, version: etag ? parseInt(etag.replaceAll('"', ""), 10) : null };
  }
}

const g = (id) => `/games/${encodeURIComponent(id)}`;
/** A finished game's decision analysis: asked for (queued), then read with its progress. */
export const requestAnalysis = (id) => call("POST", `${g(id)}/analysis`);
export const getAnalysis = (id) => call("GET", `${g(id)}/analysis`);

export const createGame = (body) => call("POST", "/games", { body });
export function listGames({ status, variant, cursor, limit = 20 } = {}) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (status) q.set("status", status);
  if (variant) q.set("variant", variant);
  if (cursor) q.set("cursor", cursor);
  return call("GET", `/games?${q}`);
}
export const getGame = (id, token) => call("GET", g(id), { token });
/**
 * Sit at an open seat; a seat of a private game needs its invite secret. The page always sends a
 * client seed of its own making, so that this browser's randomness is mixed into every deal.
 */
export function claimSeat(id, seat, name, invite, clientSeed = randomKey()) {
  const body = { name, client_seed: clientSeed };
  if (invite) body.invite = invite;
  return call("POST", `${g(id)}/seats/${seat}`, { body });
}
export const playMove = (id, token, move, version) => call("POST", `${g(id)}/moves`, {
  token, body: move, headers: { "If-Match": `"${version}"`, "Idempotency-Key": randomKey() },
});
export const giveAdvice = (id, token, text) => call("POST", `${g(id)}/advice`, {
  token, body: { text }, headers: { "Idempotency-Key": randomKey() },
});
export const listEvents = (id, token, after = 0, limit = 1000) =>
  call("GET", `${g(id)}/events?after=${after}&limit=${limit}`, { token });
/** A page of the finished hands' results (a view holds the latest few), as the caller's view shows them. */
export const handResults = (id, token, offset = 0, limit = 50) =>
  call("GET", `${g(id)}/hand-results?offset=${offset}&limit=${limit}`, { token });
export const stateAt = (id, token, version) => call("GET", `${g(id)}/state?version=${version}`, { token });
export const auditGame = (id) => call("GET", `${g(id)}/audit`);
/** A finished game's log as NDJSON text (GET /games/{id}/export). */
export const exportGame = async (id) => (await call("GET", `${g(id)}/export`, { headers: { Accept: "application/x-ndjson" } })).text;
export const analyseMelds = (cards) => call("POST", "/analysis/melds", { body: { cards } });

const m = (id) => `/matches/${encodeURIComponent(id)}`;
/** A person's challenge to a bot account (no token: the answer holds the person's own, once). */
export const createChallenge = (body) => call("POST", "/challenges", { body });
export const getChallenge = (id) => call("GET", `/challenges/${encodeURIComponent(id)}`);
/** The person who made a challenge takes it back while it is pending (with the token its answer gave). */
export const withdrawChallenge = (id, token) => call("POST", `/challenges/${encodeURIComponent(id)}/withdraw`, { token });
export const getRatings = (variant) => call("GET", `/ratings?variant=${encodeURIComponent(variant)}`);
export const getMatch = (id) => call("GET", m(id));
export const getTournament = (id) => call("GET", `/tournaments/${encodeURIComponent(id)}`);
/** The games of a match where the person whose token this is is to act. */
export const matchTurns = (id, token) => call("GET", `${m(id)}/turns`, { token });

/** Every event of a game the caller may see, following next_after page by page. */
export async function allEvents(id, token) {
  const out = [];
  let after = 0;
  for (let pages = 0; pages < 1000; pages += 1) {
    const { data } = await listEvents(id, token, after);
    out.push(...data.events);
    if (data.next_after === null) break;
    after = data.next_after;
  }
  return out;
}

/**
 * Follow a game's live stream (text/event-stream) until stopped.
 *
 * onEvent(message) gets each message ({id, event, data}); onState(state) gets "live",
 * "reconnecting" or "ended". A lost connection is opened again by itself (waiting 0.5 s,
 * then doubling up to 5 s) with Last-Event-ID set to the last id received.
 */
export function followStream(id, token, { lastEventId = null, onEvent, onState, isOver = () => false }) {
  let stopped = false;
  let controller = null;
  let last = lastEventId;
  const url = `${g(id)}/stream`;

  async function once() {
    controller = new AbortController();
    const headers = { Accept: "text/event-stream" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (last !== null) headers["Last-Event-ID"] = String(last);
    const resp = await fetch(url, { headers, signal: controller.signal, cache: "no-store" });
    if (!resp.ok) {
      const text = await resp.text();
      exchanges.push({ method: "GET", url, status: resp.status, body: text });
      throw new ApiError(resp.status, (() => { try { return JSON.parse(text); } catch { return {}; } })());
    }
    onState("live");
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replaceAll("\r\n", "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const msg = { id: null, event: "message", data: "" };
        const data = [];
        for (const line of block.split("\n")) {
          if (!line || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "id") msg.id = val;
          else if (field === "event") msg.event = val;
          else if (field === "data") data.push(val);
        }
        if (!data.length) continue;
        msg.data = data.join("\n");
        exchanges.push({ method: "SSE", url, status: 200, body: msg.data });
        if (msg.id !== null) last = msg.id;
        try { msg.data = JSON.parse(msg.data); } catch { /* keep the text */ }
        onEvent(msg);
      }
    }
  }

  (async () => {
    let delay = 500;
    while (!stopped) {
      try {
        await once();
        delay = 500;
      } catch (err) {
        if (stopped) return;
        if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
          onState("ended");
          return;
        }
      }
      if (stopped) return;
      if (isOver()) { onState("ended"); return; }
      onState("reconnecting");
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  })();

  return {
    stop() { stopped = true; if (controller) controller.abort(); },
    /** Drop the connection now (it comes back by itself), as a network would. */
    drop() { if (controller) controller.abort(); },
    get lastEventId() { return last; },
  };
}
