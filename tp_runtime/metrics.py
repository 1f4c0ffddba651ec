"""A processor's Prometheus metrics: its tallies as metric families, served over HTTP on ``--metrics HOST:PORT``.

Every name starts with the command's (``xo-tp`` -> ``xo_tp_``), so the processors of
one node never clash in a Prometheus that scrapes them all. The registry is the
processor's own, not prometheus-client's process-wide default, so nothing else in the
process (an embedding program, a library) adds to or reads from it. Labels take only
values the processor chooses: ``result`` (ok, invalid, internal_error) and
``family_version`` (a version it serves, or ``unknown``); nothing a client writes in a
transaction ever becomes a label.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from prometheus_client import CollectorRegistry
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from tp_runtime.config import MetricsAddress
from tp_runtime.metrics_http import MetricsHTTPServer
from tp_runtime.tallies import RESULTS, ProcessorTallies
from xo_core.protobuf.validator_pb2 import Message

LOGGER = logging.getLogger("tp_runtime.core")  # a lifecycle line, logged as the core's

CALLS = (
    ("state_reads", Message.TP_STATE_GET_REQUEST, "State get requests sent to the validator."),
    ("state_writes", Message.TP_STATE_SET_REQUEST, "State set requests sent to the validator."),
    ("state_deletes", Message.TP_STATE_DELETE_REQUEST, "State delete requests sent to the validator."),
    ("events_added", Message.TP_EVENT_ADD_REQUEST, "Events added to transactions' receipts."),
    ("receipt_data_added", Message.TP_RECEIPT_ADD_DATA_REQUEST, "Receipt data added to transactions' receipts."),
)
"""(metric name after the namespace, without ``_total``; request type counted; help) of each call counter."""


def namespace_of(prog: str) -> str:
    """The metric names' prefix for a command: ``xo-tp`` -> ``xo_tp``."""
    return prog.replace("-", "_")


class ProcessorCollector(Collector):
    """Reads a processor's tallies into metric families at each scrape; nothing is computed in between."""

    def __init__(
        self,
        namespace: str,
        tallies: ProcessorTallies,
        family_versions: Sequence[str],
        in_flight: Callable[[], int],
    ) -> None:
        self._namespace = namespace
        self._tallies = tallies
        self._versions = list(family_versions)
        self._in_flight = in_flight

    def collect(self) -> Iterator[Metric]:
        """Every metric, each result of each served version present from the start (at zero)."""
        name, tallies = self._namespace, self._tallies
        transactions = CounterMetricFamily(
            f"{name}_transactions",
            "Transactions answered, by result (ok, invalid, internal_error) and family version.",
            labels=["result", "family_version"],
        )
        results = dict(tallies.results)
        for version in dict.fromkeys([*self._versions, *(version for version, _ in results)]):
            for status, result in RESULTS.items():
                transactions.add_metric([result, version], results.get((version, status), 0))
        yield transactions
        yield _histogram(
            f"{name}_transaction_processing_seconds",
            "Time from a transaction's request to its response, handler and validator calls included.",
            tallies.durations.bounds,
            list(tallies.durations.counts),
            tallies.durations.total,
        )
        calls = dict(tallies.calls)
        for metric, message_type, text in CALLS:
            yield CounterMetricFamily(f"{name}_{metric}", text, value=calls.get(message_type, 0))
        yield GaugeMetricFamily(
            f"{name}_transactions_in_flight", "Transactions received and not yet answered.", value=self._in_flight()
        )
        yield CounterMetricFamily(
            f"{name}_registrations", "Times every family version was registered with a validator.",
            value=tallies.registrations,
        )  # fmt: skip
        yield CounterMetricFamily(
            f"{name}_reconnects", "Connections to the validator opened after the first one.", value=tallies.reconnects
        )
        yield GaugeMetricFamily(
            f"{name}_registered", "1 while registered with a validator, else 0.", value=int(tallies.registered)
        )


def _histogram(name: str, text: str, bounds: Sequence[float], counts: list[int], total: float) -> Metric:
    """Prometheus' cumulative buckets from per-bucket counts (the last count: above every bound)."""
    buckets: list[tuple[str, float]] = []
    running = 0
    for bound, count in zip([*(repr(float(bound)) for bound in bounds), "+Inf"], counts, strict=True):
        running += count
        buckets.append((bound, running))
    return HistogramMetricFamily(name, text, buckets=buckets, sum_value=total)


@dataclass
class MetricsServer:
    """The HTTP server answering ``GET /metrics`` on its own thread; ``url`` has the port really bound."""

    server: MetricsHTTPServer

    @property
    def url(self) -> str:
        """The URL Prometheus scrapes, with the port the OS gave (``--metrics 127.0.0.1:0``)."""
        host, port = self.server.server_address[:2]
        host = f"[{host}]" if ":" in str(host) else str(host)
        return f"http://{host}:{port}/metrics"

    def close(self) -> None:
        """Stop answering at once and wait for the server's thread, so a stopped processor leaves no port bound."""
        self.server.close()


def serve_metrics(address: MetricsAddress, collector: Collector) -> MetricsServer:
    """Serve ``collector`` (in a registry of its own) on ``address``; raises OSError if it cannot be bound."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    served = MetricsServer(MetricsHTTPServer(address.host, address.port, registry))
    LOGGER.info("serving metrics at %s", served.url)
    return served
