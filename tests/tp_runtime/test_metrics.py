"""A processor's metrics, scraped over HTTP while it serves xo transactions to a validator peer."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from rps_tp import family as rps_family
from tests.scraping import convention_problems, scrape, value
from tests.tp_runtime.conftest import PROCESSOR_MODULES
from tests.tp_runtime.validator_peer import DEADLINE, ValidatorPeer, signer_key, xo_request
from tp_runtime.config import MetricsAddress
from tp_runtime.metrics import MetricsServer, ProcessorCollector, namespace_of, serve_metrics
from tp_runtime.tallies import DurationTally, ProcessorTallies
from xo_core.protobuf.validator_pb2 import Message
from xo_tp.handler import XoTransactionHandler

ALICE, BOB = signer_key(1), signer_key(2)


@pytest.fixture
def tallies() -> ProcessorTallies:
    return ProcessorTallies()


@pytest.fixture
def served(peer, run_processor, tallies) -> Iterator[MetricsServer]:
    """xo-tp's handler in a processor that counts, registered with ``peer``, its metrics on a free port."""
    processor = run_processor(peer.url, XoTransactionHandler(), tallies=tallies).processor
    collector = ProcessorCollector("xo_tp", tallies, processor.family_versions, lambda: processor.in_flight)
    server = serve_metrics(MetricsAddress("127.0.0.1", 0), collector)
    peer.expect_registration()
    try:
        yield server
    finally:
        server.close()


