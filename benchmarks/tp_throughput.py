"""Throughput of a transaction processor (``xo-tp``, ``rps-tp``, ``chips-tp``) over the real validator protocol.

Starts the processor as a subprocess against a ZMQ ROUTER playing the validator: it
registers the processor, keeps ``--window`` transactions in flight across many
games, serves state from memory, and checks every state read, write, delete, event
and response against a script of whole games: a read must be of an address the op
needs, a write must leave exactly the expected bytes, an event must match exactly
(type, every attribute in order, data), each transaction must emit exactly one, and a
message for a transaction or a context that is not in flight counts as an error.

- ``--family xo``: create, legal takes to a win or a tie, delete, next game; the
  expected states come from this script's own model of the XO rules.
- ``--family rps``: create, join, ready, ready, then rounds of commit, commit,
  reveal, reveal with random throws until a player has the points, then delete; the
  validator's state holds a BlockInfo (the ops the handler times, ``TIMED_OPS``:
  the ready that starts play, commits, reveals and claims, read the time). The
  expected states and reads come from the family's own rules, codecs and list of timed
  ops (``rps_tp.rules``, ``rps_tp.state``, ``rps_tp.handler.TIMED_OPS``), so what is
  measured is the processor over the wire, not a second implementation of the rules.
- ``--family chips-conclude`` / ``chips-challenge``: one op per channel, each channel of
  its own two players and funded beforehand (in the validator's initial state): a
  conclude on a final state both signed (two signatures checked; the channel and both
  accounts written), or a challenge with the opener's first move signed by the opener
  (that signature and the challenger's checked, the move checked by the XO app; the
  time read from BlockInfo). Transactions come from ``chips_client``, the expected
  records from ``chips_tp.rules``. A transaction's writes are checked as they come and,
  whole, when it answers.

Prints one JSON line per run:

    {"processor": ..., "metrics": false, "transactions": ..., "window": ..., "txns_per_s": ...,
     "p50_ms": ..., "p99_ms": ..., "cpu_ms_per_txn": ..., "errors": ...}

``cpu_ms_per_txn`` is the processor process's user+system CPU time (all its threads,
from /proc) over the measured transactions, divided by their number.

``--metrics-cost ROUNDS`` measures what ``--metrics`` costs: ROUNDS rounds of one run
without it and one with it (scraped every second, the last scrape checked against the
transactions sent), each round's pair back to back and in turn first, then one more line
with the median of the rounds' ratios:
``{"metrics_cost": {"rounds": ..., "cpu_per_txn_pct": ..., "throughput_loss_pct": ...}}``.

    python benchmarks/tp_throughput.py --window 16 --transactions 20000
    python benchmarks/tp_throughput.py --family rps --window 16 --transactions 20000
    python benchmarks/tp_throughput.py --family chips-conclude --window 16 --transactions 5000
    python benchmarks/tp_throughput.py --metrics-cost 3 --transactions 20000
"""

import argparse
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import zmq
from prometheus_client.parser import text_string_to_metric_families

from chips_client import transactions as chips_tx
from chips_tp import family as chips_family
from chips_tp import rules as chips_rules
from chips_tp import xo_app
from chips_tp.channel import DEFAULT_MIN_DURATION, Fixed
from chips_tp.channel_state import State as ChipsState
from chips_tp.ops import Challenge as ChipsChallenge
from chips_tp.ops import Conclude as ChipsConclude
from chips_tp.ops import Join as ChipsJoin
from chips_tp.ops import Open as ChipsOpen
from chips_tp.payload import parse_payload as chips_parse
from chips_tp.state import Account, Channel, encode_account, encode_channel
from rps_tp import rules as rps_rules
from rps_tp.commitment import commitment
from rps_tp.family import FAMILY_VERSION as RPS_VERSION
from rps_tp.family import FAMILY_VERSIONS as RPS_VERSIONS
from rps_tp.family import game_address as rps_address
from rps_tp.family import transaction_inputs as rps_inputs
from rps_tp.family import transaction_outputs as rps_outputs
from rps_tp.game import COMMIT_PHASE, REVEAL_PHASE, SETUP_PHASE, THROWS, Moment, Settings, moment_of
from rps_tp.handler import TIMED_OPS
from rps_tp.ops import Commit, Create, Delete, Join, Op, Ready, Reveal
from rps_tp.payload import encode_payload as rps_payload
from rps_tp.state import encode_bucket, encode_game
from xo_core import block_info
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig
from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.processor_pb2 import (
    TpProcessRequest,
    TpProcessResponse,
    TpRegisterResponse,
    TpUnregisterResponse,
)
from xo_core.protobuf.state_context_pb2 import (
    TpEventAddRequest,
    TpEventAddResponse,
    TpStateDeleteRequest,
    TpStateDeleteResponse,
    TpStateEntry,
    TpStateGetRequest,
    TpStateGetResponse,
    TpStateSetRequest,
    TpStateSetResponse,
)
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.protobuf.validator_pb2 import Message
from xo_core.signing import Signer

