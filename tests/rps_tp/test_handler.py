"""The rps handler against an in-memory validator context: state written, events emitted, errors raised."""

import cbor2
import pytest
from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction
from sawtooth_sdk.processor.handler import TransactionHandler

from rps_tp import handler as handler_module
from rps_tp.commitment import commitment
from rps_tp.family import game_address
from rps_tp.game import PLAYING_GAME, Settings, moment_of
from rps_tp.handler import RpsTransactionHandler
from rps_tp.ops import Claim, Commit, Create, Delete, Join, Op, Ready, Resign, Reveal
from rps_tp.payload import encode_payload
from rps_tp.state import decode_bucket, encode_game
from tests.rps_tp.fakes import Event, FakeContext, block_info_entries, public_key, request
from tests.rps_tp.moments import SETTING_UP, committing, revealing
from xo_core.protobuf.processor_pb2 import TpProcessRequest

ALICE = public_key(1)
BOB = public_key(2)
CAROL = public_key(3)
G1 = game_address("g1")
SALT_A = bytes(range(32))
SALT_B = bytes(range(32, 64))
SETTINGS = Settings(1, 300)


def submit(state: dict[str, bytes], op: Op | bytes, signer: str, **options: bool) -> FakeContext:
    req = request(op, signer)
    context = FakeContext.for_request(req, state, **options)
    RpsTransactionHandler().apply(req, context)
    return context


def rejected(state: dict[str, bytes], op: Op | bytes, signer: str, inputs: list[str] | None = None) -> str:
    """Submit a transaction that must be refused; check it changed nothing and return why."""
    return refused(state, request(op, signer, inputs=inputs))


def refused(state: dict[str, bytes], req: TpProcessRequest) -> str:
    """Process the transaction ``req`` (the same bytes each time), which must be refused; check it changed nothing."""
    before = dict(state)
    context = FakeContext.for_request(req, state)
    with pytest.raises(InvalidTransaction) as raised:
        RpsTransactionHandler().apply(req, context)
    assert state == before
    assert context.events == []
    return str(raised.value)


def game_in(state: dict[str, bytes], name: str = "g1"):
    return decode_bucket(game_address(name), state[game_address(name)])[name]


def started(state: dict[str, bytes]) -> None:
    submit(state, Create("g1"), ALICE)
    submit(state, Join("g1", SETTING_UP), BOB)
    submit(state, Ready("g1", SETTING_UP, SETTINGS), ALICE)
    submit(state, Ready("g1", SETTING_UP, SETTINGS), BOB)


def test_a_resign_refused_before_play_is_refused_again_when_replayed_in_play():
    """The replay of issue 23: Bob's resign, refused while the game awaited its players, sent again once it started.

    Signed as a client signs it, for the moment of the game it read, it can never count at another.
    """
    state = block_info_entries(timestamp=1_000)
    submit(state, Create("g1"), ALICE)
    submit(state, Join("g1", SETTING_UP), BOB)
    resign = request(Resign("g1", moment_of(game_in(state))), BOB)
    assert refused(state, resign) == (
        "game 'g1' has not started yet: it starts once two players have joined and are ready"
    )
    submit(state, Ready("g1", SETTING_UP, SETTINGS), ALICE)
    submit(state, Ready("g1", SETTING_UP, SETTINGS), BOB)

    assert refused(state, resign) == (
        "game 'g1' is at round 1, commit phase; this resign was signed for round 0, setup phase: an op counts only "
        "in the round and phase it was signed for (read the game again, then sign a new one)"
    )
    assert game_in(state).state == PLAYING_GAME


def test_the_rps_1_0_form_of_the_replayed_resign_is_refused_saying_what_is_expected():
    """Bob's resign as an rps 1.0 client signed it: refused under either version, never applied."""
    state = block_info_entries(timestamp=1_000)
    started(state)
    old_payload = cbor2.dumps({"op": "resign", "name": "g1"}, canonical=True)
    assert refused(state, request(old_payload, BOB, version="1.0")).startswith(
        "this is an rps 1.0 transaction; this processor implements rps 2.0"
    )
    assert refused(state, request(old_payload, BOB)) == (
        "game 'g1': a resign payload has no 'round' or 'phase': in rps 2.0 every op on an existing game names the "
        "'round' (0 to 100) and 'phase' (join, setup, commit, reveal or over) of the game it was signed for, and "
        "counts only then"
    )


