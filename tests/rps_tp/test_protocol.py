"""``rps-tp`` as a validator sees it: a separate process on the other end of a ZMQ ROUTER, BlockInfo in state.

The validator peer serves state from a dict and refuses addresses outside a
transaction's inputs and outputs as a validator does (a declared prefix such as
BlockInfo's ``00b10c00`` covers every address under it), so these games go through
the real wire protocol: registration, state reads of the game and of the clock,
writes, events and the answers.
"""

import cbor2

from rps_tp.commitment import commitment
from rps_tp.family import FAMILY_VERSION, NAMESPACE, game_address, transaction_inputs, transaction_outputs
from rps_tp.game import CONCLUDED, PLAYING_GAME, Settings
from rps_tp.ops import Claim, Commit, Create, Join, Op, Ready, Reveal
from rps_tp.payload import encode_payload
from rps_tp.state import decode_bucket, encode_game
from tests.rps_tp.fakes import block_info_entries
from tests.rps_tp.moments import SETTING_UP, committing, revealing
from tests.tp_runtime.validator_peer import process_request, signer_key
from xo_core import block_info
from xo_core.protobuf.processor_pb2 import TpRegisterRequest

ALICE = signer_key(1)
BOB = signer_key(2)
SALT_A = bytes(range(32))
SALT_B = bytes(range(32, 64))
QUICK = Settings(points=1, timeout=30)
NOW = 1_700_000_000


def rps(op: Op, signer: str, inputs: list[str] | None = None):
    """A TP_PROCESS_REQUEST for one rps op, declaring what the specification says every op declares."""
    return process_request(
        encode_payload(op),
        signer=signer,
        inputs=transaction_inputs(op.name) if inputs is None else inputs,
        outputs=transaction_outputs(op.name),
        family="rps",
        version=FAMILY_VERSION,
    )


def registered(peer) -> list[TpRegisterRequest]:
    """Answer rps-tp's registrations: rps 2.0, and 1.0 (to refuse its transactions with a message)."""
    return [peer.expect_registration() for _ in range(2)]


def attributes(event) -> list[tuple[str, str]]:
    return [(attribute.key, attribute.value) for attribute in event.attributes]


def game(peer, name: str = "g1"):
    return decode_bucket(game_address(name), peer.state[game_address(name)])[name]


def play(peer, op: Op, signer: str) -> list:
    outcome = peer.process(rps(op, signer))
    assert outcome.status == "OK", outcome.response.message
    return outcome.events


def started(peer, name: str = "g1", settings: Settings = QUICK) -> None:
    play(peer, Create(name, settings=settings), ALICE)
    play(peer, Join(name, SETTING_UP), BOB)
    play(peer, Ready(name, SETTING_UP, settings), ALICE)
    play(peer, Ready(name, SETTING_UP, settings), BOB)


def test_registers_the_rps_family_with_its_namespace(peer, start_tp):
    tp = start_tp("-C", peer.url, "--max-occupancy", "4", command="rps-tp")

    registrations = registered(peer)

    assert sorted((registration.family, registration.version) for registration in registrations) == [
        ("rps", "1.0"),
        ("rps", "2.0"),
    ]
    for registration in registrations:
        assert list(registration.namespaces) == [NAMESPACE] == ["c56a0e"]
        assert registration.max_occupancy == 4
        assert registration.protocol_version == 1
        assert registration.request_header_style == TpRegisterRequest.EXPANDED
    assert f"with the validator at {peer.url}" in tp.wait_for_log("registered rps")


def test_plays_a_whole_game_reading_the_time_from_blockinfo_with_an_event_per_op(peer, start_tp):
    start_tp("-C", peer.url, command="rps-tp")
    registered(peer)
    peer.state.update(block_info_entries(NOW))
    events = []

    events += play(peer, Create("g1", settings=QUICK), ALICE)
    events += play(peer, Join("g1", SETTING_UP), BOB)
    events += play(peer, Ready("g1", SETTING_UP, QUICK), ALICE)
    events += play(peer, Ready("g1", SETTING_UP, QUICK), BOB)
    assert game(peer).state == PLAYING_GAME
    events += play(peer, Commit("g1", committing(1), commitment("g1", 1, ALICE, "rock", SALT_A)), ALICE)
    assert game(peer).waiting_since == NOW  # the first commitment starts Bob's time-out, at BlockInfo's time
    events += play(peer, Commit("g1", committing(1), commitment("g1", 1, BOB, "scissors", SALT_B)), BOB)
    events += play(peer, Reveal("g1", revealing(1), "rock", SALT_A), ALICE)
    events += play(peer, Reveal("g1", revealing(1), "scissors", SALT_B), BOB)

    final = game(peer)
    assert (final.state, final.conclusion_type, final.history) == (CONCLUDED, "normal", (("rock", "scissors"),))
    assert [result.outcome for result in final.results] == ["won", "lost"]
    assert [event.event_type for event in events] == [
        "rps/create", "rps/join", "rps/ready", "rps/ready", "rps/commit", "rps/commit", "rps/reveal", "rps/reveal",
    ]  # fmt: skip
    assert attributes(events[-1]) == [("name", "g1"), ("game-state", CONCLUDED), ("signer", BOB), ("round", "1")]
    assert events[-1].data == encode_game(final)
    assert attributes(events[1]) == [("name", "g1"), ("game-state", "AWAITING_GAME"), ("signer", BOB)]