NAMESPACE = hashlib.sha512(b"xo").hexdigest()[:6]
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
WARMUP = 300
SCRAPE_EVERY = 1.0  # seconds; Prometheus scrapes every 15 s by default, so this overstates the cost of scrapes
DEADLINE_S = 300.0
# plain ints: pyzmq's enum wrappers cost microseconds per call, and this loop competes with xo-tp for the CPU
EVENTS = int(zmq.EVENTS)
POLLIN = int(zmq.POLLIN)
NOBLOCK = int(zmq.NOBLOCK)
SNDMORE = int(zmq.SNDMORE)
EVENT_ADDED = TpEventAddResponse(status=TpEventAddResponse.OK).SerializeToString()


@dataclass
class Move:
    """One scripted transaction and what the model says it must do."""

    frame_content: bytes  # the serialised TpProcessRequest
    context_id: str
    reads: frozenset[str]  # every address the op may read
    writes: dict[str, bytes | None]  # exactly what it must leave in state; None: the address must be deleted
    expected_event: "ExpectedEvent"
    setup: dict[str, bytes] = field(default_factory=dict)  # state its game needs before its first move


@dataclass(frozen=True)
class ExpectedEvent:
    """The one event a move must emit, exactly."""

    event_type: str
    attributes: list[tuple[str, str]]
    data: bytes


def address_of(name: str) -> str:
    return NAMESPACE + hashlib.sha512(name.encode()).hexdigest()[:64]


def winner(board: list[str]) -> str | None:
    for a, b, c in LINES:
        if board[a] != "-" and board[a] == board[b] == board[c]:
            return board[a]
    return None


def script_game(name: str, players: tuple[str, str], rng: random.Random, serial: int) -> list[Move]:
    """create, random legal takes until the game ends, delete: with the state after each, by the model."""
    address = address_of(name)
    p1, p2 = players
    moves: list[tuple[bytes, str, bytes | None, ExpectedEvent]] = []
    board = ["-"] * 9
    state = "P1-NEXT"
    keys = ["", ""]

    def entry() -> bytes:
        return f"{name},{''.join(board)},{state},{keys[0]},{keys[1]}".encode()

    created = [("name", name), ("game-state", state), ("signer", p1)]
    moves.append((f"{name},create,".encode(), p1, entry(), ExpectedEvent("xo/create", created, entry())))
    free = list(range(9))
    rng.shuffle(free)
    turn = 0
    while state in ("P1-NEXT", "P2-NEXT"):
        space = free.pop()
        signer = players[turn]
        if not keys[0]:
            keys[0] = signer
        elif not keys[1]:
            keys[1] = signer
        board[space] = "X" if state == "P1-NEXT" else "O"
        won = winner(board)
        if won:
            state = "P1-WIN" if won == "X" else "P2-WIN"
        elif "-" not in board:
            state = "TIE"
        else:
            state = "P2-NEXT" if state == "P1-NEXT" else "P1-NEXT"
        attributes = [("name", name), ("game-state", state), ("signer", signer), ("space", str(space + 1))]
        taken = ExpectedEvent("xo/take", attributes, entry())
        moves.append((f"{name},take,{space + 1}".encode(), signer, entry(), taken))
        turn = 1 - turn
    deleted = [("name", name), ("game-state", "DELETED"), ("signer", p2)]
    moves.append((f"{name},delete,".encode(), p2, None, ExpectedEvent("xo/delete", deleted, b"")))
    scripted = []
    for index, (payload, signer, expected, event) in enumerate(moves):
        header = TransactionHeader(
            family_name="xo",
            family_version="1.0",
            inputs=[address],
            outputs=[address],
            signer_public_key=signer,
            batcher_public_key=signer,
            nonce=f"{serial}-{index}",
            payload_sha512=hashlib.sha512(payload).hexdigest(),
        )
        context_id = f"ctx-{serial}-{index}"
        request = TpProcessRequest(
            header=header, payload=payload, signature=hashlib.sha512(payload + context_id.encode()).hexdigest(),
            context_id=context_id,
        )
        scripted.append(Move(request.SerializeToString(), context_id, frozenset([address]), {address: expected}, event))
    return scripted


