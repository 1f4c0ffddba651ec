"""ZMQ event clients for ``filter_flood.py``, in a process of their own: --count with --pattern, one honest.

Each client subscribes to ``xo/create`` events whose ``name`` attribute matches its
filter (REGEX_ANY), and to block commits, so it gets one message per block. The
clients with ``--pattern`` are the attack; one more, with a plain prefix pattern, is
an honest subscriber. Prints ``ready`` once every subscription is answered OK, then
drains every socket until SIGTERM and prints one JSON line: the block numbers the
honest client got, and how many blocks each attacker got (min and max). An attacker
that was dropped subscribes again (a subscribe replaces the one before, so it never
holds more places), to be back for the next block: when the honest client gets block
N, every attacker that has not got block N - 1 subscribes again.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time

import zmq

from xo_core.protobuf.client_event_pb2 import ClientEventsSubscribeRequest, ClientEventsSubscribeResponse
from xo_core.protobuf.events_pb2 import EventFilter, EventList, EventSubscription
from xo_core.protobuf.validator_pb2 import Message

HONEST_PATTERN = "^honest-"


def subscribe_request(pattern: str) -> bytes:
    request = ClientEventsSubscribeRequest(
        subscriptions=[
            EventSubscription(event_type="sawtooth/block-commit"),
            EventSubscription(
                event_type="xo/create",
                filters=[EventFilter(key="name", match_string=pattern, filter_type=EventFilter.REGEX_ANY)],
            ),
        ]
    )
    message = Message(
        message_type=Message.CLIENT_EVENTS_SUBSCRIBE_REQUEST,
        correlation_id="subscribe",
        content=request.SerializeToString(),
    )
    return message.SerializeToString()


def block_num(content: bytes) -> int | None:
    for event in EventList.FromString(content).events:
        if event.event_type == "sawtooth/block-commit":
            return int(next(item.value for item in event.attributes if item.key == "block_num"))
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--pattern", required=True)
    args = parser.parse_args()
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    context = zmq.Context()
    sockets = []
    for number in range(args.count + 1):
        socket = context.socket(zmq.DEALER)
        socket.setsockopt(zmq.LINGER, 0)
        socket.connect(args.endpoint)
        socket.send(subscribe_request(HONEST_PATTERN if number == args.count else args.pattern))
        sockets.append(socket)
    poller = zmq.Poller()
    for socket in sockets:
        poller.register(socket, zmq.POLLIN)
    answered: set[int] = set()
    received: list[list[int]] = [[] for _ in sockets]
    subscribed_after: list[int | None] = [None] * args.count
    """The newest block the honest client had when each attacker last subscribed."""

    def resubscribe_dropped(number: int) -> None:
        """The honest client got block ``number``: attackers subscribed before ``number - 1`` that lack it, again."""
        for attacker, after in enumerate(subscribed_after):
            if after is None:
                subscribed_after[attacker] = number - 1
            elif number - 1 > after and number - 1 not in received[attacker]:
                sockets[attacker].send(subscribe_request(args.pattern))
                subscribed_after[attacker] = number

    deadline = time.monotonic() + 60
    ready = False
    while not stopping:
        if not ready and len(answered) == len(sockets):
            print("ready", flush=True)
            ready = True
        if not ready and time.monotonic() > deadline:
            print("not all subscriptions were answered", file=sys.stderr)
            return 1
        for socket, _ in poller.poll(100):
            index = sockets.index(socket)
            message = Message.FromString(socket.recv())
            if message.message_type == Message.CLIENT_EVENTS_SUBSCRIBE_RESPONSE:
                response = ClientEventsSubscribeResponse.FromString(message.content)
                if response.status != ClientEventsSubscribeResponse.OK and not ready:
                    print(f"subscription refused: {response.response_message}", file=sys.stderr)
                    return 1
                answered.add(index)
            elif message.message_type == Message.CLIENT_EVENTS:
                number = block_num(message.content)
                if number is not None:
                    received[index].append(number)
                    if index == args.count:
                        resubscribe_dropped(number)
    counts = [len(set(blocks)) for blocks in received[:-1]]
    summary = {"honest_blocks": received[-1], "attacker_blocks_min": min(counts), "attacker_blocks_max": max(counts)}
    print(json.dumps(summary))
    for socket in sockets:
        socket.close()
    context.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())
