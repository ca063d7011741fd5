"""GET /games reads the summaries of the games its page shows, not of a fixed batch of the index:
Redis's MONITOR counts one HMGET of a game's meta per game listed, however many games the index
holds beyond the page."""

from __future__ import annotations

from support.gameplay import create_game
from support.redis_monitor import CommandLog, with_key_prefix

GAMES = 12


def _meta_reads(commands: list[str]) -> list[str]:
    return [c for c in commands if c.upper().startswith("HMGET ") and c.split(" ")[1].endswith(":meta")]


def test_a_page_reads_the_summaries_of_its_own_games_only(api, redis_url, key_prefix):
    made = [create_game(api, "gin-rami").game_id for _ in range(GAMES)]
    # newest first (games made in one millisecond: by id)
    order = [g["game_id"] for g in api.get("/games", query_string={"limit": 100}).get_json()["games"]]
    assert sorted(order) == sorted(made)
    with CommandLog(redis_url) as log:
        log.read()  # what came before
        for limit in (1, 5, GAMES):
            resp = api.get("/games", query_string={"limit": limit})
            assert resp.status_code == 200, resp.get_data(as_text=True)
            listed = [g["game_id"] for g in resp.get_json()["games"]]
            assert listed == order[:limit]
            reads = _meta_reads(with_key_prefix(log.read(), key_prefix))
            # one summary read per game the page shows: the first `limit` games, newest first
            assert sorted(r.split(" ")[1] for r in reads) == sorted(
                f"{key_prefix}:{{{g}}}:meta" for g in listed), (limit, reads)


def test_the_walk_of_small_pages_lists_every_game_once_reading_each_summary_once(api, redis_url, key_prefix):
    made = [create_game(api, "gin-rami").game_id for _ in range(GAMES)]
    seen, cursor = [], None
    with CommandLog(redis_url) as log:
        log.read()
        while True:
            query = {"limit": 5, **({"cursor": cursor} if cursor else {})}
            body = api.get("/games", query_string=query).get_json()
            seen += [g["game_id"] for g in body["games"]]
            cursor = body["next_cursor"]
            if cursor is None:
                break
        reads = _meta_reads(with_key_prefix(log.read(), key_prefix))
    assert sorted(seen) == sorted(made) and len(seen) == GAMES
    assert len(reads) == GAMES