RPS_NOW = 1_700_000_000
RPS_BLOCK = 41


def rps_state() -> dict[str, bytes]:
    """The validator's state before any rps game: the BlockInfo of block 41, as the block_info family keeps it."""
    config = BlockInfoConfig(latest_block=RPS_BLOCK, oldest_block=RPS_BLOCK, target_count=256, sync_tolerance=300)
    block = BlockInfo(
        block_num=RPS_BLOCK, previous_block_id="ab" * 64, signer_public_key="02" + "cd" * 32,
        header_signature="ef" * 64, timestamp=RPS_NOW,
    )  # fmt: skip
    return {
        block_info.CONFIG_ADDRESS: config.SerializeToString(),
        block_info.block_address(RPS_BLOCK): block.SerializeToString(),
    }


def script_rps_game(name: str, players: tuple[str, str], rng: random.Random, serial: int) -> list[Move]:
    """create, join, ready x2, rounds of commit x2 and reveal x2 until a player has the points, delete."""
    host, guest = players
    settings = Settings(points=rng.choice((1, 2, 3)), timeout=300)
    lobby = Moment(0, SETUP_PHASE)  # the create joins its host: every op before play is signed for the setup phase
    ops: list[tuple[Op, str]] = [
        (Create(name, settings=settings), host), (Join(name, lobby), guest), (Ready(name, lobby, settings), host),
        (Ready(name, lobby, settings), guest),
    ]  # fmt: skip
    game = None
    scripted: list[Move] = []
    address = rps_address(name)
    timed_reads = frozenset([address, block_info.CONFIG_ADDRESS, block_info.block_address(RPS_BLOCK)])
    round_number = 0
    while True:
        while ops:
            op, signer = ops.pop(0)
            timed = game is not None and isinstance(op, TIMED_OPS)  # as the handler decides when to read the time
            game = rps_rules.apply_op(game, op, signer, RPS_NOW if timed else None)
            attributes = [("name", name), ("game-state", "DELETED" if game is None else game.state), ("signer", signer)]
            if isinstance(op, Commit | Reveal):
                attributes.append(("round", str(op.at.round)))
            event = ExpectedEvent(f"rps/{op.NAME}", attributes, b"" if game is None else encode_game(game))
            written = {address: None if game is None else encode_bucket([game])}
            reads = timed_reads if timed else frozenset([address])
            scripted.append(rps_move(op, signer, f"rps-{serial}-{len(scripted)}", reads, written, event))
        if game is None:
            return scripted
        if game.state == "CONCLUDED":
            ops.append((Delete(name, moment_of(game)), host))
            continue
        round_number += 1
        throws = [rng.choice(THROWS) for _ in players]
        salts = [rng.randbytes(32) for _ in players]
        ops += [
            (Commit(name, Moment(round_number, COMMIT_PHASE), commitment(name, round_number, key, throw, salt)), key)
            for key, throw, salt in zip(players, throws, salts, strict=True)
        ]
        ops += [
            (Reveal(name, Moment(round_number, REVEAL_PHASE), throw, salt), key)
            for key, throw, salt in zip(players, throws, salts, strict=True)
        ]


