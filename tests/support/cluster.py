"""A real three-master Redis Cluster on loopback, for the tests that check the store on a cluster.

Each master is a redis-server child (the binary ``service.redis_process.find_redis_server``
finds) with ``cluster-enabled yes`` and a directory of its own. The 16384 hash slots are split
in three contiguous ranges, assigned with CLUSTER ADDSLOTSRANGE (CLUSTER ADDSLOTS on servers
older than 7.0), the nodes are introduced with CLUSTER MEET, and the cluster is ready when
every node reports ``cluster_state:ok`` and knows all three masters.
"""

from __future__ import annotations

import random
import socket
import time
from pathlib import Path

import redis

from service.redis_process import RedisServerProcess, free_port

SLOTS = 16384


class ClusterNotReady(RuntimeError):
    """The nodes did not agree on a healthy cluster in time."""


def slot_ranges(masters: int) -> list[tuple[int, int]]:
    """Contiguous inclusive slot ranges, one per master, covering 0..16383."""
    bounds = [SLOTS * i // masters for i in range(masters + 1)]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(masters)]


def _free(host: str, port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def cluster_port(host: str = "127.0.0.1", attempts: int = 200) -> int:
    """A free port whose cluster bus port (port + 10000) is free too, so at most 55535."""
    for _ in range(attempts):
        port = free_port(host)
        if port <= 55535 and _free(host, port + 10000):
            return port
        # the kernel's ephemeral range often lies above 55535: try a random port below it
        port = random.randint(20000, 55535)
        if _free(host, port) and _free(host, port + 10000):
            return port
    raise ClusterNotReady("no free port pair (port, port + 10000) found")


class RedisClusterProcesses:
    """N redis-server masters forming one cluster; ``start()`` returns when the cluster is ok."""

    def __init__(self, base_dir: str | Path, masters: int = 3, host: str = "127.0.0.1"):
        self.base_dir = Path(base_dir)
        self.host = host
        self.nodes: list[RedisServerProcess] = []
        for i in range(masters):
            port = cluster_port(host)
            node_dir = self.base_dir / f"node-{i}"
            self.nodes.append(
                RedisServerProcess(
                    node_dir,
                    port=port,
                    host=host,
                    # "everysec": the cluster tests check behaviour, not durability
                    appendfsync="everysec",
                    extra_args=[
                        "--cluster-enabled", "yes",
                        "--cluster-config-file", str(node_dir / "nodes.conf"),
                        "--cluster-node-timeout", "5000",
                    ],
                )
            )

    def client(self, **kwargs) -> "redis.cluster.RedisCluster":
        """A RedisCluster client that discovers the nodes from the first one."""
        from redis.cluster import RedisCluster

        first = self.nodes[0]
        kwargs.setdefault("socket_timeout", 5.0)
        kwargs.setdefault("socket_connect_timeout", 5.0)
        return RedisCluster(host=first.host, port=first.port, **kwargs)

    def start(self, timeout: float = 30.0) -> "RedisClusterProcesses":
        try:
            for node in self.nodes:
                node.start()
            self._assign_slots()
            self._meet()
            self._wait_ok(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _plain(self, node: RedisServerProcess) -> redis.Redis:
        return redis.Redis(host=node.host, port=node.port, socket_timeout=5.0, decode_responses=True)

    def _assign_slots(self) -> None:
        for node, (first, last) in zip(self.nodes, slot_ranges(len(self.nodes))):
            conn = self._plain(node)
            try:
                try:
                    conn.execute_command("CLUSTER ADDSLOTSRANGE", first, last)
                except redis.ResponseError as exc:
                    # Redis < 7.0 has no ADDSLOTSRANGE: name every slot, in chunks
                    if "unknown subcommand" not in str(exc).lower() and "unknown command" not in str(exc).lower():
                        raise
                    for start in range(first, last + 1, 1000):
                        conn.execute_command("CLUSTER ADDSLOTS", *range(start, min(start + 1000, last + 1)))
            finally:
                conn.close()

    def _meet(self) -> None:
        first = self._plain(self.nodes[0])
        try:
            for node in self.nodes[1:]:
                first.execute_command("CLUSTER MEET", node.host, node.port)
        finally:
            first.close()

    def _wait_ok(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            ready = True
            for node in self.nodes:
                conn = self._plain(node)
                try:
                    info = conn.cluster("INFO")
                except redis.RedisError as exc:
                    info = {"error": str(exc)}
                finally:
                    conn.close()
                state, known = info.get("cluster_state"), int(info.get("cluster_known_nodes", 0))
                if state != "ok" or known != len(self.nodes):
                    ready, last = False, f"{node.port}: {info}"
                    break
            if ready:
                return
            time.sleep(0.1)
        raise ClusterNotReady(f"cluster not ok after {timeout}s: {last[:300]}")

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()  # test data only: no need for a clean shutdown

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
