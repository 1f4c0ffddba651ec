"""The XO handler against an in-memory validator context: state written, events emitted, errors raised."""

import pytest
from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction
from sawtooth_sdk.processor.handler import TransactionHandler

from tests.xo_tp.fakes import Event, FakeContext, public_key, request
from xo_tp import handler as handler_module
from xo_tp.family import game_address
from xo_tp.handler import XoTransactionHandler

ALICE = public_key(1)
BOB = public_key(2)
CAROL = public_key(3)
G1 = game_address("g1")


def submit(state: dict[str, bytes], payload: str, signer: str, **options: bool) -> FakeContext:
    req = request(payload, signer)
    context = FakeContext.for_request(req, state, **options)
    XoTransactionHandler().apply(req, context)
    return context


def rejected(state: dict[str, bytes], payload: str, signer: str) -> str:
    """Submit a transaction that must be refused; check it changed nothing and return why."""
    before = dict(state)
    req = request(payload, signer)
    context = FakeContext.for_request(req, state)
    with pytest.raises(InvalidTransaction) as raised:
        XoTransactionHandler().apply(req, context)
    assert state == before
    assert context.events == []
    return str(raised.value)


def test_it_is_the_xo_family_handler():
    handler = XoTransactionHandler()
    assert isinstance(handler, TransactionHandler)
    assert handler.family_name == "xo"
    assert handler.family_versions == ["1.0"]
    assert handler.namespaces == ["5b7349"]


def test_create_stores_a_blank_game_and_announces_it():
    state: dict[str, bytes] = {}
    context = submit(state, "g1,create,", ALICE)
    assert state == {G1: b"g1,---------,P1-NEXT,,"}
    assert context.events == [
        Event("xo/create", [("name", "g1"), ("game-state", "P1-NEXT"), ("signer", ALICE)], b"g1,---------,P1-NEXT,,")
    ]


def test_a_whole_game_through_the_handler():
    state: dict[str, bytes] = {}
    submit(state, "g1,create,", CAROL)
    moves = [(ALICE, 5), (BOB, 1), (ALICE, 3), (BOB, 7), (ALICE, 4), (BOB, 6), (ALICE, 9), (BOB, 2), (ALICE, 8)]
    events = []
    for signer, space in moves:
        events += submit(state, f"g1,take,{space}", signer).events
    assert state == {G1: f"g1,OOXXXOOXX,TIE,{ALICE},{BOB}".encode()}
    assert [dict(event.attributes)["game-state"] for event in events] == ["P2-NEXT", "P1-NEXT"] * 4 + ["TIE"]
    assert events[-1] == Event(
        "xo/take",
        [("name", "g1"), ("game-state", "TIE"), ("signer", ALICE), ("space", "8")],
        f"g1,OOXXXOOXX,TIE,{ALICE},{BOB}".encode(),
    )
    assert rejected(state, "g1,take,1", BOB) == "game 'g1' is over (TIE)"


def test_a_win_is_stored_as_p1_win():
    state: dict[str, bytes] = {}
    submit(state, "g1,create,", ALICE)
    for signer, space in [(ALICE, 1), (BOB, 4), (ALICE, 2), (BOB, 5)]:
        submit(state, f"g1,take,{space}", signer)
    context = submit(state, "g1,take,3", ALICE)
    assert state[G1] == f"g1,XXXOO----,P1-WIN,{ALICE},{BOB}".encode()
    assert dict(context.events[0].attributes)["game-state"] == "P1-WIN"


def test_delete_removes_the_address_and_announces_it():
    state = {G1: f"g1,----X----,P2-NEXT,{ALICE},".encode()}
    context = submit(state, "g1,delete,", BOB)
    assert state == {}
    assert context.events == [Event("xo/delete", [("name", "g1"), ("game-state", "DELETED"), ("signer", BOB)], b"")]