def test_it_is_the_rps_family_handler():
    handler = RpsTransactionHandler()
    assert isinstance(handler, TransactionHandler)
    assert (handler.family_name, handler.family_versions, handler.namespaces) == ("rps", ["2.0", "1.0"], ["c56a0e"])


def test_create_stores_the_game_and_announces_it():
    state: dict[str, bytes] = {}
    context = submit(state, Create("g1"), ALICE)
    game = game_in(state)
    assert (game.state, game.host) == ("AWAITING_GAME", ALICE)
    assert state[G1] == cbor2.dumps([cbor2.loads(encode_game(game))], canonical=True)
    assert context.events == [
        Event("rps/create", [("name", "g1"), ("game-state", "AWAITING_GAME"), ("signer", ALICE)], encode_game(game))
    ]


def test_a_whole_game_through_the_handler_on_a_network_with_block_info():
    state = block_info_entries(timestamp=1_000)
    started(state)
    events: list[Event] = []
    for signer, op in [
        (ALICE, Commit("g1", committing(1), commitment("g1", 1, ALICE, "rock", SALT_A))),
        (BOB, Commit("g1", committing(1), commitment("g1", 1, BOB, "scissors", SALT_B))),
        (BOB, Reveal("g1", revealing(1), "scissors", SALT_B)),
        (ALICE, Reveal("g1", revealing(1), "rock", SALT_A)),
    ]:
        events += submit(state, op, signer).events
    game = game_in(state)
    assert (game.state, game.conclusion_type, [result.outcome for result in game.results]) == (
        "CONCLUDED",
        "normal",
        ["won", "lost"],
    )
    assert [(event.event_type, dict(event.attributes)["round"]) for event in events] == [
        ("rps/commit", "1"),
        ("rps/commit", "1"),
        ("rps/reveal", "1"),
        ("rps/reveal", "1"),
    ]
    assert events[-1] == Event(
        "rps/reveal",
        [("name", "g1"), ("game-state", "CONCLUDED"), ("signer", ALICE), ("round", "1")],
        encode_game(game),
    )


def test_the_ready_that_starts_play_records_the_block_info_time():
    state = block_info_entries(timestamp=1_700_000_000)
    submit(state, Create("g1"), ALICE)
    submit(state, Join("g1", SETTING_UP), BOB)
    submit(state, Ready("g1", SETTING_UP, SETTINGS), ALICE)
    assert game_in(state).waiting_since is None
    submit(state, Ready("g1", SETTING_UP, SETTINGS), BOB)
    assert (game_in(state).state, game_in(state).waiting_since) == ("PLAYING_GAME", 1_700_000_000)


def test_a_ready_without_the_block_info_inputs_is_refused_saying_what_to_list():
    state = block_info_entries(timestamp=1_000)
    submit(state, Create("g1"), ALICE)
    submit(state, Join("g1", SETTING_UP), BOB)
    assert rejected(state, Ready("g1", SETTING_UP, SETTINGS), BOB, inputs=[G1]).startswith(
        "a ready reads the time from BlockInfo"
    )


def test_play_works_on_a_network_without_block_info_but_a_claim_says_why_it_cannot():
    state: dict[str, bytes] = {}
    started(state)
    submit(state, Commit("g1", committing(1), commitment("g1", 1, ALICE, "rock", SALT_A)), ALICE)
    assert game_in(state).waiting_since is None
    assert "keeps no BlockInfo" in rejected(state, Claim("g1", committing(1)), ALICE)