def rps_move(
    op: Op, signer: str, context_id: str, reads: frozenset[str], writes: dict[str, bytes | None], event: ExpectedEvent
) -> Move:
    payload = rps_payload(op)
    header = TransactionHeader(
        family_name="rps", family_version=RPS_VERSION, inputs=rps_inputs(op.name), outputs=rps_outputs(op.name),
        signer_public_key=signer, batcher_public_key=signer, nonce=context_id,
        payload_sha512=hashlib.sha512(payload).hexdigest(),
    )  # fmt: skip
    request = TpProcessRequest(
        header=header, payload=payload, signature=hashlib.sha512(payload + context_id.encode()).hexdigest(),
        context_id=context_id,
    )
    return Move(request.SerializeToString(), context_id, reads, writes, event)


@dataclass(frozen=True)
class Family:
    """What the benchmark needs to drive one family's processor."""

    module: str  # the processor command's module
    script: Callable[[str, tuple[str, str], random.Random, int], list[Move]]
    initial_state: Callable[[], dict[str, bytes]]
    versions: int = 1  # the family versions the processor registers, each answered


def chips_players(serial: int) -> tuple[Signer, Signer]:
    """Two keys of this game's own: games run side by side, so none shares an account with another."""
    return tuple(Signer.from_hex(f"{2 * serial + seat + 1:064x}") for seat in (0, 1))  # type: ignore[return-value]


def chips_channel(serial: int) -> tuple[Fixed, Signer, Signer, Channel]:
    """A channel of this game's players, funded by both (its turn 0 on chain), as the rules leave it."""
    alice, bob = chips_players(serial)
    fixed = Fixed((alice.public_key, bob.public_key), "xo", 10, (100, 100), 3600, serial)
    opening = ChipsOpen(bob.public_key, "xo", 10, (100, 100), 3600, serial)
    channel, _ = chips_rules.open_channel(
        None, Account(alice.public_key, 100), opening, alice.public_key, DEFAULT_MIN_DURATION
    )
    channel, _ = chips_rules.join(channel, Account(bob.public_key, 100), ChipsJoin(channel.id, 100), bob.public_key)
    return fixed, alice, bob, channel


def chips_move(transaction: Transaction, context_id: str, reads: frozenset[str], channel: Channel, signer: str,
               writes: dict[str, bytes | None], op: str, setup: dict[str, bytes]) -> Move:  # fmt: skip
    """A chips transaction built by the client library, with what the rules say it leaves."""
    header = TransactionHeader.FromString(transaction.header)
    request = TpProcessRequest(header=header, payload=transaction.payload, signature=transaction.header_signature,
                               context_id=context_id)  # fmt: skip
    attributes = [("channel", channel.id.hex()), ("status", channel.status), ("turn", str(channel.turn)),
                  ("signer", signer)]  # fmt: skip
    event = ExpectedEvent(f"chips/{op}", attributes, encode_channel(channel))
    return Move(request.SerializeToString(), context_id, reads, writes, event, setup)


def script_chips_conclude(name: str, players: tuple[str, str], rng: random.Random, serial: int) -> list[Move]:
    """One conclude of a funded channel on a final state both signed: two signatures checked, three records written."""
    fixed, alice, bob, channel = chips_channel(serial)
    stake = rng.choice((-10, 0, 10))
    final = ChipsState(channel.id, 3, True, xo_app.XoData("PlayAgainMeFirst", 0, 0), (100 + stake, 100 - stake))
    signed = chips_tx.signed_state(fixed, final, alice, bob)
    closed = chips_rules.conclude(channel, ChipsConclude(channel.id, signed), bob.public_key, None)
    address = chips_family.channel_address(channel.id)
    accounts = {chips_family.account_address(key): encode_account(Account(key, paid))
                for key, paid in zip(fixed.participants, closed.payout, strict=True)}  # fmt: skip
    context_id = f"chips-{serial}"
    return [chips_move(chips_tx.conclude(bob, fixed, signed), context_id, frozenset([address, *accounts]), closed,
                       bob.public_key, {address: encode_channel(closed), **accounts}, "conclude",
                       {address: encode_channel(channel)})]  # fmt: skip


