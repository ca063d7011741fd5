"""The browser auditor (service/static/web/audit.js) on real exports: games played to the end over
HTTP on the live server audit with every check passed in a headless Chromium, and the same
exports, tampered with, fail exactly the checks the tampering breaks."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from support.decks import build_deck
from support.randomplay import choose_move
from support.servers import HttpClient
from support.openspiel_play import PLAYTHROUGH

pytestmark = pytest.mark.browser

# seat 1 takes the upcard TH and goes gin discarding KS: 20 points, target 1 reached
GIN_DECK = build_deck("AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split(), "5C 6D 8S JD QC KD 2H 3S 9D TC".split(), "TH")

AUDIT = """
const [moduleUrl, gameId, exportText, done] = arguments;
(async () => {
  const audit = await import(moduleUrl);
  // with no text given, the module's default export fetches the game's export itself
  return exportText === null ? await audit.default(gameId) : await audit.auditExport(exportText);
})().then(done, (err) => done({error: String(err && err.stack || err)}));
"""


def _http(live_server: str) -> HttpClient:
    url = urlsplit(live_server)
    return HttpClient(url.hostname, url.port)


def _play_to_the_end(http: HttpClient, variant: str, rng_seed: int, target_score: int) -> str:
    """A game of humans, dealt and cut from its seed, played to the end with random legal moves."""
    seats = [{"name": f"p{i}"} for i in range(3 if variant == "three-hand" else 2)]
    created = http.call("POST", "/games", {"variant": variant, "seats": seats, "options": {"target_score": target_score}})
    assert created.status == 201, created.body
    game_id = created.body["game_id"]
    tokens = {s["seat"]: s["token"] for s in created.body["seats"]}
    rng = random.Random(rng_seed)
    for _ in range(3000):
        public = http.call("GET", f"/games/{game_id}")
        assert public.status == 200, public.body
        if public.body["status"] == "over":
            return game_id
        seat = public.body["to_act"][0]
        view = http.call("GET", f"/games/{game_id}", token=tokens[seat]).body
        moved = http.call("POST", f"/games/{game_id}/moves", choose_move(view, rng), token=tokens[seat])
        assert moved.status == 200, moved.body
    raise AssertionError(f"game {game_id} did not end in 3000 moves")


def _export(http: HttpClient, game_id: str) -> list[dict]:
    status, _, body = http.request("GET", f"/games/{game_id}/export")
    assert status == 200, body
    return [json.loads(line) for line in body.decode().splitlines() if line.strip()]


def _text(lines: list[dict]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _audit_in_browser(new_browser, live_server: str, game_id: str | None = None, text: str | None = None) -> dict:
    """{check name: (passed, detail)} as audit.js, served by the app, computes it in Chromium."""
    driver = new_browser()
    driver.set_script_timeout(120)
    driver.get(f"{live_server}/healthz")  # a page of the server's origin: a secure context with WebCrypto
    out = driver.execute_async_script(AUDIT, f"{live_server}/web/audit.js", game_id, text)
    assert isinstance(out, list), out
    names = [c["name"] for c in out]
    assert len(names) == len(set(names)), f"a check named twice: {names}"
    return {c["name"]: (c["passed"], c["detail"]) for c in out}


def _failed(checks: dict) -> set[str]:
    return {name for name, (passed, _) in checks.items() if not passed}


@pytest.fixture(scope="module")
def finished(live_server):
    """Finished games dealt and cut from their seeds: {variant: (game id, export lines)}.

    Gin rami to 50 points: games are played until one took several hands (the seed, drawn by the
    server, decides how many); three-hand to 1 point ends with the first knock.
    """
    http = _http(live_server)
    games = {}
    for rng_seed in range(11, 21):
        game_id = _play_to_the_end(http, "gin-rami", rng_seed, 50)
        lines = _export(http, game_id)
        if sum(ln["type"] == "hand_dealt" for ln in lines) >= 2:
            games["gin-rami"] = (game_id, lines)
            break
    assert "gin-rami" in games, "ten gin rami games to 50 points, each over in one hand"
    game_id = _play_to_the_end(http, "three-hand", 12, 1)
    games["three-hand"] = (game_id, _export(http, game_id))
    return games


@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_a_finished_game_read_by_the_page_passes_every_check(new_browser, live_server, finished, variant):
    game_id, lines = finished[variant]
    checks = _audit_in_browser(new_browser, live_server, game_id=game_id)
    assert not _failed(checks), checks

    hands = [ln["data"]["hand_no"] for ln in lines if ln["type"] == "hand_dealt"]
    rounds = [ln["data"]["round"] for ln in lines if ln["type"] == "cards_cut"]
    assert hands and rounds, "a game dealt and cut from its seed"
    assert set(checks) == ({"log", "seed_recorded", "commitment", "derivation", "client_seeds", "randomly_dealt_flag",
                            "cut_outcome"}
                           | {f"deal_{n}" for n in hands} | {f"cut_{r}" for r in rounds})
    # the server's own audit checked the very same deals and cuts
    status, _, body = _http(live_server).request("GET", f"/games/{game_id}/audit")
    assert status == 200
    server_names = {c["name"] for c in json.loads(body)["checks"] if c["name"].startswith(("deal_", "cut_"))}
    assert server_names == {n for n in checks if n.startswith(("deal_", "cut_")) and n != "cut_outcome"}


def test_a_game_ended_by_resigning_passes_every_check(new_browser, live_server):
    http = _http(live_server)
    created = http.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}]})
    assert created.status == 201, created.body
    game_id = created.body["game_id"]
    resigned = http.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=created.body["seats"][0]["token"])
    assert resigned.status == 200, resigned.body
    lines = _export(http, game_id)
    assert lines[-1]["type"] == "game_resigned"

    checks = _audit_in_browser(new_browser, live_server, game_id=game_id)
    assert not _failed(checks), checks
    assert {"commitment", "deal_1", "cut_0", "cut_outcome"} <= set(checks)


def test_one_card_moved_in_one_deal_fails_that_deal_only(new_browser, live_server, finished):
    _, lines = finished["three-hand"]
    lines = json.loads(json.dumps(lines))
    deal = next(ln for ln in lines if ln["type"] == "hand_dealt")
    deck = deal["data"]["deck"]
    deck[0], deck[20] = deck[20], deck[0]  # the non-dealer's first card swapped with the upcard
    checks = _audit_in_browser(new_browser, live_server, text=_text(lines))
    assert _failed(checks) == {"deal_1"}
    assert checks["deal_1"][1] == f"card 1 is {deck[0]} in the log, {deck[20]} from the seed"


def _cli_lines(tmp_path: Path, text: str) -> list[str]:
    """What ``ginbox audit FILE`` prints for an export's text."""
    path = tmp_path / "game.ndjson"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "service.cli", "audit", str(path)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "REDIS_URL": ""})
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.splitlines()


