"""The DEALER connection to the validator: how big its send queue is and what a full one means."""

import pytest
import zmq

from tests.tp_runtime.validator_peer import ValidatorPeer
from tp_runtime.config import MAX_MAX_OCCUPANCY
from tp_runtime.connection import ValidatorConnection, send_queue_limit
from tp_runtime.errors import ValidatorConnectionLost

BIG_FRAME = b"x" * (4 << 20)  # as large as the biggest loopback socket buffer Linux grows by default
MOST_FRAMES = 32  # a stalled peer and full kernel buffers hold a handful of them; a bound keeps a failure small


@pytest.mark.parametrize("max_occupancy", [1, 10, MAX_MAX_OCCUPANCY])
def test_the_send_queue_holds_far_more_than_the_transactions_in_flight_can_produce(max_occupancy):
    # each transaction in flight has one request or one response on its way; pings and registrations come on top
    assert send_queue_limit(max_occupancy) >= 2 * max_occupancy + 1000


def test_a_full_send_queue_closes_the_connection_and_reports_it_once():
    losses: list[float] = []
    context = zmq.Context()
    with ValidatorPeer(stall_after=1) as peer:
        connection = ValidatorConnection(context, peer.url, send_queue=1, on_lost=lambda: losses.append(1.0))
        try:
            with pytest.raises(ValidatorConnectionLost, match="stopped reading its messages"):
                for _ in range(MOST_FRAMES):
                    connection.send(BIG_FRAME)

            assert connection.closed
            assert losses == [1.0]
            with pytest.raises(ValidatorConnectionLost, match="is closed"):
                connection.send(b"after")
            assert losses == [1.0]
        finally:
            connection.close()
            context.term()