def script_chips_challenge(name: str, players: tuple[str, str], rng: random.Random, serial: int) -> list[Move]:
    """One challenge with the opener's first move, signed by the opener alone: two signatures checked, one move."""
    fixed, alice, _, channel = chips_channel(serial)
    space = 1 << rng.randrange(9)
    first = ChipsState(channel.id, 1, False, xo_app.XoData("XPlaying", space, 0), (110, 90))
    move = chips_tx.sign_move(fixed, first, alice)
    transaction = chips_tx.challenge(alice, fixed, (move,))
    op = ChipsChallenge(channel.id, (move,), chips_parse(transaction.payload).signature)  # type: ignore[union-attr]
    challenged = chips_rules.challenge(channel, op, alice.public_key, RPS_NOW)
    address = chips_family.channel_address(channel.id)
    reads = frozenset([address, block_info.CONFIG_ADDRESS, block_info.block_address(RPS_BLOCK)])
    writes: dict[str, bytes | None] = {address: encode_channel(challenged)}
    return [chips_move(transaction, f"chips-{serial}", reads, challenged, alice.public_key, writes, "challenge",
                       {address: encode_channel(channel)})]  # fmt: skip


FAMILIES = {
    "xo": Family("xo_tp.cli", script_game, dict),
    "rps": Family("rps_tp.cli", script_rps_game, rps_state, len(RPS_VERSIONS)),  # 2.0, and 1.0 to refuse it
    "chips-conclude": Family("chips_tp.cli", script_chips_conclude, dict),
    "chips-challenge": Family("chips_tp.cli", script_chips_challenge, rps_state),
}


def scripted_games(
    count_needed: int, script: Callable[[str, tuple[str, str], random.Random, int], list[Move]], seed: int = 7
) -> list[deque[Move]]:
    """Enough games for ``count_needed`` transactions; each game's moves must run in order."""
    rng = random.Random(seed)
    players = ("02" + "a1" * 32, "03" + "b2" * 32)
    games: list[deque[Move]] = []
    total = 0
    while total < count_needed:
        moves = script(f"bench-game-{len(games)}", players, rng, len(games))
        games.append(deque(moves))
        total += len(moves)
    return games