def test_moves_on_missing_games_and_duplicate_creates_are_refused():
    state: dict[str, bytes] = {}
    assert rejected(state, "g1,take,5", ALICE) == "game 'g1' does not exist; create it first"
    assert rejected(state, "g1,delete,", ALICE) == "game 'g1' does not exist; create it first"
    submit(state, "g1,create,", ALICE)
    assert rejected(state, "g1,create,", BOB) == "game 'g1' already exists"


def test_illegal_moves_are_refused_with_the_rules_message():
    state: dict[str, bytes] = {}
    submit(state, "g1,create,", ALICE)
    submit(state, "g1,take,5", ALICE)
    assert rejected(state, "g1,take,5", BOB) == "game 'g1': space 5 is already taken"
    submit(state, "g1,take,1", BOB)
    assert rejected(state, "g1,take,2", CAROL) == f"game 'g1': it is player 1's turn ({ALICE[:6]}...)"


@pytest.mark.parametrize(
    "payload",
    ["g1,take,0", "g1,take,", "g1,jump,1", ",create,", "a|b,create,", "g1,take,5,", "g1"],
)
def test_bad_payloads_are_refused_before_state_is_touched(payload):
    state = {G1: b"g1,---------,P1-NEXT,,"}
    assert rejected(state, payload, ALICE)


@pytest.mark.parametrize(
    "signer",
    [
        "03" + "ab" * 32,
        "02" + "0123456789abcdef" * 4,
    ],
)
def test_a_compressed_lowercase_hex_signer_key_is_accepted(signer):
    state: dict[str, bytes] = {}
    submit(state, "g1,create,", signer)
    submit(state, "g1,take,5", signer)
    assert state == {G1: f"g1,----X----,P2-NEXT,{signer},".encode()}


@pytest.mark.parametrize(
    "signer",
    [
        "",
        "02ab,cd",
        "02" + "AB" * 32,  # uppercase: the same key as lowercase, spelt differently
        "04" + "ab" * 64,  # uncompressed: a validator accepts it, but it is a second spelling of a compressed key
        "05" + "ab" * 32,  # no such prefix
        "02" + "ab" * 31,  # 64 characters
        "02" + "ab" * 32 + "c",  # 67 characters
        "02" + "ab" * 31 + "g0",  # not hex
        "02" + "ab" * 32 + "\n",  # a trailing newline
        "02" + "\u0665" * 64,  # Arabic-Indic digits: str.isalnum() and even isdigit() say yes
        "02" + "\u00e9" * 64,  # letters, but not hex ones
    ],
)
def test_a_signer_key_that_is_not_a_compressed_lowercase_hex_key_is_refused(signer):
    message = rejected({G1: b"g1,---------,P1-NEXT,,"}, "g1,take,5", signer)

    assert message.startswith("the signer public key ")
    assert message.endswith(
        " is not a compressed secp256k1 public key (66 lowercase hex characters starting with 02 or 03)"
    )


def test_the_refused_signer_key_is_quoted_in_the_message():
    assert rejected({}, "g1,create,", "02AB") == (
        "the signer public key '02AB' is not a compressed secp256k1 public key "
        "(66 lowercase hex characters starting with 02 or 03)"
    )


def test_corrupt_state_is_an_internal_error_naming_the_address():
    state = {G1: b"g1,---------,P9-NEXT,,"}
    req = request("g1,take,5", ALICE)
    with pytest.raises(InternalError, match=G1):
        XoTransactionHandler().apply(req, FakeContext.for_request(req, state))
    assert state == {G1: b"g1,---------,P9-NEXT,,"}


def test_an_empty_entry_for_an_unset_address_reads_as_no_game():
    state: dict[str, bytes] = {}
    submit(state, "g1,create,", ALICE, report_missing_as_empty=True)
    assert state == {G1: b"g1,---------,P1-NEXT,,"}


