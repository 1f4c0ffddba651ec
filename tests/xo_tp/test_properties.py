"""Property tests: the handler against an independent model of XO, and every parser against any input.

The model below restates the spec with different data (a list of cells, a turn number,
explicitly built lines) so that a shared misreading between it and ``xo_tp.rules`` is unlikely.
"""

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from tests.xo_tp.fakes import FakeContext, public_key, request
from xo_tp import handler as handler_module
from xo_tp.family import game_address
from xo_tp.handler import XoTransactionHandler
from xo_tp.payload import Move, parse_payload
from xo_tp.rules import Game
from xo_tp.state import CorruptState, decode_bucket, encode_bucket

PLAYERS = [public_key(seed) for seed in (1, 2, 3)]
NAMES = ["g1", "g2", "b!"]
ROWS = [[r * 3 + c for c in range(3)] for r in range(3)]
COLUMNS = [[r * 3 + c for r in range(3)] for c in range(3)]
DIAGONALS = [[0, 4, 8], [2, 4, 6]]
SHARED_ADDRESS = "5b7349" + "0" * 64
SETTINGS = settings(max_examples=200, deadline=None)


@dataclass
class ModelGame:
    cells: list[str | None] = field(default_factory=lambda: [None] * 9)
    turn: int = 1
    result: str | None = None
    seats: list[str] = field(default_factory=lambda: ["", ""])

    def entry(self, name: str) -> str:
        board = "".join(cell or "-" for cell in self.cells)
        status = self.result or f"P{self.turn}-NEXT"
        return f"{name},{board},{status},{self.seats[0]},{self.seats[1]}"

    def take(self, space: int, signer: str) -> bool:
        """Play if legal; say whether it was."""
        seat = self.seats[self.turn - 1]
        if self.result or (seat and seat != signer) or self.cells[space - 1] is not None:
            return False
        if "" in self.seats:
            self.seats[self.seats.index("")] = signer
        self.cells[space - 1] = "XO"[self.turn - 1]
        lines = ROWS + COLUMNS + DIAGONALS
        has_line = {mark: any(all(self.cells[i] == mark for i in line) for line in lines) for mark in "XO"}
        if has_line["X"] != has_line["O"]:
            self.result = "P1-WIN" if has_line["X"] else "P2-WIN"
        elif None not in self.cells:
            self.result = "TIE"
        else:
            self.turn = 3 - self.turn
        return True


def expected_state(model: dict[str, ModelGame], collide: bool) -> dict[str, bytes]:
    if collide:
        entries = sorted(game.entry(name) for name, game in model.items())
        return {SHARED_ADDRESS: "|".join(entries).encode()} if entries else {}
    return {game_address(name): game.entry(name).encode() for name, game in model.items()}


def apply(state: dict[str, bytes], payload: str, signer: str, collide: bool) -> FakeContext | None:
    """Run one transaction; return its context if applied, ``None`` if refused."""
    req = request(payload, signer)
    context = FakeContext(state, list(req.header.inputs) + ([SHARED_ADDRESS] if collide else []))
    try:
        XoTransactionHandler().apply(req, context)
    except InvalidTransaction:
        return None
    return context


def colliding(collide: bool) -> AbstractContextManager[object]:
    """Force every game onto one address, or change nothing."""
    if collide:
        return mock.patch.object(handler_module, "game_address", lambda name: SHARED_ADDRESS)
    return nullcontext()


@SETTINGS
@given(st.data(), st.booleans())
def test_random_legal_games_match_the_model_move_for_move(data, collide):
    state: dict[str, bytes] = {}
    model = ModelGame()
    players = data.draw(st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=2), label="players")
    with colliding(collide):
        assert apply(state, "g1,create,", PLAYERS[2], collide) is not None
        while model.result is None:
            space = data.draw(st.sampled_from([i + 1 for i, cell in enumerate(model.cells) if cell is None]))
            signer = players[model.turn - 1]
            assert model.take(space, signer)
            context = apply(state, f"g1,take,{space}", signer, collide)
            assert context is not None
            assert state == expected_state({"g1": model}, collide)
            status = model.result or f"P{model.turn}-NEXT"
            attributes = [("name", "g1"), ("game-state", status), ("signer", signer), ("space", str(space))]
            assert [(e.event_type, e.attributes) for e in context.events] == [("xo/take", attributes)]