def cpu_seconds(pid: int) -> float:
    """User + system CPU of every thread of ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def event_matches(event: Event, expected: ExpectedEvent) -> bool:
    """Type, attributes (all of them, in order) and data exactly as the model says."""
    attributes = [(attribute.key, attribute.value) for attribute in event.attributes]
    return (event.event_type, attributes, event.data) == (expected.event_type, expected.attributes, expected.data)


class Harness:
    """The validator side: one ROUTER, state in a dict, a window of transactions in flight."""

    def __init__(self, window: int, state: dict[str, bytes]) -> None:
        self.window = window
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.ROUTER)
        self.socket.setsockopt(zmq.LINGER, 0)
        port = self.socket.bind_to_random_port("tcp://127.0.0.1")
        self.url = f"tcp://127.0.0.1:{port}"
        self.identity = b""
        self.state = state
        self.errors = 0
        self.error_samples: list[str] = []

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(text)

    def register(self, versions: int, timeout_s: float = 30.0) -> None:
        """Answer OK to the registration of each of the processor's ``versions`` family versions."""
        for _ in range(versions):
            if not self.socket.poll(int(timeout_s * 1000)):
                raise SystemExit("the processor did not register")
            self.identity, frame = self.socket.recv_multipart()
            message = Message.FromString(frame)
            assert message.message_type == Message.TP_REGISTER_REQUEST
            registered = TpRegisterResponse(status=TpRegisterResponse.OK).SerializeToString()
            self.reply(Message.TP_REGISTER_RESPONSE, message.correlation_id, registered)

    def unregister(self, timeout_s: float = 10.0) -> None:
        """Answer the stopping processor's unregistration, as a validator does, so that it exits at once
        instead of waiting out its timeout for an answer (a second a run, longer than a smoke run's work)."""
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0 and self.socket.poll(int(left * 1000)):
            self.identity, frame = self.socket.recv_multipart()
            message = Message.FromString(frame)
            if message.message_type == Message.TP_UNREGISTER_REQUEST:
                unregistered = TpUnregisterResponse(status=TpUnregisterResponse.OK).SerializeToString()
                self.reply(Message.TP_UNREGISTER_RESPONSE, message.correlation_id, unregistered)
                return

    def reply(self, message_type: int, correlation_id: str, content: bytes) -> None:
        frame = Message(message_type=message_type, correlation_id=correlation_id, content=content)
        self.socket.send(self.identity, SNDMORE)
        self.socket.send(frame.SerializeToString())

    def run(self, games: list[deque[Move]], transactions: int) -> list[float]:
        """Run ``transactions`` moves; return each one's latency in seconds."""
        idle = deque(games)
        in_flight: dict[str, tuple[Move, deque[Move], float]] = {}  # correlation id -> move, its game, start
        by_context: dict[str, Move] = {}
        events: dict[str, int] = {}  # context id -> events emitted so far
        applied: dict[str, dict[str, bytes | None]] = {}  # context id -> what it has written (None: deleted)
        latencies: list[float] = []
        sent = 0
        deadline = time.monotonic() + DEADLINE_S

        def launch() -> None:
            nonlocal sent
            game = idle.popleft()
            move = game.popleft()
            correlation_id = f"p{sent}"
            sent += 1
            in_flight[correlation_id] = (move, game, time.perf_counter())
            by_context[move.context_id] = move
            events[move.context_id] = 0
            applied[move.context_id] = {}
            self.reply(Message.TP_PROCESS_REQUEST, correlation_id, move.frame_content)

        def move_of(context_id: str, call: str) -> Move | None:
            move = by_context.get(context_id)
            if move is None:
                self.error(f"{call} for context {context_id!r}, which no transaction in flight has")
            return move

        while sent < min(self.window, transactions):
            launch()
        socket = self.socket
        while in_flight:
            if time.monotonic() > deadline or not socket.poll(10_000):
                raise SystemExit(f"the processor stopped answering with {len(in_flight)} transactions in flight")
            while socket.getsockopt(EVENTS) & POLLIN:
                socket.recv(NOBLOCK)  # the processor's identity: there is only one
                frame = socket.recv(NOBLOCK)
                message = Message.FromString(frame)
                kind = message.message_type
                if kind == Message.TP_STATE_GET_REQUEST:
                    get = TpStateGetRequest.FromString(message.content)
                    move = move_of(get.context_id, "state read")
                    if move is not None and not move.reads.issuperset(get.addresses):
                        self.error(f"{move.context_id}: read {list(get.addresses)}, model says {sorted(move.reads)}")
                    entries = [TpStateEntry(address=a, data=self.state.get(a, b"")) for a in get.addresses]
                    self.reply(
                        Message.TP_STATE_GET_RESPONSE,
                        message.correlation_id,
                        TpStateGetResponse(status=1, entries=entries).SerializeToString(),
                    )
                elif kind == Message.TP_STATE_SET_REQUEST:
                    put = TpStateSetRequest.FromString(message.content)
                    move = move_of(put.context_id, "state write")
                    written = {entry.address: entry.data for entry in put.entries}
                    if move is not None:
                        if any(move.writes.get(address, b"") != data for address, data in written.items()):
                            self.error(f"{move.context_id}: wrote {written}, model says {move.writes!r}")
                        applied[move.context_id].update(written)
                        self.state.update(written)
                    self.reply(
                        Message.TP_STATE_SET_RESPONSE,
                        message.correlation_id,
                        TpStateSetResponse(status=1, addresses=list(written)).SerializeToString(),
                    )
                elif kind == Message.TP_STATE_DELETE_REQUEST:
                    delete = TpStateDeleteRequest.FromString(message.content)
                    move = move_of(delete.context_id, "state delete")
                    if move is not None:
                        if any(move.writes.get(address, b"") is not None for address in delete.addresses):
                            self.error(f"{move.context_id}: deleted {list(delete.addresses)} unexpectedly")
                        applied[move.context_id].update(dict.fromkeys(delete.addresses))
                        for address in delete.addresses:
                            self.state.pop(address, None)
                    self.reply(
                        Message.TP_STATE_DELETE_RESPONSE,
                        message.correlation_id,
                        TpStateDeleteResponse(status=1, addresses=list(delete.addresses)).SerializeToString(),
                    )
                elif kind == Message.TP_EVENT_ADD_REQUEST:
                    add = TpEventAddRequest.FromString(message.content)
                    move = move_of(add.context_id, "event")
                    if move is not None:
                        events[move.context_id] += 1
                        if not event_matches(add.event, move.expected_event):
                            pairs = [(a.key, a.value) for a in add.event.attributes]
                            got = (add.event.event_type, pairs, add.event.data)
                            self.error(f"{move.context_id}: event {got} differs from {move.expected_event}")
                    self.reply(Message.TP_EVENT_ADD_RESPONSE, message.correlation_id, EVENT_ADDED)
                elif kind == Message.TP_PROCESS_RESPONSE:
                    launched = in_flight.pop(message.correlation_id, None)
                    if launched is None:
                        self.error(f"a response to {message.correlation_id!r}, which is not in flight")
                        continue
                    move, game, started = launched
                    latencies.append(time.perf_counter() - started)
                    del by_context[move.context_id]
                    response = TpProcessResponse.FromString(message.content)
                    if response.status != TpProcessResponse.OK:
                        self.error(f"{move.context_id}: {response.status} {response.message}")
                    emitted = events.pop(move.context_id)
                    if applied.pop(move.context_id) != move.writes:
                        self.error(f"{move.context_id}: did not leave in state exactly {move.writes!r}")
                    if emitted != 1:
                        self.error(f"{move.context_id}: {emitted} events, not one")
                    if game:
                        idle.append(game)
                    if sent < transactions:
                        launch()
                else:
                    self.error(f"unexpected {Message.MessageType.Name(kind)}")
        return latencies

    def close(self) -> None:
        self.socket.close(linger=0)
        self.context.term()


def percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


class Scraper:
    """Prometheus' side of a processor run with ``--metrics``: a GET of /metrics every ``SCRAPE_EVERY`` seconds."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.scrapes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scraper", daemon=True)
        self._thread.start()

    def scrape(self) -> str:
        with urllib.request.urlopen(self.url, timeout=10) as response:
            self.scrapes += 1
            return response.read().decode()

    def _run(self) -> None:
        while not self._stop.wait(SCRAPE_EVERY):
            self.scrape()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def metrics_url(log: Path, deadline_s: float = 30.0) -> str:
    """Where the processor serves its metrics: it logs the address once bound, before it connects."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        found = re.search(r"serving metrics at (http://\S+/metrics)", log.read_text())
        if found:
            return found.group(1)
        time.sleep(0.02)
    raise SystemExit(f"the processor never said where it serves metrics:\n{log.read_text()}")


def answered_ok(text: str, family_name: str) -> float:
    """``<family>_tp_transactions_total{result="ok"}`` summed over family versions, from a scrape."""
    wanted = f"{family_name}_tp_transactions"
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        if family.name == wanted
        for sample in family.samples
        if sample.labels.get("result") == "ok"
    )


def measure(
    family_name: str, window: int, transactions: int, max_occupancy: int | None, warmup: int, *, metrics: bool = False
) -> dict:
    """One run of ``family_name``'s processor: ``warmup`` transactions, then ``transactions`` measured.

    With ``metrics`` the processor serves them (``--metrics 127.0.0.1:0``), scraped every
    ``SCRAPE_EVERY`` seconds meanwhile, and its last scrape must count every transaction as ok.
    """
    family = FAMILIES[family_name]
    games = scripted_games(warmup + transactions + 12 * window, family.script)
    state = family.initial_state()
    for game in games:
        state.update(game[0].setup)
    harness = Harness(window, state)
    command = [
        sys.executable, "-m", family.module, "-C", harness.url, "--max-occupancy", str(max_occupancy or window),
    ]  # fmt: skip
    if metrics:
        command += ["--metrics", "127.0.0.1:0"]
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"tp_throughput-{os.getpid()}.log"
    with log.open("w") as log_file:
        processor = subprocess.Popen(command, stderr=log_file)
    scraper = None
    try:
        if metrics:
            scraper = Scraper(metrics_url(log))
        harness.register(family.versions)
        harness.run(games, warmup)
        # the measured run carries on each game where the warm-up left it
        cpu_before = cpu_seconds(processor.pid)
        started = time.perf_counter()
        latencies = harness.run([game for game in games if game], transactions)
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(processor.pid) - cpu_before
        if scraper is not None:
            scraper.stop()
            counted = answered_ok(scraper.scrape(), family_name.partition("-")[0])
            if counted != warmup + transactions:
                harness.error(f"the metrics count {counted:g} transactions ok, not {warmup + transactions}")
    finally:
        if scraper is not None:
            scraper.stop()
        processor.terminate()
        harness.unregister()
        try:
            processor.wait(10)
        except subprocess.TimeoutExpired:
            processor.kill()
        harness.close()
    latencies.sort()
    result: dict[str, object] = {
        "processor": f"{family_name}-tp",
        "metrics": metrics,
        "transactions": len(latencies),
        "window": window,
        "txns_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 3),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 3),
        "cpu_ms_per_txn": round(cpu * 1000 / len(latencies), 4),
        "errors": harness.errors,
    }
    if scraper is not None:
        result["scrapes"] = scraper.scrapes
    if harness.error_samples:
        result["error_samples"] = harness.error_samples
    log.unlink(missing_ok=True)
    return result


