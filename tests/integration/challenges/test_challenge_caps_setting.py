"""The caps on pending challenges come from the settings, and a cap of 0 is none (as for matches)."""

from __future__ import annotations

from support.apiclient import ValidatingClient, make_app


def _pending(client, n: int) -> list[int]:
    return [client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": f"p{i}"}).status_code
            for i in range(n)]


def test_a_challenger_cap_of_2_refuses_the_third(redis_url, key_prefix):
    client = ValidatingClient(make_app(redis_url, key_prefix, challenges_per_challenger=2))
    assert client.post("/bots", json={"name": "alpha", "description": "d", "owner": "o"}).status_code == 201
    statuses = _pending(client, 3)
    assert statuses == [201, 201, 409]
    third = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "p9"})
    assert third.get_json()["code"] == "too_many_challenges"


def test_caps_of_0_refuse_none(redis_url, key_prefix):
    client = ValidatingClient(make_app(redis_url, key_prefix, challenges_per_challenger=0, challenges_per_bot=0))
    assert client.post("/bots", json={"name": "alpha", "description": "d", "owner": "o"}).status_code == 201
    # more than either default cap (5 per challenger, 20 per bot), all from one address to one bot
    assert _pending(client, 22) == [201] * 22