def test_a_validator_that_does_not_confirm_the_write_is_an_internal_error():
    class ForgetfulContext(FakeContext):
        def set_state(self, entries: dict[str, bytes], timeout: float | None = None) -> list[str]:
            return []

    req = request("g1,create,", ALICE)
    with pytest.raises(InternalError, match=f"did not write state at {G1}"):
        XoTransactionHandler().apply(req, ForgetfulContext.for_request(req, {}))


def test_a_validator_that_does_not_confirm_the_delete_is_an_internal_error():
    class StubbornContext(FakeContext):
        def delete_state(self, addresses: list[str], timeout: float | None = None) -> list[str]:
            return []

    state = {G1: b"g1,---------,P1-NEXT,,"}
    req = request("g1,delete,", ALICE)
    context = StubbornContext.for_request(req, state)
    with pytest.raises(InternalError, match=f"did not delete state at {G1}"):
        XoTransactionHandler().apply(req, context)
    assert context.events == []


class TestCollisionBucket:
    """Two names forced onto one address, as a SHA-512 prefix collision would put them."""

    ADDRESS = game_address("shared")

    @pytest.fixture(autouse=True)
    def _collide(self, monkeypatch):
        monkeypatch.setattr(handler_module, "game_address", lambda name: self.ADDRESS)

    def apply(self, state: dict[str, bytes], payload: str, signer: str) -> FakeContext:
        context = FakeContext(state, [self.ADDRESS])
        XoTransactionHandler().apply(request(payload, signer), context)
        return context

    def test_games_share_the_address_sorted_and_each_is_played_alone(self):
        state: dict[str, bytes] = {}
        self.apply(state, "zeta,create,", ALICE)
        self.apply(state, "alpha,create,", BOB)
        assert state == {self.ADDRESS: b"alpha,---------,P1-NEXT,,|zeta,---------,P1-NEXT,,"}
        self.apply(state, "zeta,take,5", ALICE)
        assert state == {self.ADDRESS: f"alpha,---------,P1-NEXT,,|zeta,----X----,P2-NEXT,{ALICE},".encode()}

    def test_only_the_named_entry_changes_and_foreign_bytes_are_kept(self):
        # Another writer's entry with a key format we never produce stays exactly as it was.
        foreign = "mu,XO-------,P1-NEXT,some-other-key,x"
        state = {self.ADDRESS: f"alpha,---------,P1-NEXT,,|{foreign}".encode()}
        self.apply(state, "alpha,take,9", BOB)
        assert state[self.ADDRESS] == f"alpha,--------X,P2-NEXT,{BOB},|{foreign}".encode()

    def test_create_refuses_a_name_already_in_the_bucket_but_not_a_neighbour(self):
        state = {self.ADDRESS: b"alpha,---------,P1-NEXT,,"}
        with pytest.raises(InvalidTransaction, match="game 'alpha' already exists"):
            self.apply(state, "alpha,create,", BOB)
        with pytest.raises(InvalidTransaction, match="game 'beta' does not exist"):
            self.apply(state, "beta,take,1", BOB)
        self.apply(state, "beta,create,", BOB)
        assert state[self.ADDRESS] == b"alpha,---------,P1-NEXT,,|beta,---------,P1-NEXT,,"

    def test_deleting_one_game_keeps_the_other_and_deleting_the_last_frees_the_address(self):
        state = {self.ADDRESS: b"alpha,---------,P1-NEXT,,|beta,X--------,P2-NEXT,k,"}
        self.apply(state, "alpha,delete,", CAROL)
        assert state == {self.ADDRESS: b"beta,X--------,P2-NEXT,k,"}
        context = self.apply(state, "beta,delete,", CAROL)
        assert state == {}
        assert context.events[0].event_type == "xo/delete"

    def test_a_corrupt_neighbour_makes_the_whole_address_an_internal_error(self):
        state = {self.ADDRESS: b"alpha,---------,P1-NEXT,,|beta,bad,P2-NEXT,,"}
        with pytest.raises(InternalError, match=self.ADDRESS):
            self.apply(state, "alpha,take,1", ALICE)