#: (name, verb, space, signer); takes are the most frequent so that games get deep.
action = st.tuples(
    st.sampled_from(NAMES),
    st.sampled_from(["create", "create", "delete"] + ["take"] * 7),
    st.integers(1, 9),
    st.sampled_from(PLAYERS),
)


@SETTINGS
@given(st.lists(action, max_size=60), st.booleans())
def test_any_sequence_of_moves_is_accepted_or_refused_exactly_as_the_model_says(actions, collide):
    state: dict[str, bytes] = {}
    model: dict[str, ModelGame] = {}
    with colliding(collide):
        for name, verb, space, signer in actions:
            if verb == "create":
                legal = name not in model
                if legal:
                    model[name] = ModelGame()
            elif verb == "delete":
                legal = model.pop(name, None) is not None
            else:
                legal = name in model and model[name].take(space, signer)
            payload = f"{name},{verb},{space if verb == 'take' else ''}"
            assert (apply(state, payload, signer, collide) is not None) == legal, payload
            assert state == expected_state(model, collide)


payload_like = st.tuples(
    st.text(alphabet="g1| \xe9", max_size=4),
    st.sampled_from(["create", "take", "delete", "", "Take", "take "]),
    st.sampled_from(["", "0", "1", "5", "9", "10", " 5", "05", "+5", "5.0", "\u0665", "x"]),
).map(lambda fields: ",".join(fields).encode())


@SETTINGS
@given(st.binary(max_size=64) | payload_like)
def test_any_payload_bytes_give_a_move_or_an_invalid_transaction(payload):
    try:
        move = parse_payload(payload)
    except InvalidTransaction as error:
        assert str(error)
        return
    assert isinstance(move, Move)
    name, verb, space = payload.decode("utf-8").split(",")
    assert (move.name, move.action) == (name, verb)
    assert name and "|" not in name
    assert move.space == (int(space) if verb == "take" else None)
    assert verb != "take" or (len(space) == 1 and space in "123456789")


@SETTINGS
@given(st.text(alphabet="0123456789+-. \u0665\uff15", max_size=3))
def test_take_accepts_a_space_exactly_when_it_is_one_digit_from_1_to_9(space):
    canonical = len(space) == 1 and "1" <= space <= "9"
    try:
        move = parse_payload(f"g1,take,{space}".encode())
    except InvalidTransaction:
        assert not canonical
    else:
        assert canonical
        assert move.space == "_123456789".index(space)


@SETTINGS
@given(st.binary(max_size=64) | payload_like)
def test_any_payload_through_the_handler_is_applied_or_refused_never_crashes(payload):
    state = {game_address("g1"): b"g1,---------,P1-NEXT,,"}
    req = request(payload, PLAYERS[0])
    try:
        XoTransactionHandler().apply(req, FakeContext.for_request(req, state))
    except InvalidTransaction:
        assert state == {game_address("g1"): b"g1,---------,P1-NEXT,,"}


field_text = st.text(st.characters(blacklist_characters=",|", blacklist_categories=("Cs",)), max_size=12)
games = st.builds(
    Game,
    name=field_text.filter(bool),
    board=st.text(alphabet="XO-", min_size=9, max_size=9),
    state=st.sampled_from(["P1-NEXT", "P2-NEXT", "P1-WIN", "P2-WIN", "TIE"]),
    player1=field_text,
    player2=field_text,
)


@SETTINGS
@given(st.lists(games, max_size=5, unique_by=lambda game: game.name))
def test_buckets_round_trip_byte_for_byte(bucket):
    data = encode_bucket(bucket)
    decoded = decode_bucket("addr", data)
    assert decoded == {game.name: game for game in bucket}
    assert encode_bucket(decoded.values()) == data


@SETTINGS
@given(st.binary(max_size=80) | st.text(alphabet=",|-XOP12NEXTWI", max_size=60).map(str.encode))
def test_any_state_bytes_decode_to_games_or_a_corrupt_state_error(data):
    try:
        games = decode_bucket("addr", data)
    except CorruptState as error:
        assert "addr" in str(error)
        return
    entries = data.decode("utf-8").split("|") if data else []
    assert encode_bucket(games.values()) == "|".join(sorted(entries)).encode()