#: the checks both audits make, under the same names (the others are one audit's own)
SHARED = ("commitment", "derivation", "client_seeds", "randomly_dealt_flag", "deal_", "cut_")


@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_a_card_changed_at_the_bottom_of_the_stock_reads_alike_in_the_browser_and_the_command(
        new_browser, live_server, finished, variant, tmp_path):
    _, lines = finished[variant]
    lines = json.loads(json.dumps(lines))
    deal = [ln for ln in lines if ln["type"] == "hand_dealt"][-1]
    deck = deal["data"]["deck"]
    seeds_card = deck[51]
    deck[51] = "JH" if seeds_card != "JH" else "JC"
    text = _text(lines)
    name = f"deal_{deal['data']['hand_no']}"
    line = f"{name}: card 52 is {deck[51]} in the log, {seeds_card} from the seed"

    checks = _audit_in_browser(new_browser, live_server, text=text)
    assert _failed(checks) == {name}
    assert f"{name}: {checks[name][1]}" == line
    out = _cli_lines(tmp_path, text)
    assert f"FAIL  {line}" in out, out
    # the last two cards of the stock are never drawn (RULES.md §1, Drawn hand): every move of
    # the log stays possible, the replay passes, and the deal is the one check that fails
    assert [ln for ln in out if ln.startswith("FAIL")] == [f"FAIL  {line}"], out
    # every check both audits make says the same, word for word
    cli = {ln.split()[1].rstrip(":"): ln for ln in out if ln.startswith(("PASS", "FAIL"))}
    shared = {n for n in checks if n.startswith(SHARED) and n != "cut_outcome"}
    assert shared == {n for n in cli if n.startswith(SHARED)}
    for n in shared:
        assert cli[n] == f"{'PASS' if checks[n][0] else 'FAIL'}  {n}: {checks[n][1]}"