def eventually_scrape(server: MetricsServer, sample: str, expected: float) -> dict:
    """Scrape until ``sample`` reaches ``expected`` (what the processor's loop does lands a moment later)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        families = scrape(server.url)
        if value(families, sample) == expected or time.monotonic() > deadline:
            return families
        time.sleep(0.02)


def test_counts_every_transaction_by_result_and_every_call_it_made(peer, served):
    server = served
    outcomes = [
        peer.process(xo_request("count", "create", signer=ALICE)).status,
        peer.process(xo_request("count", "take", 5, signer=ALICE)).status,
        peer.process(xo_request("count", "take", 5, signer=BOB)).status,  # taken already
        peer.process(xo_request("count", "take", 0, signer=BOB, payload=b"count,take,0")).status,  # no space 0
        peer.process(xo_request("count", "take", 1, signer=BOB)).status,
        peer.process(xo_request("count", "delete", signer=ALICE)).status,
    ]
    assert outcomes == ["OK", "OK", "INVALID_TRANSACTION", "INVALID_TRANSACTION", "OK", "OK"]

    families = eventually_scrape(server, "xo_tp_registered", 1)

    assert value(families, "xo_tp_transactions_total", result="ok", family_version="1.0") == 4
    assert value(families, "xo_tp_transactions_total", result="invalid", family_version="1.0") == 2
    assert value(families, "xo_tp_transactions_total", result="internal_error", family_version="1.0") == 0
    assert value(families, "xo_tp_transaction_processing_seconds_count") == 6
    assert value(families, "xo_tp_transaction_processing_seconds_bucket", le="+Inf") == 6
    assert 0 < value(families, "xo_tp_transaction_processing_seconds_sum") < 6 * DEADLINE
    # the malformed payload is refused before any read; the occupied square after one
    assert value(families, "xo_tp_state_reads_total") == 5
    assert value(families, "xo_tp_state_writes_total") == 3
    assert value(families, "xo_tp_state_deletes_total") == 1
    assert value(families, "xo_tp_events_added_total") == 4
    assert value(families, "xo_tp_transactions_in_flight") == 0
    assert value(families, "xo_tp_registrations_total") == 1
    assert value(families, "xo_tp_reconnects_total") == 0


def test_a_transaction_waiting_for_the_validator_is_in_flight(peer, served):
    server = served
    request = xo_request("pending", "create", signer=ALICE)
    correlation_id = peer.start_transaction(request)
    read = peer.receive_type(Message.TP_STATE_GET_REQUEST)

    assert value(scrape(server.url), "xo_tp_transactions_in_flight") == 1

    peer.answer_call(request, read, [], [])
    assert peer.serve(request, correlation_id).status == "OK"
    assert value(eventually_scrape(server, "xo_tp_transactions_in_flight", 0), "xo_tp_transactions_in_flight") == 0


def test_losing_the_validator_and_registering_again_is_counted(peer, served):
    server = served
    eventually_scrape(server, "xo_tp_registered", 1)
    port = peer.port
    peer.close()

    assert value(eventually_scrape(server, "xo_tp_registered", 0), "xo_tp_registered") == 0
    with ValidatorPeer(port) as reborn:
        reborn.expect_registration()
        families = eventually_scrape(server, "xo_tp_registrations_total", 2)

    assert value(families, "xo_tp_registrations_total") == 2
    assert value(families, "xo_tp_registered") == 1
    assert value(families, "xo_tp_reconnects_total") >= 1


def test_every_name_follows_prometheus_conventions_and_no_label_takes_client_text(served):
    server = served
    families = scrape(server.url)

    assert convention_problems(families.values(), "xo_tp") == []
    labels = {key for family in families.values() for sample in family.samples for key in sample.labels}
    assert labels == {"result", "family_version", "le"}
    versions = {sample.labels.get("family_version") for sample in families["xo_tp_transactions"].samples}
    assert versions == {"1.0"}


def test_the_registry_is_the_processors_own(served):
    server = served
    families = scrape(server.url)

    assert not any(name.startswith(("python_", "process_")) for name in families)


#: How many family versions a processor command registers, where it is more than one.
REGISTERED_VERSIONS = {"rps-tp": len(rps_family.FAMILY_VERSIONS)}


@pytest.mark.subprocess
@pytest.mark.parametrize("command", sorted(PROCESSOR_MODULES))
def test_every_processor_command_serves_metrics_under_its_own_name(peer, start_tp, command):
    tp = start_tp("-C", peer.url, "--metrics", "127.0.0.1:0", command=command)
    url = tp.wait_for_log("serving metrics at ").split("serving metrics at ", 1)[1].split()[0]
    for _ in range(REGISTERED_VERSIONS.get(command, 1)):  # rps-tp: 2.0, and 1.0 to refuse it
        peer.expect_registration()
    namespace = command.replace("-", "_")
    deadline = time.monotonic() + DEADLINE
    while value(families := scrape(url), f"{namespace}_registered") != 1:
        assert time.monotonic() < deadline, "never registered"
        time.sleep(0.02)

    assert value(families, f"{namespace}_registrations_total") == 1
    assert value(families, f"{namespace}_transactions_total", result="ok", family_version="1.0") == 0
    assert convention_problems(families.values(), namespace) == []


def test_a_second_server_on_the_same_port_is_an_os_error(served, tallies):
    server = served
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    collector = ProcessorCollector("xo_tp", tallies, ["1.0"], lambda: 0)

    with pytest.raises(OSError):
        serve_metrics(MetricsAddress("127.0.0.1", port), collector)


def test_the_server_stops_when_closed(tallies):
    server = serve_metrics(MetricsAddress("127.0.0.1", 0), ProcessorCollector("demo_tp", tallies, [], lambda: 0))
    url = server.url
    assert "demo_tp_transactions_in_flight" in scrape(url)
    server.close()

    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)


def test_a_close_stops_the_server_at_once_not_at_its_next_poll(tallies):
    # socketserver's serve_forever notices a shutdown only every 0.5 s: five closes would take about 1.25 s
    collector = ProcessorCollector("demo_tp", tallies, [], lambda: 0)
    closing = 0.0
    for _ in range(5):
        server = serve_metrics(MetricsAddress("127.0.0.1", 0), collector)
        assert "demo_tp_registered" in scrape(server.url)
        started = time.monotonic()
        server.close()
        closing += time.monotonic() - started

    assert closing < 0.5


def test_durations_land_in_the_first_bucket_at_least_as_large():
    tally = DurationTally((0.001, 0.01))
    for seconds in (0.0005, 0.001, 0.002, 0.5):
        tally.observe(seconds)

    assert tally.counts == [2, 1, 1]
    assert tally.total == pytest.approx(0.5035)


def test_the_namespace_is_the_commands_name():
    assert namespace_of("xo-tp") == "xo_tp"
    assert namespace_of("chips-tp") == "chips_tp"
