"""The browser auditor (service/static/web/audit.js, as the server serves it) computes every
published fairness vector (service/docs/fairness-vectors.json) in a real headless Chromium,
with WebCrypto; the vectors themselves come from the specification, not from the engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "service" / "docs" / "fairness-vectors.json")
                     .read_text(encoding="utf-8"))

# runs in the page: imports the module the server serves, computes every vector, hands back
# what it computed (the comparison is made in Python, so that a failure names the vector)
COMPUTE = """
const [moduleUrl, vectors, done] = arguments;
(async () => {
  const audit = await import(moduleUrl);
  const seeds = Object.fromEntries(vectors.seeds.map((s) => [s.name, s.seed]));
  const out = {seeds: [], byte_streams: [], uniform_draws: [], decks: [], cuts: [], cuttings: []};
  for (const s of vectors.seeds) out.seeds.push(await audit.commitment(s.seed));
  for (const v of vectors.byte_streams) {
    const stream = audit.byteStream(seeds[v.seed], v.label, v.number);
    const bytes = [];
    while (bytes.length < v.first_bytes.length / 2) bytes.push(await stream.next());
    const messages = [0, 1, 2].map((k) => audit.toHex(audit.blockMessage(v.label, v.number, k)));
    out.byte_streams.push({first_bytes: audit.toHex(bytes), block_messages: messages});
  }
  for (const v of vectors.uniform_draws) {
    const stream = audit.byteStream(seeds[v.seed], v.label, v.number);
    const rejected = [], values = [];
    while (values.length < v.values.length) values.push(await audit.uniform(stream, v.n, rejected));
    out.uniform_draws.push({values, rejected_bytes: rejected, bytes_read: stream.read});
  }
  for (const v of vectors.decks) out.decks.push(await audit.deckForHand(seeds[v.seed], v.hand_no));
  for (const v of vectors.cuts) out.cuts.push(await audit.cutCards(seeds[v.seed], v.round, v.count));
  for (const v of vectors.cuttings || []) out.cuttings.push(await audit.cutting(seeds[v.seed], v.seats));
  out.client_seed_keys = [];
  for (const v of vectors.client_seed_keys || []) {
    const key = await audit.dealKey(2, seeds[v.seed], v.client_seeds);
    out.client_seed_keys.push({
      key_input: audit.toHex(audit.dealKeyInput(seeds[v.seed], v.client_seeds)), key: audit.toHex(key),
      deck_1: await audit.deckForHand(key, 1), deck_2: await audit.deckForHand(key, 2),
      cut_0: await audit.cutCards(key, 0, v.client_seeds.length),
    });
  }
  return out;
})().then(done, (err) => done({error: String(err && err.stack || err)}));
"""


def _computed_in_browser(new_browser, live_server) -> dict:
    driver = new_browser()
    driver.set_script_timeout(120)
    # any page of the server: its origin is a secure context, where WebCrypto is available
    driver.get(f"{live_server}/healthz")
    out = driver.execute_async_script(COMPUTE, f"{live_server}/web/audit.js", VECTORS)
    assert "error" not in out, out.get("error")
    return out


def test_every_published_vector_is_computed_alike_in_the_browser(new_browser, live_server):
    out = _computed_in_browser(new_browser, live_server)
    wrong = []
    for v, got in zip(VECTORS["seeds"], out["seeds"], strict=True):
        if got != v["commitment"]:
            wrong.append(f"commitment of {v['name']}: {got}")
    for v, got in zip(VECTORS["byte_streams"], out["byte_streams"], strict=True):
        if got != {"first_bytes": v["first_bytes"], "block_messages": v["block_messages"]}:
            wrong.append(f"byte stream {v['seed']} {v['label']} {v['number']}: {got}")
    for v, got in zip(VECTORS["uniform_draws"], out["uniform_draws"], strict=True):
        want = {k: v[k] for k in ("values", "rejected_bytes", "bytes_read")}
        if got != want:
            wrong.append(f"uniform draws {v['seed']} {v['label']} {v['number']} n={v['n']}: {got}")
    for v, got in zip(VECTORS["decks"], out["decks"], strict=True):
        if got != v["deck"]:
            wrong.append(f"deck of hand {v['hand_no']} for seed {v['seed']}: {got}")
    for v, got in zip(VECTORS["cuts"], out["cuts"], strict=True):
        if got != v["cards"]:
            wrong.append(f"cut round {v['round']} of {v['count']} for seed {v['seed']}: {got}")
    for v, got in zip(VECTORS.get("cuttings", []), out["cuttings"], strict=True):
        if got != {"rounds": v["rounds"], "order": v["order"]}:
            wrong.append(f"cutting by seats {v['seats']} for seed {v['seed']}: {got}")
    for v, got in zip(VECTORS["client_seed_keys"], out["client_seed_keys"], strict=True):
        want = {k: v[k] for k in ("key_input", "key", "deck_1", "deck_2", "cut_0")}
        if got != want:
            wrong.append(f"client seeds {v['client_seeds']} with seed {v['seed']}: {got}")
    assert not wrong, "\n".join(wrong)
    assert len(out["decks"]) == len(VECTORS["decks"]) > 0
    assert len(out["client_seed_keys"]) == len(VECTORS["client_seed_keys"]) > 0


def test_the_browser_refuses_a_seed_that_is_not_hex_and_a_number_beyond_eight_bytes(new_browser, live_server):
    driver = new_browser()
    driver.set_script_timeout(60)
    driver.get(f"{live_server}/healthz")
    out = driver.execute_async_script("""
const [moduleUrl, done] = arguments;
(async () => {
  const audit = await import(moduleUrl);
  const refusal = async (f) => { try { await f(); return null; } catch (err) { return err.name; } };
  return {
    odd: await refusal(() => audit.commitment("abc")),
    letters: await refusal(() => audit.deckForHand("zz", 1)),
    empty: await refusal(() => audit.deckForHand("", 1)),
    huge: await refusal(() => audit.deckForHand("00", 2n ** 64n)),
    negative: await refusal(() => audit.cutCards("00", -1, 2)),
    fine: await refusal(() => audit.deckForHand("00", 2n ** 64n - 1n)),
  };
})().then(done, (err) => done({error: String(err)}));
""", f"{live_server}/web/audit.js")
    assert out == {"odd": "Error", "letters": "Error", "empty": "Error", "huge": "RangeError",
                   "negative": "RangeError", "fine": None}
