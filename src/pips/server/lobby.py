"""The lobby across server processes: each process publishes its public tables to the
broker for a little longer than a tick, and reads every other's (:mod:`pips.server.cluster`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pips.server.cluster import Cluster


class Lobby:
    """One process's share of the lobby, and the lobby of all of them."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def key(self, node: str) -> str:
        return f"{self.cluster.prefix}lobby:{node}"

    async def public(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The public tables of every node: those waiting or being played, and those
        finished lately (a finished table stays live for a while, ``keep_finished``)."""
        cluster = self.cluster
        every = [t.summary() for t in cluster.tables.live.values() if not t.private]
        if cluster.redis is not None:
            nodes = [n.decode() for n in await cluster.redis.smembers(cluster.nodes)]
            others = [n for n in nodes if n != cluster.node]
            async with cluster.redis.pipeline(transaction=False) as pipe:
                for node in others:
                    pipe.hvals(self.key(node))
                found = await pipe.execute()
            for values in found:
                every.extend(json.loads(v) for v in values)
        finished = [table for table in every if table["status"] == "finished"]
        # (A table closed unfinished stays live a while too: it is neither.)
        going = [table for table in every if table["status"] in ("waiting", "playing")]
        return going, finished

    async def announce_tables(self) -> None:
        """This node's public tables for the other nodes' lobbies, for a little longer
        than a tick (a node that dies drops out of the lobby by itself)."""
        cluster = self.cluster
        assert cluster.redis is not None
        summaries = {
            t.id: json.dumps(t.summary()) for t in cluster.tables.live.values() if not t.private
        }
        key = self.key(cluster.node)
        async with cluster.redis.pipeline(transaction=True) as pipe:
            pipe.delete(key)
            if summaries:
                pipe.hset(key, mapping=summaries)
                pipe.expire(key, max(2, int(3 * cluster.tick)))
            pipe.sadd(cluster.nodes, cluster.node)
            await pipe.execute()