def test_another_seed_fails_the_commitment_and_every_deal_and_cut_from_the_seed(new_browser, live_server, finished):
    _, lines = finished["gin-rami"]
    lines = json.loads(json.dumps(lines))
    seed = lines[0]["data"]["seed"]
    other = seed[:-1] + ("0" if seed[-1] != "0" else "1")
    lines[0]["data"]["seed"] = lines[-1]["data"]["seed"] = other
    checks = _audit_in_browser(new_browser, live_server, text=_text(lines))
    seeded = {n for n in checks if n.startswith(("deal_", "cut_"))}
    assert "cut_0" in seeded and "deal_1" in seeded and "cut_outcome" in seeded
    assert _failed(checks) == {"commitment"} | seeded
    assert checks["seed_recorded"][0] and checks["log"][0]


def test_a_cut_left_out_of_the_log_fails_the_cut_outcome(new_browser, live_server, finished):
    _, lines = finished["gin-rami"]
    lines = [ln for ln in json.loads(json.dumps(lines)) if ln["type"] != "cards_cut"]
    for version, line in enumerate((ln for ln in lines if "version" in ln), start=1):
        line["version"] = version
    checks = _audit_in_browser(new_browser, live_server, text=_text(lines))
    assert _failed(checks) == {"cut_outcome"}
    assert not any(name.startswith("cut_") and name != "cut_outcome" for name in checks)


def test_a_game_abandoned_before_its_seats_filled_passes_with_nothing_dealt(new_browser, live_server, finished):
    _, lines = finished["gin-rami"]
    created = json.loads(json.dumps(lines[0]))
    created["data"]["players"][1] = None
    abandoned = {"type": "game_abandoned", "v": 1, "version": 2, "ts": created["ts"],
                 "data": {"idle_s": 604800, "hand_no": 0, "scores": [0, 0], "seed": created["data"]["seed"]}}
    checks = _audit_in_browser(new_browser, live_server, text=_text([created, abandoned]))
    assert set(checks) == {"log", "seed_recorded", "commitment", "derivation", "client_seeds", "randomly_dealt_flag",
                           "deals"}
    assert not _failed(checks), checks
    # the same log with every seat taken should have cut and dealt
    created["data"]["players"][1] = lines[0]["data"]["players"][1] or {"name": "b"}
    assert _failed(_audit_in_browser(new_browser, live_server, text=_text([created, abandoned]))) == {
        "cut_outcome", "deals"}


def test_a_revealed_seed_other_than_the_recorded_one_fails(new_browser, live_server, finished):
    _, lines = finished["gin-rami"]
    lines = json.loads(json.dumps(lines))
    assert lines[-1]["type"] == "game_ended"
    lines[-1]["data"]["seed"] = "00" * 32
    checks = _audit_in_browser(new_browser, live_server, text=_text(lines))
    assert {"seed_recorded", "commitment"} <= _failed(checks)


def test_an_export_that_is_not_ndjson_or_has_no_end_fails_the_log_check(new_browser, live_server, finished):
    _, lines = finished["gin-rami"]
    assert _audit_in_browser(new_browser, live_server, text="{not json\n") == {
        "log": (False, "line 1 is not JSON")}
    unfinished = _audit_in_browser(new_browser, live_server, text=_text(lines[:-1]))
    assert list(unfinished) == ["log"] and not unfinished["log"][0]


def test_an_explicit_deck_passes_and_a_deck_changed_after_creation_fails(new_browser, live_server):
    http = _http(live_server)
    created = http.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}],
                                           "options": {"target_score": 1}, "first_dealer": 0, "decks": [GIN_DECK]})
    assert created.status == 201, created.body
    game_id = created.body["game_id"]
    token = created.body["seats"][1]["token"]
    assert http.call("POST", f"/games/{game_id}/moves", {"type": "take_upcard"}, token=token).status == 200
    knock = http.call("POST", f"/games/{game_id}/moves", {"type": "knock", "discard": "KS", "melds": None}, token=token)
    assert knock.status == 200 and knock.body["status"] == "over", knock.body
    lines = _export(http, game_id)

    checks = _audit_in_browser(new_browser, live_server, text=_text(lines))
    assert checks == {"log": (True, checks["log"][1]), "seed_recorded": (True, checks["seed_recorded"][1]),
                      "commitment": (True, checks["commitment"][1]),
                      "derivation": (True, checks["derivation"][1]),
                      "client_seeds": (True, checks["client_seeds"][1]),
                      "randomly_dealt_flag": (True, checks["randomly_dealt_flag"][1]),
                      "deal_1": (True, "the explicit deck given at creation")}

    deal = next(ln for ln in lines if ln["type"] == "hand_dealt")
    deal["data"]["deck"][30], deal["data"]["deck"][31] = deal["data"]["deck"][31], deal["data"]["deck"][30]
    assert _failed(_audit_in_browser(new_browser, live_server, text=_text(lines))) == {"deal_1"}


