"""``xo-tp`` as a validator sees it: a separate process on the other end of a ZMQ ROUTER.

The command's plumbing (settings from the environment or the TOML file, the ready file,
exit codes, stop signals) is the shared :mod:`tp_runtime.command`; those tests also run
``rps-tp``, with its own names. ``rps-tp`` playing its game is in ``tests/rps_tp``.
"""

import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.ports import reserved_port
from tests.tp_runtime.conftest import kill_tp, spawn_tp
from tests.tp_runtime.validator_peer import (
    ValidatorPeer,
    call_context,
    process_request,
    signer_key,
    xo_request,
)
from xo_core.protobuf.processor_pb2 import TpRegisterRequest, TpRegisterResponse
from xo_core.protobuf.validator_pb2 import Message
from xo_tp.family import NAMESPACE, game_address

pytestmark = pytest.mark.subprocess

ALICE = signer_key(1)
BOB = signer_key(2)


@dataclass(frozen=True)
class Plumbing:
    """What differs between the processor commands: name, family and versions registered, settings' names."""

    command: str
    family: str
    versions: tuple[str, ...]
    env_prefix: str
    config_name: str


XO_TP = Plumbing("xo-tp", "xo", ("1.0",), "XO_TP", "xo.toml")
#: rps-tp registers rps 2.0, and 1.0 only to refuse its transactions with a message.
RPS_TP = Plumbing("rps-tp", "rps", ("2.0", "1.0"), "RPS_TP", "rps.toml")
COMMANDS = pytest.mark.parametrize("tp", [XO_TP, RPS_TP], ids=["xo-tp", "rps-tp"])


def register_all(peer: ValidatorPeer, tp: Plumbing) -> list[TpRegisterRequest]:
    """Answer OK to the registration of every version ``tp`` registers; the requests, in the order they came."""
    registrations = [peer.expect_registration() for _ in tp.versions]
    assert sorted(registration.version for registration in registrations) == sorted(tp.versions)
    return registrations


def attributes(event) -> dict[str, str]:
    return {attribute.key: attribute.value for attribute in event.attributes}


@pytest.fixture(scope="module")
def serving_peer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ValidatorPeer]:
    """One ``xo-tp`` registered with one validator peer, for the tests that only send it transactions."""
    with ValidatorPeer() as peer:
        tp = spawn_tp(tmp_path_factory.mktemp("serving-xo-tp"), "-C", peer.url)
        try:
            peer.expect_registration()
            yield peer
        finally:
            kill_tp(tp)


@pytest.fixture
def served(serving_peer: ValidatorPeer) -> ValidatorPeer:
    """The module's ``xo-tp`` behind its peer, whose state each test starts empty."""
    serving_peer.state.clear()
    return serving_peer


def test_registers_the_xo_family_with_its_namespace_and_occupancy(peer, start_tp):
    tp = start_tp("-C", peer.url, "--max-occupancy", "4")

    registration = peer.expect_registration()

    assert registration.family == "xo"
    assert registration.version == "1.0"
    assert list(registration.namespaces) == [NAMESPACE]
    assert registration.max_occupancy == 4
    assert registration.protocol_version == 1
    assert registration.request_header_style == TpRegisterRequest.EXPANDED
    log = tp.wait_for_log("registered xo 1.0")
    assert f"connected to the validator at {peer.url}" in log


