"""The EventStore behaviour suite, unchanged, on a real three-master Redis Cluster.

A game's keys share the hash tag ``{<game_id>}`` and the index has its own tag, so on a cluster
the append script runs in one slot and the index is brought up to date after it. The suite
classes are the ones every backend passes; only ``make_store`` differs.
"""

from __future__ import annotations

import pytest
from redis.crc import key_slot
from support.store_behaviour import (
    EngineEventsBehaviour,
    EventStoreBehaviour,
    GameRepositoryBehaviour,
    StepClock,
    TestCodec,
    events,
)
from support.cluster import RedisClusterProcesses, slot_ranges

from service.store.redis_snapshots import RedisSnapshotStore
from service.store.redis_store import RedisEventStore


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    nodes = RedisClusterProcesses(tmp_path_factory.mktemp("cluster")).start()
    try:
        yield nodes
    finally:
        nodes.stop()


@pytest.fixture(scope="module")
def cluster_client(cluster):
    client = cluster.client()
    yield client
    client.close()


def cluster_store_factory(client, key_prefix):
    def make(codec=None, clock=None):
        return RedisEventStore(client, codec or TestCodec(), prefix=key_prefix, clock=clock)

    return make


class TestRedisEventStoreOnACluster(EventStoreBehaviour):
    @pytest.fixture
    def make_store(self, cluster_client, key_prefix):
        return cluster_store_factory(cluster_client, key_prefix)


class TestEngineEventsOnACluster(EngineEventsBehaviour):
    @pytest.fixture
    def make_store(self, cluster_client, key_prefix):
        return cluster_store_factory(cluster_client, key_prefix)


class TestGameRepositoryOnACluster(GameRepositoryBehaviour):
    @pytest.fixture
    def make_store(self, cluster_client, key_prefix):
        return cluster_store_factory(cluster_client, key_prefix)


def test_the_cluster_has_three_masters_that_share_every_slot(cluster, cluster_client):
    masters = cluster_client.get_primaries()
    assert sorted(n.port for n in masters) == sorted(n.port for n in cluster.nodes)
    # 16384 slots in three ranges: 0..5460, 5461..10921, 10922..16383
    assert slot_ranges(3) == [(0, 5460), (5461, 10921), (10922, 16383)]


def test_on_a_cluster_the_index_is_kept_outside_the_append_script(cluster_client, key_prefix):
    store = RedisEventStore(cluster_client, TestCodec(), prefix=key_prefix, clock=StepClock())
    assert store.inline_index is False
    store.append("g1", events("a"), 0, meta={"status": "waiting", "variant": "gin-rami"})
    store.append("g1", events("b"), 1, meta={"status": "playing"})
    [summary], cursor = store.index.list_games(status="playing")
    assert (summary["game_id"], summary["version"], cursor) == ("g1", 2, None)
    assert store.index.list_games(status="waiting") == ([], None)


def test_games_spread_over_the_masters_and_each_game_stays_in_one_slot(cluster, cluster_client, key_prefix):
    store = RedisEventStore(cluster_client, TestCodec(), prefix=key_prefix)
    owners = set()
    for i in range(30):
        game_id = f"game-{i}"
        store.append(game_id, events("a"), 0, "key-1", meta={"status": "waiting"})
        RedisSnapshotStore(cluster_client, key_prefix).save(game_id, 1, {"n": i})
        slots = {key_slot(store._key(game_id, kind).encode()) for kind in ("stream", "meta", "idem", "snap")}
        assert len(slots) == 1
        owners.add(cluster_client.get_node_from_key(store._key(game_id, "stream")).port)
    # 30 random-looking tags land on more than one master (a 3**-29 chance of one master only)
    assert len(owners) > 1
    assert len(store.index.list_games(limit=100)[0]) == 30