# -- client seeds (derivation 2), and games recorded before them (derivation 1) ----------------

EXPORTS = Path(__file__).resolve().parents[1] / "integration" / "replay_audit" / "exports"


def _game_with_client_seeds(http: HttpClient, rng_seed: int) -> str:
    """Gin rami to 30 whose seats both sent client seeds (a move, then the claim), played to the end."""
    created = http.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, None],
                                           "options": {"target_score": 30, "client_seed_wait_s": 600}})
    assert created.status == 201, created.body
    game_id = created.body["game_id"]
    tokens = {0: created.body["seats"][0]["token"]}
    sent = http.call("POST", f"/games/{game_id}/moves", {"type": "client_seed", "client_seed": "ann ☘"}, token=tokens[0])
    assert sent.status == 200, sent.body
    claimed = http.call("POST", f"/games/{game_id}/seats/1", {"name": "bob", "client_seed": "bob"})
    assert claimed.status == 201 and claimed.body["view"]["status"] == "playing", claimed.body
    tokens[1] = claimed.body["token"]
    rng = random.Random(rng_seed)
    for _ in range(3000):
        public = http.call("GET", f"/games/{game_id}").body
        if public["status"] == "over":
            return game_id
        seat = public["to_act"][0]
        view = http.call("GET", f"/games/{game_id}", token=tokens[seat]).body
        assert http.call("POST", f"/games/{game_id}/moves", choose_move(view, rng), token=tokens[seat]).status == 200
    raise AssertionError("the game did not end")


def test_a_game_whose_seats_sent_client_seeds_passes_and_a_changed_client_seed_fails_the_deals(new_browser, live_server):
    http = _http(live_server)
    game_id = _game_with_client_seeds(http, 3)
    checks = _audit_in_browser(new_browser, live_server, game_id=game_id)
    assert not _failed(checks), checks
    assert {"derivation", "client_seeds", "deal_1", "cut_0", "cut_outcome"} <= set(checks)
    assert "ann ☘" in checks["client_seeds"][1]

    lines = _export(http, game_id)
    sent = next(ln for ln in lines if ln["type"] == "client_seed_sent" and ln["data"]["seat"] == 1)
    sent["data"]["client_seed"] = "bob!"
    failed = _failed(_audit_in_browser(new_browser, live_server, text=_text(lines)))
    deals = {f"deal_{ln['data']['hand_no']}" for ln in lines if ln["type"] == "hand_dealt"}
    assert deals <= failed and "cut_0" in failed and "commitment" not in failed


def test_a_client_seed_sent_after_the_deal_fails_the_client_seeds_check(new_browser, live_server):
    http = _http(live_server)
    game_id = _game_with_client_seeds(http, 4)
    lines = _export(http, game_id)
    at = next(i for i, ln in enumerate(lines) if ln["type"] == "client_seed_sent")
    moved = lines.pop(at)
    dealt = next(i for i, ln in enumerate(lines) if ln["type"] == "hand_dealt")
    lines.insert(dealt + 1, moved)
    for version, ln in enumerate(lines, start=1):
        ln["version"] = version
    failed = _failed(_audit_in_browser(new_browser, live_server, text=_text(lines)))
    assert "client_seeds" in failed


@pytest.mark.parametrize("name", ["export_before_client_seeds_gin_rami.ndjson",
                                  "export_before_client_seeds_three_hand.ndjson"])
def test_a_game_recorded_before_client_seeds_still_passes(new_browser, live_server, name):
    text = (EXPORTS / name).read_text(encoding="utf-8")
    checks = _audit_in_browser(new_browser, live_server, text=text)
    assert not _failed(checks), checks
    assert checks["derivation"][0] and "client_seeds" not in checks


def test_a_game_imported_from_openspiel_says_its_deals_were_not_made_here(new_browser, live_server, tmp_path):
    record = tmp_path / "play.json"
    record.write_text(json.dumps(PLAYTHROUGH), encoding="utf-8")
    converted = subprocess.run([sys.executable, "-m", "service.cli", "convert", str(record)], capture_output=True,
                               text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(Path.cwd())})
    assert converted.returncode == 0, converted.stderr
    checks = _audit_in_browser(new_browser, live_server, text=(tmp_path / "play.ndjson").read_text(encoding="utf-8"))
    # no commitment, cut or deal is checked, and nothing fails: the origin says why
    assert list(checks) == ["log", "origin"] and not _failed(checks)
    assert checks["origin"][1].startswith("imported from openspiel: dealt and played there, not by this server")