def test_a_player_kept_waiting_claims_the_game_once_blockinfo_says_the_time_out_is_over(peer, start_tp):
    start_tp("-C", peer.url, command="rps-tp")
    registered(peer)
    peer.state.update(block_info_entries(NOW, block_num=41))
    started(peer)
    play(peer, Commit("g1", committing(1), commitment("g1", 1, ALICE, "paper", SALT_A)), ALICE)

    peer.state.update(block_info_entries(NOW + QUICK.timeout - 12, block_num=42, oldest=41))
    early = peer.process(rps(Claim("g1", committing(1)), ALICE))
    assert early.status == "INVALID_TRANSACTION"
    assert early.response.message == "your opponent still has 12 s to commit in round 1 of game 'g1'"
    assert early.events == []

    peer.state.update(block_info_entries(NOW + QUICK.timeout, block_num=43, oldest=41))
    [event] = play(peer, Claim("g1", committing(1)), ALICE)

    final = game(peer)
    assert (final.state, final.conclusion_type) == (CONCLUDED, "by-timeout")
    assert [result.outcome for result in final.results] == ["won", "timed-out"]
    assert event.event_type == "rps/claim"
    assert attributes(event) == [("name", "g1"), ("game-state", CONCLUDED), ("signer", ALICE)]


def test_a_commit_that_does_not_declare_blockinfo_is_invalid_and_says_what_to_list(peer, start_tp):
    start_tp("-C", peer.url, command="rps-tp")
    registered(peer)
    peer.state.update(block_info_entries(NOW))
    started(peer)
    before = dict(peer.state)

    outcome = peer.process(
        rps(Commit("g1", committing(1), bytes(32)), ALICE, inputs=[game_address("g1")])
    )

    assert outcome.status == "INVALID_TRANSACTION"
    assert outcome.response.message == (
        f"a commit reads the time from BlockInfo, so its transaction must list {block_info.CONFIG_ADDRESS}"
        f" and {block_info.BLOCK_NAMESPACE} in its inputs"
    )
    assert peer.state == before


def test_corrupt_blockinfo_is_an_internal_error_not_the_players_fault(peer, start_tp):
    tp = start_tp("-C", peer.url, command="rps-tp")
    registered(peer)
    started(peer)
    peer.state[block_info.CONFIG_ADDRESS] = b"\xff not a BlockInfoConfig"

    outcome = peer.process(rps(Commit("g1", committing(1), bytes(32)), ALICE))

    assert outcome.status == "INTERNAL_ERROR"
    assert f"the BlockInfo config at {block_info.CONFIG_ADDRESS} does not parse" in tp.wait_for_log("does not parse")


def test_an_rps_1_0_transaction_is_refused_saying_which_version_the_processor_expects(peer, start_tp):
    """A client of rps 1.0 hears what to send instead; its op is never applied under the old rules."""
    start_tp("-C", peer.url, command="rps-tp")
    registered(peer)
    peer.state.update(block_info_entries(NOW))
    started(peer)
    before = dict(peer.state)
    old_resign = cbor2.dumps({"op": "resign", "name": "g1"}, canonical=True)

    outcome = peer.process(
        process_request(
            old_resign, signer=BOB, inputs=transaction_inputs("g1"), outputs=transaction_outputs("g1"),
            family="rps", version="1.0",
        )
    )

    assert outcome.status == "INVALID_TRANSACTION"
    assert outcome.response.message.startswith(
        "this is an rps 1.0 transaction; this processor implements rps 2.0, in which every op on an existing game "
        "names the round and phase it was signed for"
    )
    assert peer.state == before
