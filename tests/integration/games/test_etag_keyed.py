"""A view's ETag is keyed with the server's secret: whoever sees a tag (in a log, a proxy, a shared
cache) cannot test guesses of the hidden view it stands for by hashing candidate bodies, yet every
process of one server (each app built on the same Redis and secret, as gunicorn's workers are)
gives a view the same tag, so a poll answered by one process is answered 304 by another."""

from __future__ import annotations

import hashlib
import re

from support.apiclient import ValidatingClient, load_openapi, make_app
from support.gameplay import Game, create_game

VIEW_TAG = re.compile(r'"([0-9]+)-([0-9a-f]{16})"')
SECRET = "a server secret of at least 32 characters"
OTHER_SECRET = "another server secret, also 32+ characters"


def _client(redis_url, key_prefix, **settings) -> ValidatingClient:
    return ValidatingClient(make_app(redis_url, key_prefix, **settings), load_openapi())


def _view(api, g, seat, etag=None):
    headers = {"If-None-Match": etag} if etag is not None else {}
    return api.get(f"/games/{g.game_id}", token=g.token(seat), headers=headers)


def test_a_view_tag_is_not_the_plain_hash_of_the_view(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    for seat in (0, 1, None):
        resp = _view(api, g, seat)
        version, digest = VIEW_TAG.fullmatch(resp.headers["ETag"]).groups()
        assert int(version) == resp.get_json()["version"]
        # a guess of the view (here the view itself) hashed without the key does not give its tag
        assert digest != hashlib.sha256(resp.get_data()).hexdigest()[:16]


def test_two_servers_with_different_secrets_tag_the_same_view_differently(redis_url, key_prefix):
    ours = _client(redis_url, key_prefix, secret=SECRET)
    theirs = _client(redis_url, key_prefix, secret=OTHER_SECRET)
    g = create_game(ours, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    on_theirs = Game(theirs, g.game_id, g.tokens)
    mine, other = _view(ours, g, 0), _view(theirs, on_theirs, 0)
    # the very same bytes, two tags: the tag depends on the secret, not on the body alone
    assert mine.get_data() == other.get_data()
    assert mine.headers["ETag"] != other.headers["ETag"]
    # and a tag of the one server is no tag of the other's
    assert _view(theirs, on_theirs, 0, etag=mine.headers["ETag"]).status_code == 200


def test_processes_sharing_the_secret_give_a_view_one_tag_and_answer_its_poll_304(redis_url, key_prefix):
    first = _client(redis_url, key_prefix, secret=SECRET)
    second = _client(redis_url, key_prefix, secret=SECRET)
    g = create_game(first, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    on_second = Game(second, g.game_id, g.tokens)
    for seat in (0, 1, None):
        tag = _view(first, g, seat).headers["ETag"]
        assert _view(first, g, seat).headers["ETag"] == tag  # stable from one request to the next
        held = _view(second, on_second, seat, etag=tag)
        assert held.status_code == 304 and held.headers["ETag"] == tag
        # weak comparison, as before
        assert _view(second, on_second, seat, etag=f"W/{tag}").status_code == 304


def test_without_a_configured_secret_the_one_kept_in_redis_keys_every_process_alike(redis_url, redis_conn,
                                                                                     key_prefix):
    first, second = _client(redis_url, key_prefix), _client(redis_url, key_prefix)
    g = create_game(first, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    tag = _view(first, g, 0).headers["ETag"]
    # the generated secret (the one the creation records use) is kept once, for every process
    assert redis_conn.exists(f"{key_prefix}:idem-secret")
    held = _view(second, Game(second, g.game_id, g.tokens), 0, etag=tag)
    assert held.status_code == 304 and held.headers["ETag"] == tag
    body = _view(first, g, 0).get_data()
    assert VIEW_TAG.fullmatch(tag).group(2) != hashlib.sha256(body).hexdigest()[:16]
