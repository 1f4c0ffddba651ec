"""GET /metrics and GET /health: what the devnet does, for Prometheus, and whether it can produce blocks.

/metrics gathers, in a registry of this server's own, the submissions this REST API
took in or refused (by error code), the ledger's counters and histograms
(:mod:`xo_devnet.ledger_metrics`), and gauges read off the ledger at scrape time:
queue depth, head, BlockInfo, subscribers, websockets, processors. Every label value
comes from a fixed list (error codes), never from what a client sent.

/health answers 200 while the ledger can produce blocks and 503 with the reason (code
15, a Sawtooth-style error body) once it cannot, for a container health check or an
orchestrator's readiness probe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from xo_core import block_info
from xo_core.protobuf.block_info_pb2 import BlockInfoConfig
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.keys import LEDGER, METRICS
from xo_devnet.rest.responses import json_response
from xo_devnet.rest.submissions import Submissions


class DevnetCollector(Collector):
    """Everything /metrics shows: the counters kept as the devnet works, and gauges read at each scrape."""

    def __init__(self, ledger: Ledger, submissions: Submissions, websocket_clients: Callable[[], int]) -> None:
        self._ledger = ledger
        self._submissions = submissions
        self._websocket_clients = websocket_clients

    def collect(self) -> Iterator[Metric]:
        """The counters as they stand and the gauges read now: a scrape sees the ledger of that moment."""
        ledger = self._ledger
        yield from self._submissions.received.collect()
        yield from self._submissions.refused.collect()
        yield from ledger.metrics.collect()
        pending = ledger.pending_batches
        yield _gauge("xo_devnet_pending_batches", "Batches accepted and not decided yet.", pending.count)
        yield _gauge("xo_devnet_pending_batches_limit", "Pending batches the ledger takes at most.", pending.capacity)
        yield _gauge(
            "xo_devnet_waiting_batches",
            "Pending batches that cannot run yet: a dependency not run, or no processor for their family.",
            pending.waiting_count,
        )
        yield _gauge(
            "xo_devnet_waiting_batches_limit", "Places the queue keeps for batches that cannot run yet.",
            pending.waiting_capacity,
        )  # fmt: skip
        yield _gauge(
            "xo_devnet_waiting_batches_ratio",
            "Share of the pending batches held by batches that cannot run yet (0 when none is pending).",
            pending.waiting_count / pending.count if pending.count else 0.0,
        )
        head = header_of(ledger.chain_head())
        yield _gauge("xo_devnet_head_block_number", "Number of the newest durable block (the chain head).",
                     head.block_num)  # fmt: skip
        yield _gauge(
            "xo_devnet_block_info_block_number",
            "Number of the newest block a BlockInfo in the head's state describes (-1: none yet).",
            _block_info_height(ledger, head.state_root_hash),
        )
        hub = ledger.events
        yield _gauge(
            "xo_devnet_event_subscribers",
            "Event subscribers: ZMQ event subscriptions and /subscriptions websockets together.",
            hub.subscriber_count,
        )
        yield CounterMetricFamily(
            "xo_devnet_event_subscribers_dropped",
            "Event subscribers the ledger ended: not reading, too slow a filter, or an internal error.",
            value=hub.dropped,
        )
        yield _gauge("xo_devnet_websocket_clients", "Open /subscriptions websockets.", self._websocket_clients())
        yield _gauge("xo_devnet_processors", "Family versions with a processor registered.", len(ledger.processors()))
        yield _gauge(
            "xo_devnet_producing_blocks", "1 while the ledger can produce blocks (/health is 200), else 0.",
            int(ledger.failure is None),
        )  # fmt: skip


def _gauge(name: str, text: str, value: float) -> GaugeMetricFamily:
    """A gauge read at scrape time (nothing kept between scrapes)."""
    return GaugeMetricFamily(name, text, value=value)


def _block_info_height(ledger: Ledger, state_root: str) -> int:
    """The block the newest BlockInfo describes, from the BlockInfo config in state; -1 before the first."""
    data = ledger.state_get(block_info.CONFIG_ADDRESS, state_root)
    return BlockInfoConfig.FromString(data).latest_block if data else -1


def metrics_registry(
    ledger: Ledger, submissions: Submissions, websocket_clients: Callable[[], int]
) -> CollectorRegistry:
    """A registry of this server's own: nothing else in the process adds to it."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DevnetCollector(ledger, submissions, websocket_clients))
    return registry


async def get_metrics(request: web.Request) -> web.Response:
    """``GET /metrics``: this server's registry in Prometheus' text format."""
    response = web.Response(body=generate_latest(request.app[METRICS]))
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    return response


async def get_health(request: web.Request) -> web.Response:
    """``GET /health``: 200 with the head while blocks can be produced, else 503 (code 15) naming why."""
    ledger = request.app[LEDGER]
    failure = ledger.failure
    if failure is not None:
        raise ApiError(15, failure)
    head = header_of(ledger.chain_head())
    return json_response({"data": {"status": "ok", "head_block_num": head.block_num}})