def test_a_claim_is_judged_from_the_start_of_the_phase_at_the_time_of_its_own_block():
    state = block_info_entries(timestamp=1_000, block_num=10)
    started(state)  # play, and the clock of the commit phase, start at 1000
    state.update(block_info_entries(timestamp=1_250, block_num=11))
    submit(state, Commit("g1", committing(1), commitment("g1", 1, ALICE, "rock", SALT_A)), ALICE)  # alice commits late
    assert game_in(state).waiting_since == 1_000
    state.update(block_info_entries(timestamp=1_299, block_num=12))
    assert (
        rejected(state, Claim("g1", committing(1)), ALICE)
        == "your opponent still has 1 s to commit in round 1 of game 'g1'"
    )
    state.update(block_info_entries(timestamp=1_300, block_num=13))
    context = submit(state, Claim("g1", committing(1)), ALICE)
    assert game_in(state).conclusion_type == "by-timeout"
    assert context.events[0].attributes == [("name", "g1"), ("game-state", "CONCLUDED"), ("signer", ALICE)]


def test_an_op_that_reads_the_time_without_listing_block_info_is_refused_saying_what_to_list():
    state = block_info_entries(timestamp=1_000)
    started(state)
    op = Commit("g1", committing(1), commitment("g1", 1, ALICE, "rock", SALT_A))
    assert rejected(state, op, ALICE, inputs=[G1]) == (
        "a commit reads the time from BlockInfo, so its transaction must list "
        "00b10c01" + "0" * 62 + " and 00b10c00 in its inputs"
    )


def test_the_time_is_read_before_the_signers_role_is_checked():
    state = block_info_entries(timestamp=1_000)
    started(state)
    assert rejected(state, Claim("g1", committing(1)), CAROL, inputs=[G1]).startswith(
        "a claim reads the time from BlockInfo"
    )
    assert rejected(state, Claim("g1", committing(1)), CAROL) == "you are not a player in game 'g1'"


def test_ops_that_do_not_read_the_time_need_only_the_games_address():
    state: dict[str, bytes] = {}
    for signer, op in [(ALICE, Create("g1")), (BOB, Join("g1", SETTING_UP)), (ALICE, Delete("g1", SETTING_UP))]:
        req = request(op, signer, inputs=[G1])
        RpsTransactionHandler().apply(req, FakeContext.for_request(req, state))
    assert state == {}


def test_delete_removes_the_address_and_announces_it():
    state: dict[str, bytes] = {}
    submit(state, Create("g1"), ALICE)
    context = submit(state, Delete("g1", SETTING_UP), ALICE)
    assert state == {}
    assert context.events == [Event("rps/delete", [("name", "g1"), ("game-state", "DELETED"), ("signer", ALICE)], b"")]


def test_a_resignation_is_announced_with_the_concluded_state():
    state: dict[str, bytes] = {}
    started(state)
    context = submit(state, Resign("g1", committing(1)), BOB)
    assert context.events[0].event_type == "rps/resign"
    assert game_in(state).results[1].outcome == "resigned"


def test_ops_on_missing_games_and_duplicate_creates_are_refused():
    state: dict[str, bytes] = {}
    assert rejected(state, Join("g1", SETTING_UP), ALICE) == "game 'g1' does not exist; create it first"
    submit(state, Create("g1"), ALICE)
    assert rejected(state, Create("g1"), BOB) == "game 'g1' already exists"


def test_illegal_moves_are_refused_with_the_rules_message():
    state: dict[str, bytes] = {}
    submit(state, Create("g1"), ALICE)
    assert (
        rejected(state, Delete("g1", SETTING_UP), CAROL) == f"only the host of game 'g1' ({ALICE[:6]}...) can delete it"
    )


@pytest.mark.parametrize("payload", [b"", b"\xff", b"g1,create,", encode_payload(Join("g1", SETTING_UP))[:-1]])
def test_bad_payloads_are_refused_before_state_is_touched(payload):
    state: dict[str, bytes] = {}
    submit(state, Create("g1"), ALICE)
    assert rejected(state, payload, BOB)


@pytest.mark.parametrize("signer", ["", "02" + "AB" * 32, "04" + "ab" * 64, "02" + "ab" * 31])
def test_a_signer_key_that_is_not_a_compressed_lowercase_hex_key_is_refused(signer):
    assert rejected({}, Create("g1"), signer).endswith(
        " is not a compressed secp256k1 public key (66 lowercase hex characters starting with 02 or 03)"
    )