def test_plays_a_whole_game_to_a_win_with_an_event_per_move(served):
    peer = served
    address = game_address("duel")
    board_after = {}

    created = peer.process(xo_request("duel", "create", signer=ALICE))
    assert created.status == "OK"
    assert peer.state[address] == b"duel,---------,P1-NEXT,,"
    assert [event.event_type for event in created.events] == ["xo/create"]

    # X takes the left column while O plays the middle one
    for space, signer in [(1, ALICE), (2, BOB), (4, ALICE), (5, BOB), (7, ALICE)]:
        outcome = peer.process(xo_request("duel", "take", space, signer=signer))
        assert outcome.status == "OK", outcome.response.message
        board_after[space] = peer.state[address]
        [event] = outcome.events
        assert event.event_type == "xo/take"
        assert attributes(event)["signer"] == signer
        assert attributes(event)["space"] == str(space)

    assert board_after[1] == f"duel,X--------,P2-NEXT,{ALICE},".encode()
    assert board_after[2] == f"duel,XO-------,P1-NEXT,{ALICE},{BOB}".encode()
    assert peer.state[address] == f"duel,XO-XO-X--,P1-WIN,{ALICE},{BOB}".encode()
    assert attributes(event)["game-state"] == "P1-WIN"

    deleted = peer.process(xo_request("duel", "delete", signer=BOB))
    assert deleted.status == "OK"
    assert address not in peer.state
    assert [event.event_type for event in deleted.events] == ["xo/delete"]


CREATE = "create"
TAKE = "take"


FORMAT_HINT = "an XO payload is '<name>,<action>,<space>', e.g. 'g1,take,5' or 'g1,create,'"


@pytest.mark.parametrize(
    ("setup", "move", "message"),
    [
        ([], xo_request("ghost", TAKE, 1, signer=ALICE), "game 'ghost' does not exist; create it first"),
        ([("twice", CREATE, None, ALICE)], xo_request("twice", CREATE, signer=ALICE), "game 'twice' already exists"),
        (
            [("busy", CREATE, None, ALICE), ("busy", TAKE, 5, ALICE)],
            xo_request("busy", TAKE, 5, signer=BOB),
            "game 'busy': space 5 is already taken",
        ),
        (
            [("turns", CREATE, None, ALICE), ("turns", TAKE, 1, ALICE), ("turns", TAKE, 2, BOB)],
            xo_request("turns", TAKE, 3, signer=BOB),
            f"game 'turns': it is player 1's turn ({ALICE[:6]}...)",
        ),
        (
            [],
            xo_request("bad", "fly", signer=ALICE, payload=b"bad,fly,"),
            "game 'bad': unknown action 'fly'; use create, take or delete",
        ),
        (
            [],
            xo_request("x", TAKE, signer=ALICE, payload=b"no commas"),
            f"the payload has 0 commas, not two; {FORMAT_HINT}",
        ),
        (
            [],
            xo_request("x", TAKE, signer=ALICE, payload=b"\xff\xfe,take,1"),
            f"the payload is not UTF-8 text; {FORMAT_HINT}",
        ),
        (
            [],
            xo_request("shout", CREATE, signer=ALICE.upper()),
            f"the signer public key '{ALICE.upper()[:64]}'... is not a compressed secp256k1 public key "
            "(66 lowercase hex characters starting with 02 or 03)",
        ),
    ],
    ids=[
        "missing-game",
        "duplicate-create",
        "occupied-space",
        "wrong-turn",
        "unknown-action",
        "no-commas",
        "not-utf8",
        "uppercase-signer",
    ],
)
def test_rejects_invalid_transactions_with_a_players_message_and_leaves_state_alone(served, setup, move, message):
    peer = served
    for name, action, space, signer in setup:
        assert peer.process(xo_request(name, action, space, signer=signer)).status == "OK"
    before = dict(peer.state)

    outcome = peer.process(move)

    assert outcome.status == "INVALID_TRANSACTION"
    assert outcome.response.message == message
    assert outcome.events == []
    assert peer.state == before


def test_touching_state_outside_the_declared_inputs_is_an_invalid_transaction(served):
    peer = served
    elsewhere = NAMESPACE + "0" * 64

    outcome = peer.process(process_request(b"sneaky,create,", signer=ALICE, inputs=[elsewhere], outputs=[elsewhere]))

    assert outcome.status == "INVALID_TRANSACTION"
    assert "unauthorized" in outcome.response.message
    assert peer.state == {}


