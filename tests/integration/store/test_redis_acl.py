"""The Redis ACL service/docs/SECURITY.md recommends: the service works, and cannot delete or trim events."""

from __future__ import annotations

import secrets

import pytest
import redis

from service.app import create_app
from service.config import Settings
from service.connections import redis_client
from support.apiclient import ValidatingClient

# The ACL of the security guide, with the key prefix of this test in place of "ginbox".
EVENT_USER_RULES = (
    "on {password} resetkeys ~{prefix}:* resetchannels "
    "+@all -xdel -xtrim -del -unlink -rename -renamenx -restore -migrate -copy -move -swapdb "
    "-flushdb -flushall -config -shutdown -debug -acl -module -keys"
)


@pytest.fixture
def acl_user(redis_conn, redis_server, key_prefix):
    if redis_server[1] is None:
        pytest.fail("this test creates an ACL user, so it needs the Redis server the tests start themselves")
    name, password = f"ginbox-{key_prefix}", secrets.token_hex(16)
    rules = EVENT_USER_RULES.format(password=">" + password, prefix=key_prefix).split()
    redis_conn.execute_command("ACL", "SETUSER", name, *rules)
    host, port = redis_server[1].host, redis_server[1].port
    yield f"redis://{name}:{password}@{host}:{port}/0"
    redis_conn.execute_command("ACL", "DELUSER", name)


def test_the_recommended_acl_lets_the_service_play_and_forbids_deleting_events(acl_user, redis_url, key_prefix):
    # the job queue may use another user (RQ_REDIS_URL); here the server's default one
    app = create_app(Settings(redis_url=acl_user, rq_redis_url=redis_url, key_prefix=key_prefix,
                              rate_limit_per_minute=1000))
    client = ValidatingClient(app)
    assert client.get("/readyz").status_code == 200
    created = client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}],
                                          "options": {"target_score": 10}})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game_id"]
    tokens = [s["token"] for s in created.get_json()["seats"]]
    # play ten moves through the API with the restricted user: appends, views, idempotency keys
    for n in range(10):
        views = [client.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {t}"}).get_json() for t in tokens]
        seat = next(i for i, v in enumerate(views) if v["legal_moves"])
        move = views[seat]["legal_moves"][0]
        resp = client.post(f"/games/{game_id}/moves", json=move,
                           headers={"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": f"k{n}"})
        assert resp.status_code == 200, resp.get_json()
    assert client.get("/games?limit=5").status_code == 200
    assert client.get(f"/games/{game_id}/events").status_code == 200

    restricted = redis_client(acl_user)
    stream = f"{key_prefix}:{{{game_id}}}:stream"
    length = restricted.xlen(stream)
    assert length > 10
    for command in (("XDEL", stream, "1-1"), ("XTRIM", stream, "MAXLEN", "0"), ("DEL", stream),
                    ("UNLINK", stream), ("RENAME", stream, f"{key_prefix}:x"), ("FLUSHDB",)):
        with pytest.raises(redis.exceptions.NoPermissionError):
            restricted.execute_command(*command)
    # not even from inside a script: ACLs apply to what a script calls
    with pytest.raises(redis.exceptions.ResponseError, match="(?i)can't run this command|noperm|no permission"):
        restricted.eval("return redis.call('XTRIM', KEYS[1], 'MAXLEN', 0)", 1, stream)
    assert restricted.xlen(stream) == length