def test_corrupt_state_is_an_internal_error_naming_the_address():
    state = {G1: b"\xa0"}
    req = request(Join("g1", SETTING_UP), ALICE)
    with pytest.raises(InternalError, match=G1):
        RpsTransactionHandler().apply(req, FakeContext.for_request(req, state))
    assert state == {G1: b"\xa0"}


def test_an_empty_entry_for_an_unset_address_reads_as_no_game():
    state: dict[str, bytes] = {}
    submit(state, Create("g1"), ALICE, report_missing_as_empty=True)
    assert game_in(state).host == ALICE


def test_a_validator_that_does_not_confirm_the_write_is_an_internal_error():
    class ForgetfulContext(FakeContext):
        def set_state(self, entries: dict[str, bytes], timeout: float | None = None) -> list[str]:
            return []

    req = request(Create("g1"), ALICE)
    with pytest.raises(InternalError, match=f"did not write state at {G1}"):
        RpsTransactionHandler().apply(req, ForgetfulContext.for_request(req, {}))


def test_a_validator_that_does_not_confirm_the_delete_is_an_internal_error():
    class StubbornContext(FakeContext):
        def delete_state(self, addresses: list[str], timeout: float | None = None) -> list[str]:
            return []

    state: dict[str, bytes] = {}
    submit(state, Create("g1"), ALICE)
    req = request(Delete("g1", SETTING_UP), ALICE)
    context = StubbornContext.for_request(req, state)
    with pytest.raises(InternalError, match=f"did not delete state at {G1}"):
        RpsTransactionHandler().apply(req, context)
    assert context.events == []


class TestCollisionBucket:
    """Two names forced onto one address, as a SHA-512 prefix collision would put them."""

    ADDRESS = game_address("shared")

    @pytest.fixture(autouse=True)
    def _collide(self, monkeypatch):
        monkeypatch.setattr(handler_module, "game_address", lambda name: self.ADDRESS)

    def apply(self, state: dict[str, bytes], op: Op, signer: str) -> FakeContext:
        context = FakeContext(state, [self.ADDRESS, "00b10c"])
        RpsTransactionHandler().apply(request(op, signer), context)
        return context

    def test_games_share_the_address_sorted_and_each_is_played_alone(self):
        state: dict[str, bytes] = {}
        self.apply(state, Create("zeta"), ALICE)
        self.apply(state, Create("alpha"), BOB)
        assert [game["name"] for game in cbor2.loads(state[self.ADDRESS])] == ["alpha", "zeta"]
        self.apply(state, Join("zeta", SETTING_UP), CAROL)
        games = decode_bucket(self.ADDRESS, state[self.ADDRESS])
        assert [player.key for player in games["zeta"].players] == [ALICE, CAROL]
        assert [player.key for player in games["alpha"].players] == [BOB]

    def test_create_refuses_a_name_already_in_the_bucket_but_not_a_neighbour(self):
        state: dict[str, bytes] = {}
        self.apply(state, Create("alpha"), ALICE)
        with pytest.raises(InvalidTransaction, match="game 'alpha' already exists"):
            self.apply(state, Create("alpha"), BOB)
        with pytest.raises(InvalidTransaction, match="game 'beta' does not exist"):
            self.apply(state, Join("beta", SETTING_UP), BOB)

    def test_deleting_one_game_keeps_the_other_and_deleting_the_last_frees_the_address(self):
        state: dict[str, bytes] = {}
        self.apply(state, Create("alpha"), ALICE)
        self.apply(state, Create("beta"), BOB)
        beta = cbor2.loads(state[self.ADDRESS])[1]
        self.apply(state, Delete("alpha", SETTING_UP), ALICE)
        assert cbor2.loads(state[self.ADDRESS]) == [beta]
        self.apply(state, Delete("beta", SETTING_UP), BOB)
        assert state == {}

    def test_a_corrupt_neighbour_makes_the_whole_address_an_internal_error(self):
        state: dict[str, bytes] = {}
        self.apply(state, Create("alpha"), ALICE)
        games = cbor2.loads(state[self.ADDRESS])
        state[self.ADDRESS] = cbor2.dumps([*games, {"name": "beta"}], canonical=True)
        with pytest.raises(InternalError, match=self.ADDRESS):
            self.apply(state, Join("alpha", SETTING_UP), BOB)