def metrics_cost(family_name: str, without: list[dict], with_: list[dict]) -> dict:
    """What metrics cost, as the median over the rounds of each round's ratio (positive: metrics cost more).

    Each round's two runs are next to each other in time, so a ratio within a round cancels most of the
    drift of a shared machine; the median drops the round a neighbour's burst hit.
    """
    rounds = list(zip(without, with_, strict=True))
    cpu = statistics.median(float(on["cpu_ms_per_txn"]) / float(off["cpu_ms_per_txn"]) - 1 for off, on in rounds)
    rate = statistics.median(1 - float(on["txns_per_s"]) / float(off["txns_per_s"]) for off, on in rounds)
    return {
        "processor": f"{family_name}-tp",
        "metrics_cost": {"rounds": len(rounds), "cpu_per_txn_pct": round(cpu * 100, 2),
                         "throughput_loss_pct": round(rate * 100, 2)},
        "errors": 0,
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(FAMILIES), help="whose processor (default xo; with --smoke, each)")
    parser.add_argument("--window", type=positive, default=16, help="transactions in flight (default 16)")
    parser.add_argument("--transactions", type=positive, default=20000, help="measured transactions (default 20000)")
    parser.add_argument("--max-occupancy", type=positive, help="the processor's --max-occupancy (default: the window)")
    parser.add_argument(
        "--metrics-cost",
        type=positive,
        metavar="ROUNDS",
        help="ROUNDS rounds of a run without --metrics and one with (scraped every second), then the median"
        " of the rounds' ratios in one more line (with --smoke, one round)",
    )
    parser.add_argument("--smoke", action="store_true", help="200 transactions of each family: checks it still runs")
    args = parser.parse_args()
    families = [args.family] if args.family else sorted(FAMILIES) if args.smoke else ["xo"]
    transactions, warmup = (200, 50) if args.smoke else (args.transactions, WARMUP)
    rounds = 1 if args.smoke else args.metrics_cost or 0
    errors = 0
    for family in families:
        runs: dict[bool, list[dict]] = {False: [], True: []}
        # each round runs both, in turn first, so neither always follows the other
        order = [metrics for round_ in range(rounds) for metrics in ((False, True), (True, False))[round_ % 2]]
        for metrics in order or [False]:
            result = measure(family, args.window, transactions, args.max_occupancy, warmup, metrics=metrics)
            errors += int(result["errors"])  # type: ignore[call-overload]
            runs[metrics].append(result)
            print(json.dumps(result), flush=True)
        if rounds:
            print(json.dumps(metrics_cost(family, runs[False], runs[True])), flush=True)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
