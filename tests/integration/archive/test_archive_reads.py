"""A finished game archived by a real RQ worker of the archive queue reads exactly as before.

Whole games are played over HTTP (gin rami, three-hand with advice, gin rami dealt from an explicit
deck). Every read of each game is gathered: every reader's view now and at every version, pages of
events, the live stream, the advice, the export's bytes and the audit. The append that ends the game
queued its archive job; a burst worker of the archive queue runs it. A fresh API process (nothing
cached) then reads every one of them again, byte for byte.
"""

from __future__ import annotations

import random

import pytest

from service.app import create_app
from service.composition import make_bot_scheduler
from service.config import Settings
from service.games.archive import archive_job_id
from support.apiclient import ValidatingClient, load_openapi
from support.archive_reads import every_read, play_to_the_end
from support.randomplay import shuffled_deck
from workers.runner import parse_queues, run_worker


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=1_000_000, stream_opens_per_minute=0, max_streams_per_client=0)


def fresh_api(settings) -> ValidatingClient:
    """An API process of its own: its state cache and decoded archives start empty."""
    return ValidatingClient(create_app(settings, bot_scheduler=make_bot_scheduler(settings)), load_openapi())


def game_keys(redis_conn, key_prefix, game_id) -> set[str]:
    return {k.decode().rsplit(":", 1)[1] for k in redis_conn.scan_iter(match=f"{key_prefix}:{{{game_id}}}:*")}


GAMES = {
    "gin-rami": dict(variant="gin-rami", options={"target_score": 10}),
    "three-hand with advice": dict(variant="three-hand", options={"target_score": 1}, advice_every=3),
    "gin-rami from an explicit deck": dict(variant="gin-rami", options={"target_score": 1},
                                           decks=[shuffled_deck(random.Random(5))]),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(GAMES))
def test_every_read_of_a_game_is_the_same_before_and_after_its_archive(kind, settings, redis_conn, key_prefix):
    spec = dict(GAMES[kind])
    api = fresh_api(settings)
    game_id, tokens = play_to_the_end(api, spec.pop("variant"), seed=11, **spec)
    before = every_read(api, game_id, tokens)
    assert before["export"][0] == 200 and before["audit"][0] == 200
    assert {"stream", "snap"} <= game_keys(redis_conn, key_prefix, game_id)
    if kind.startswith("three-hand"):
        assert "advice" in game_keys(redis_conn, key_prefix, game_id)
        assert b"advice 0" in before["export"][3]

    # the append that ended the game queued its archive; a real worker of the archive queue runs it
    queued = [j.decode() for j in redis_conn.lrange(f"rq:queue:{settings.archive_queue}", 0, -1)]
    assert archive_job_id(game_id) in queued
    assert run_worker(settings, burst=True, queues=parse_queues("archive")) == 0
    keys = game_keys(redis_conn, key_prefix, game_id)
    assert "archive" in keys and not keys & {"stream", "snap", "advice"}

    after = every_read(fresh_api(settings), game_id, tokens)
    assert after.keys() == before.keys()
    differ = [k for k in before if after[k] != before[k]]
    assert differ == [], f"{len(differ)} reads differ, the first {differ[0]}"

    # a second archive (a job run twice, the upkeep) changes nothing
    record = redis_conn.get(f"{key_prefix}:{{{game_id}}}:archive")
    built = fresh_api(settings).app.extensions["ginbox"]
    assert built.archives.archive(game_id) == "archived_already"
    assert redis_conn.get(f"{key_prefix}:{{{game_id}}}:archive") == record
    assert game_keys(redis_conn, key_prefix, game_id) == keys