def test_very_verbose_logging_has_a_line_per_transaction_and_for_each_message(peer, start_tp):
    tp = start_tp("-C", peer.url, "-vvv")
    peer.expect_registration()
    request = xo_request("chatty", "create", signer=ALICE)

    assert peer.process(request).status == "OK"

    log = tp.wait_for_log(f"transaction {request.signature[:16]} (xo 1.0): OK")
    for message in ("TP_PROCESS_REQUEST", "TP_STATE_GET_RESPONSE", "TP_STATE_SET_RESPONSE", "TP_PROCESS_RESPONSE"):
        assert message in log


def test_answers_pings(served):
    assert served.ping() < 5.0


def test_answers_pings_promptly_while_every_slot_waits_on_the_validator(peer, start_tp):
    start_tp("-C", peer.url, "--max-occupancy", "3")
    peer.expect_registration()
    # three moves fill every slot and a fourth waits for one; their state reads stay unanswered
    requests = [xo_request(f"slow-{index}", CREATE, signer=ALICE) for index in range(4)]
    ids = [peer.start_transaction(request) for request in requests]
    reads = [peer.receive_type(Message.TP_STATE_GET_REQUEST) for _ in range(3)]

    assert max(peer.ping() for _ in range(5)) < 1.0

    # the processor was busy, not stuck: every move completes once the validator answers
    by_context = {request.context_id: request for request in requests}
    for read in reads:
        peer.answer_call(by_context[call_context(read)], read, [], [])
    outcomes = [peer.serve(request, correlation_id) for request, correlation_id in zip(requests, ids, strict=True)]
    assert [outcome.status for outcome in outcomes] == ["OK"] * 4


def test_reconnects_and_registers_again_when_the_validator_comes_back(peer, start_tp):
    tp = start_tp("-C", peer.url)
    peer.expect_registration()
    assert peer.process(xo_request("phoenix", "create", signer=ALICE)).status == "OK"
    # a move is in flight (its state read unanswered) when the validator goes away
    interrupted = xo_request("phoenix", "take", 5, signer=ALICE)
    interrupted_id = peer.start_transaction(interrupted)
    peer.receive_type(Message.TP_STATE_GET_REQUEST)
    state, port = dict(peer.state), peer.port
    peer.close()

    tp.wait_for_log("lost the validator")
    with ValidatorPeer(port) as reborn:
        reborn.state = state
        registration = reborn.expect_registration()
        assert registration.family == "xo"
        # nothing from the old session leaks into the new one
        assert all(message.correlation_id != interrupted_id for message in reborn.quiet_for(0.3))
        # the validator resends the interrupted move; it is applied exactly once
        assert reborn.process(interrupted).status == "OK"
        assert reborn.state[game_address("phoenix")] == f"phoenix,----X----,P2-NEXT,{ALICE},".encode()
    log = tp.log_text()
    assert log.count("registered xo 1.0") == 2
    assert "reconnecting to the validator" in log


def test_starts_before_the_validator_and_registers_once_it_is_up(start_tp):
    with reserved_port() as port:  # nobody listens on it, and no other program is given it meanwhile
        tp = start_tp("-C", f"tcp://127.0.0.1:{port}")
        tp.wait_for_log("connecting to the validator")  # up and trying, with nobody on the port
        with ValidatorPeer(port) as late:
            assert late.expect_registration().family == "xo"


@pytest.mark.parametrize(
    ("tp", "stop_signal"),
    [(XO_TP, signal.SIGTERM), (XO_TP, signal.SIGINT), (RPS_TP, signal.SIGTERM)],
    ids=["xo-tp-SIGTERM", "xo-tp-SIGINT", "rps-tp-SIGTERM"],
)
def test_unregisters_and_exits_zero_on_a_stop_signal(peer, start_tp, tp, stop_signal):
    process = start_tp("-C", peer.url, command=tp.command)
    register_all(peer, tp)
    process.wait_for_log("registered")  # the signal handlers are installed before registering

    started = time.monotonic()
    process.process.send_signal(stop_signal)
    peer.expect_unregistration()

    assert process.wait() == 0
    assert time.monotonic() - started < 5.0
    assert "unregistered from the validator (OK)" in process.log_text()


