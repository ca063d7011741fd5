"""What a copy of Redis gives of the creation routes' recorded answers (their seat and bot tokens).

A record is sealed under a key derived from the client's Idempotency-Key and the server's secret.
Short keys are refused (a key of one character was found from a copy of Redis in a fraction of a
second), and with GINBOX_SECRET set even the right Idempotency-Key does not open a record without
the secret.
"""

from __future__ import annotations

import uuid

import pytest

from service.config import SettingError, Settings
from service.store.creations import Claimed, CreationRecords, RecordedAnswer
from support.apiclient import ValidatingClient, load_openapi, make_app

GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
SECRET = "correct horse battery staple, 32+ chars"


def idem_names(redis_conn, key_prefix) -> list[bytes]:
    return sorted(redis_conn.scan_iter(match=f"{key_prefix}:idem:*"))


def games(api) -> set[str]:
    return {g["game_id"] for g in api.get("/games", query_string={"limit": 100}).get_json()["games"]}


@pytest.mark.parametrize("key", ["1", "ann-0001", "a" * 21, "has.a.dot.but.is.long.enough", "{" + "0" * 30 + "}"])
def test_a_short_key_or_one_outside_the_set_is_400_invalid_header_and_creates_nothing(api, redis_conn, key_prefix,
                                                                                      key):
    before = games(api)
    resp = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert resp.status_code == 400
    doc = resp.get_json()
    assert doc["code"] == "invalid_header"
    assert doc["errors"] == {"Idempotency-Key": ["Invalid value."]}
    assert "22" in doc["detail"]
    assert games(api) == before
    assert idem_names(redis_conn, key_prefix) == []
    # the same on the other creation routes (a bot's registration here)
    assert api.post("/bots", json={"name": "shortkey"}, headers={"Idempotency-Key": key}).status_code == 400


@pytest.mark.parametrize("key", ["A" * 22, "aZ09_-" * 4, "3f2b8c1e-9d4a-4b7e-8c2f-1a6d5e4f3b2c", "3f2b8c1e9d4a4b7e8c2f1a6d5e4f3b2c", "x" * 200])
def test_keys_of_22_to_200_letters_digits_dash_underscore_are_taken(api, key):
    first = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert first.status_code == 201
    again = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == first.get_json()


def test_a_move_key_stays_as_it_was_one_character_will_do(api):
    created = api.post("/games", json=GAME).get_json()
    game_id, token = created["game_id"], created["seats"][0]["token"]
    view = api.get(f"/games/{game_id}", token=token).get_json()
    # any command of seat 0 that the game refuses or takes: the header itself is not refused
    resp = api.post(f"/games/{game_id}/moves", json={"type": "pass"}, token=token,
                    headers={"Idempotency-Key": "1"})
    assert resp.status_code != 400 or resp.get_json()["code"] != "invalid_header", (view, resp.get_json())


def test_with_a_server_secret_the_right_key_alone_does_not_open_the_record(redis_url, redis_conn, key_prefix):
    api = ValidatingClient(make_app(redis_url, key_prefix, secret=SECRET), load_openapi())
    key = str(uuid.uuid4())
    created = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert created.status_code == 201
    tokens = [s["token"] for s in created.get_json()["seats"]]
    assert len(idem_names(redis_conn, key_prefix)) == 1
    # the secret is nowhere in Redis: no pepper was generated and kept there
    assert not redis_conn.exists(f"{key_prefix}:idem-secret")

    # whoever has the Redis data and the Idempotency-Key, but not the secret, finds no record
    # (the slot's name is derived under the secret too) and nothing that opens
    without = CreationRecords(redis_conn, key_prefix).slot("POST /games", key)
    assert without.name.encode() not in idem_names(redis_conn, key_prefix)
    wrong = CreationRecords(redis_conn, key_prefix, secret=SECRET + "!").slot("POST /games", key)
    held = wrong.claim()
    assert isinstance(held, Claimed)
    wrong.release(held)

    # with the secret, the record opens: it is the game's answer, both tokens in it
    right = CreationRecords(redis_conn, key_prefix, secret=SECRET).slot("POST /games", key)
    answer = right.claim()
    assert isinstance(answer, RecordedAnswer) and answer.status == 201
    for token in tokens:
        assert token.encode() in answer.body

    # another API process with the same secret replays the answer
    other = ValidatingClient(make_app(redis_url, key_prefix, secret=SECRET), load_openapi())
    again = other.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == created.get_json()


def test_without_a_secret_one_is_made_once_in_redis_and_shared_by_every_process(redis_url, redis_conn, key_prefix):
    one = ValidatingClient(make_app(redis_url, key_prefix), load_openapi())
    key = str(uuid.uuid4())
    created = one.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert created.status_code == 201
    pepper = redis_conn.get(f"{key_prefix}:idem-secret")
    assert pepper is not None and len(pepper) == 32
    two = ValidatingClient(make_app(redis_url, key_prefix), load_openapi())
    again = two.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == created.get_json()
    assert redis_conn.get(f"{key_prefix}:idem-secret") == pepper
    # a process configured with a secret does not see those records (they are sealed without it)
    three = ValidatingClient(make_app(redis_url, key_prefix, secret=SECRET), load_openapi())
    fresh = three.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert fresh.status_code == 201 and "Idempotent-Replayed" not in fresh.headers
    assert fresh.get_json()["game_id"] != created.get_json()["game_id"]


def test_the_secret_setting_is_32_characters_or_more_and_never_shown(monkeypatch):
    monkeypatch.setenv("GINBOX_SECRET", "short-secret-value")
    with pytest.raises(SettingError) as err:
        Settings.from_env()
    assert "GINBOX_SECRET" in str(err.value) and "short-secret-value" not in str(err.value)
    monkeypatch.setenv("GINBOX_SECRET", SECRET)
    settings = Settings.from_env()
    assert settings.secret == SECRET
    assert SECRET not in repr(settings)
    monkeypatch.setenv("GINBOX_SECRET", "")
    assert Settings.from_env().secret is None