@COMMANDS
def test_a_stop_signal_while_the_registration_is_unanswered_still_unregisters(peer, start_tp, tp):
    """A validator counts a processor in once it reads the request (xo-devnet reports it registered then), so a
    processor stopped before the answer arrives takes its registration back like any other."""
    process = start_tp("-C", peer.url, command=tp.command)
    for _ in tp.versions:
        peer.receive_type(Message.TP_REGISTER_REQUEST)  # read, and left unanswered

    process.process.send_signal(signal.SIGTERM)
    peer.expect_unregistration()

    assert process.wait() == 0
    log = process.log_text()
    assert "unregistered from the validator (OK)" in log
    assert "never retrieved" not in log


def test_exits_within_a_few_seconds_even_if_the_validator_never_answers_the_unregistration(peer, start_tp):
    tp = start_tp("-C", peer.url)
    peer.expect_registration()
    tp.wait_for_log("registered")
    # a transaction is in flight and stays unanswered
    peer.start_transaction(xo_request("stuck", "create", signer=ALICE))
    peer.receive_type(Message.TP_STATE_GET_REQUEST)

    started = time.monotonic()
    tp.process.send_signal(signal.SIGTERM)
    peer.receive_type(Message.TP_UNREGISTER_REQUEST)

    assert tp.wait() == 0
    assert time.monotonic() - started < 6.0
    assert "abandoning 1 transaction(s) in flight" in tp.log_text()


@COMMANDS
def test_exits_one_when_the_validator_refuses_the_registration(peer, start_tp, tp):
    process = start_tp("-C", peer.url, command=tp.command)

    refused = peer.expect_registration(status=TpRegisterResponse.ERROR)
    for _ in tp.versions[1:]:
        peer.expect_registration()

    assert process.wait() == 1
    assert f"refused to register family '{tp.family}' version '{refused.version}'" in process.log_text()


@COMMANDS
def test_takes_the_validator_url_from_the_environment(peer, start_tp, tp):
    start_tp(env={f"{tp.env_prefix}_CONNECT": peer.url}, command=tp.command)

    assert peer.expect_registration().family == tp.family


@COMMANDS
def test_takes_the_validator_url_from_its_toml_file_in_sawtooth_home(peer, start_tp, tmp_path, tp):
    home = tmp_path / "custom-home"
    (home / "etc").mkdir(parents=True)
    (home / "etc" / tp.config_name).write_text(f'connect = "{peer.url}"\nmax_occupancy = 3\n')

    start_tp(env={"SAWTOOTH_HOME": str(home)}, command=tp.command)

    registration = peer.expect_registration()
    assert (registration.family, registration.max_occupancy) == (tp.family, 3)


def eventually(condition, timeout: float = 10.0) -> bool:
    """Whether ``condition()`` becomes true within ``timeout`` seconds, polling briefly."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.mark.parametrize(
    ("tp", "how"), [(XO_TP, "flag"), (XO_TP, "environment"), (RPS_TP, "environment")],
    ids=["xo-tp-flag", "xo-tp-environment", "rps-tp-environment"],
)
def test_the_ready_file_exists_exactly_while_registered(peer, start_tp, tmp_path, tp, how):
    ready = tmp_path / f"{tp.command}.ready"
    if how == "flag":
        process = start_tp("-C", peer.url, "--ready-file", str(ready), command=tp.command)
    else:
        process = start_tp("-C", peer.url, env={f"{tp.env_prefix}_READY_FILE": str(ready)}, command=tp.command)
    process.wait_for_log("connected to the validator")
    assert not ready.exists()  # connected is not yet serving

    register_all(peer, tp)
    assert eventually(ready.exists)
    assert ready.read_text() == f"registered with {peer.url}\n"

    port = peer.port
    peer.close()
    process.wait_for_log("lost the validator")
    assert eventually(lambda: not ready.exists())

    with ValidatorPeer(port) as reborn:
        register_all(reborn, tp)
        assert eventually(ready.exists)
        process.process.send_signal(signal.SIGTERM)
        reborn.expect_unregistration()
        assert process.wait() == 0
    assert not ready.exists()
