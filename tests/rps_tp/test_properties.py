"""Property tests: the handler against an independent model of rps, commit/reveal's guarantees, and every parser.

The model restates the specification with other data (sets of ready keys, dicts of
commitments and reveals by key, an explicit phase) so that a misreading shared with
``rps_tp.rules`` is unlikely. It is driven through the real handler, with BlockInfo in
state (a clock that moves forward by random steps) or without it.
"""

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from unittest import mock

import cbor2
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from rps_tp import handler as handler_module
from rps_tp import rules
from rps_tp.commitment import commitment
from rps_tp.family import game_address
from rps_tp.game import PHASES, Game, Moment, Settings, consistency_problem, moment_of
from rps_tp.handler import RpsTransactionHandler
from rps_tp.ops import OPS, Claim, Commit, Create, Delete, Join, Op, Ready, Resign, Reveal, Setup
from rps_tp.payload import InvalidPayload, encode_payload, parse_payload
from rps_tp.state import CorruptState, decode_bucket, encode_bucket
from tests.rps_tp.fakes import FakeContext, block_info_entries, public_key, request
from tests.rps_tp.moments import JOINING, SETTING_UP, committing, revealing
from xo_core import block_info
from xo_core.text import duration

PLAYERS = [public_key(seed) for seed in (1, 2, 3)]
NAMES = ["g1", "g2"]
THROWS = ["rock", "paper", "scissors"]
SALTS = [bytes([seed]) * 32 for seed in range(3)]
BEATS = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}
SHARED_ADDRESS = "c56a0e" + "0" * 64
SETTINGS = settings(max_examples=100, deadline=None)


@dataclass
class ModelGame:
    """One game as the specification describes it, kept in the model's own terms."""

    name: str
    settings: tuple[int, int]
    phase: str = "hostless"  # hostless, lobby, play, over
    seats: list[str] = field(default_factory=list)
    ready: set[str] = field(default_factory=set)
    round: int = 0
    won: dict[str, int] = field(default_factory=dict)
    committed: dict[str, bytes] = field(default_factory=dict)
    revealed: dict[str, str] = field(default_factory=dict)
    history: list[list[str]] = field(default_factory=list)
    since: int | None = None
    how: str | None = None
    outcome: dict[str, str] = field(default_factory=dict)

    def moment(self) -> tuple[int, str]:
        """The round and phase an op must name to count now."""
        if self.phase in ("hostless", "lobby"):
            return 0, "join" if self.phase == "hostless" else "setup"
        if self.phase == "over":
            return self.round, "over"
        return self.round, "reveal" if len(self.committed) == 2 else "commit"

    def apply(self, op: Op, signer: str, now: int | None) -> bool | None:
        """Apply ``op`` if the specification allows it; say whether it did (``None``: the game is deleted)."""
        if not isinstance(op, Create) and (op.at.round, op.at.phase) != self.moment():
            return False
        seated = signer in self.seats
        opponent = next((key for key in self.seats if key != signer), None)
        match op:
            case Join():
                if self.phase == "hostless" or (self.phase == "lobby" and not seated and len(self.seats) < 2):
                    self.seats.append(signer)
                    self.won[signer] = 0
                    self.phase = "lobby"
                    return True
            case Setup():
                if self.phase == "lobby" and signer == self.seats[0]:
                    self.settings = (op.settings.points, op.settings.timeout)
                    self.ready.clear()
                    return True
            case Ready():
                if self.phase == "lobby" and seated and (op.settings.points, op.settings.timeout) == self.settings:
                    self.ready.add(signer)
                    if len(self.ready) == 2:
                        self.phase, self.round, self.since = "play", 1, now
                    return True
            case Commit():
                if self.phase == "play" and seated and op.at.round == self.round and signer not in self.committed:
                    self.committed[signer] = op.commitment
                    if len(self.committed) == 2:
                        self.since = now
                    return True
            case Reveal():
                expected = commitment(self.name, self.round, signer, op.throw, op.salt)
                if (
                    self.phase == "play"
                    and seated
                    and op.at.round == self.round
                    and len(self.committed) == 2
                    and signer not in self.revealed
                    and self.committed[signer] == expected
                ):
                    self.revealed[signer] = op.throw
                    if len(self.revealed) == 2:
                        self.score_round(now)
                    return True
            case Resign():
                if self.phase == "play" and seated and opponent is not None:
                    self.finish("by-resignation", {signer: "resigned", opponent: "won"})
                    return True
            case Claim():
                step = self.revealed if len(self.committed) == 2 else self.committed
                if (
                    self.phase == "play"
                    and seated
                    and opponent is not None
                    and signer in step
                    and opponent not in step
                    and now is not None
                    and self.since is not None
                    and now >= self.since + self.settings[1]
                ):
                    self.finish("by-timeout", {signer: "won", opponent: "timed-out"})
                    return True
            case Delete():
                if self.phase in ("lobby", "over") and signer == self.seats[0]:
                    return None
        return False

    def score_round(self, now: int | None) -> None:
        first, second = self.seats
        throws = [self.revealed[first], self.revealed[second]]
        if (throws[0], throws[1]) in BEATS:
            self.won[first] += 1
        elif (throws[1], throws[0]) in BEATS:
            self.won[second] += 1
        self.history.append(throws)
        self.committed, self.revealed, self.since = {}, {}, None
        if max(self.won.values()) == self.settings[0] or self.round == 100:
            a, b = self.won[first], self.won[second]
            outcome = {first: "drew", second: "drew"} if a == b else {
                first: "won" if a > b else "lost",
                second: "won" if b > a else "lost",
            }  # fmt: skip
            self.finish("normal", outcome)
        else:
            self.round, self.since = self.round + 1, now

    def finish(self, how: str, outcome: dict[str, str]) -> None:
        self.phase, self.how, self.outcome = "over", how, outcome
        self.committed, self.revealed, self.since = {}, {}, None

    def as_map(self) -> dict[str, object]:
        """The game map the specification says the state holds."""
        states = {"hostless": "AWAITING_HOST", "lobby": "AWAITING_GAME", "play": "PLAYING_GAME", "over": "CONCLUDED"}
        return {
            "name": self.name,
            "state": states[self.phase],
            "host": self.seats[0] if self.seats else None,
            "settings": {"points": self.settings[0], "timeout": self.settings[1]},
            "players": [
                {
                    "key": key,
                    "ready": key in self.ready,
                    "score": self.won[key],
                    "commitment": self.committed.get(key),
                    "throw": self.revealed.get(key),
                }
                for key in self.seats
            ],
            "round": self.round,
            "history": self.history,
            "waiting_since": self.since,
            "conclusion_type": self.how,
            "results": (
                None
                if self.how is None
                else [{"outcome": self.outcome[key], "final_score": self.won[key]} for key in self.seats]
            ),
        }


def model_apply(model: dict[str, ModelGame], op: Op, signer: str, now: int | None) -> bool:
    game = model.get(op.name)
    if isinstance(op, Create):
        if game is not None:
            return False
        points, timeout = (op.settings.points, op.settings.timeout) if op.settings else (1, 300)
        model[op.name] = ModelGame(op.name, (points, timeout))
        if op.join:
            model[op.name].apply(Join(op.name, JOINING), signer, now)
        return True
    if game is None:
        return False
    applied = game.apply(op, signer, now)
    if applied is None:
        del model[op.name]
        return True
    return applied


def expected_state(model: dict[str, ModelGame], collide: bool) -> dict[str, list[dict[str, object]]]:
    """Address -> the game maps stored there, in the specification's order."""
    by_address: dict[str, list[dict[str, object]]] = {}
    for name in sorted(model, key=str.encode):
        by_address.setdefault(SHARED_ADDRESS if collide else game_address(name), []).append(model[name].as_map())
    return by_address


def games_in(state: dict[str, bytes]) -> dict[str, list[dict[str, object]]]:
    """The rps part of ``state`` as plain maps, each bucket shown to decode (hence be consistent) and round-trip."""
    found = {}
    for address, data in state.items():
        if address.startswith("c56a0e"):
            assert encode_bucket(decode_bucket(address, data).values()) == data
            found[address] = cbor2.loads(data)
            assert cbor2.dumps(found[address], canonical=True) == data
    return found


def colliding(collide: bool) -> AbstractContextManager[object]:
    if collide:
        return mock.patch.object(handler_module, "game_address", lambda name: SHARED_ADDRESS)
    return nullcontext()


#: Short time-outs and small clock steps, so that claims land on, just before and just after their deadline.
settings_strategy = st.builds(Settings, st.integers(1, 3), st.sampled_from([1, 2, 60]))


#: Moments an op may name, right or wrong for the game it reaches.
MOMENTS = [
    Moment(0, "join"),
    Moment(0, "setup"),
    *(Moment(round_number, phase) for round_number in (1, 2, 3) for phase in ("commit", "reveal", "over")),
]


#: What a player committed to, by (game, round, key): what an honest reveal shows.
Secrets = dict[tuple[str, int, str], tuple[str, bytes]]


def action(data: st.DataObject, model: dict[str, ModelGame], secrets: Secrets) -> tuple[Op, str]:
    """An op and its signer: mostly the op a player of a game would send next, sometimes anything at all."""
    name = data.draw(st.sampled_from(NAMES[:1] * 3 + NAMES[1:]))
    game = model.get(name)
    honest = game is not None and data.draw(st.integers(0, 9)) > 1
    signer = data.draw(st.sampled_from(game.seats if honest and game.seats else PLAYERS))
    kinds = ["create", "join", "setup", "ready", "commit", "reveal", "resign", "claim", "delete"]
    if honest and game.phase in ("hostless", "lobby"):
        kinds = ["join"] * 4 + ["ready"] * 8 + ["setup"]
    elif honest and game.phase == "play":
        step = "reveal" if len(game.committed) == 2 else "commit"
        done = game.revealed if step == "reveal" else game.committed
        waiting = [key for key in game.seats if key not in done]
        kinds = [step] * 12 + ["claim"] * 2 + ["resign"]
        if data.draw(st.integers(0, 5)):  # the player who should act: to take the step, or to claim
            waiting = [key for key in game.seats if key not in done]
            kind = data.draw(st.sampled_from(kinds))
            candidates = list(done) if kind == "claim" else waiting
            signer = data.draw(st.sampled_from(candidates)) if candidates else signer
            kinds = [kind]
    kind = data.draw(st.sampled_from(kinds))
    round_number = game.round if honest and game.round else data.draw(st.integers(1, 3))
    at = Moment(*game.moment()) if honest and data.draw(st.integers(0, 9)) else data.draw(st.sampled_from(MOMENTS))
    throw, salt = data.draw(st.sampled_from(THROWS)), data.draw(st.sampled_from(SALTS))
    match kind:
        case "create":
            return Create(name, data.draw(st.booleans()), data.draw(st.none() | settings_strategy)), signer
        case "join":
            return Join(name, at), data.draw(st.sampled_from(PLAYERS))
        case "setup":
            return Setup(name, at, data.draw(settings_strategy)), signer
        case "ready":
            agreed = Settings(*game.settings) if honest else data.draw(settings_strategy)
            return Ready(name, at, agreed), signer
        case "commit":
            others = list(game.committed.values()) if game else []
            if others and not data.draw(st.integers(0, 4)):  # a copy of the opponent's commitment
                return Commit(name, at, others[0]), signer
            secrets[name, round_number, signer] = (throw, salt)
            return Commit(name, at, commitment(name, round_number, signer, throw, salt)), signer
        case "reveal":
            if honest and data.draw(st.integers(0, 4)):
                throw, salt = secrets.get((name, round_number, signer), (throw, salt))
            return Reveal(name, at, throw, salt), signer
        case "resign":
            return Resign(name, at), signer
        case "claim":
            return Claim(name, at), signer
    return Delete(name, at), signer


@SETTINGS
@given(st.data(), st.booleans(), st.booleans())
def test_any_sequence_of_ops_is_applied_or_refused_exactly_as_the_model_says(data, with_clock, collide):
    state: dict[str, bytes] = {}
    model: dict[str, ModelGame] = {}
    secrets: Secrets = {}
    now = 1_000
    with colliding(collide):
        for block in range(data.draw(st.integers(1, 50), label="length")):
            if with_clock:
                now += data.draw(st.sampled_from([0, 0, 0, 0, 1, 1, 2, 59, 60]), label="seconds")
                state.update(block_info_entries(timestamp=now, block_num=block))
            op, signer = action(data, model, secrets)
            legal = model_apply(model, op, signer, now if with_clock else None)
            req = request(op, signer)
            context = FakeContext(state, [*req.header.inputs, SHARED_ADDRESS])
            try:
                RpsTransactionHandler().apply(req, context)
            except InvalidTransaction as error:
                assert not legal, f"{op} by {signer[:8]} refused: {error}"
                assert context.events == []
            else:
                assert legal, f"{op} by {signer[:8]} applied"
                assert [event.event_type for event in context.events] == [f"rps/{op.NAME}"]
                event(f"applied {op.NAME}")
                if op.name in model and model[op.name].how:
                    event(f"concluded {model[op.name].how}")
            assert games_in(state) == expected_state(model, collide)


@SETTINGS
@given(st.data())
def test_random_honest_games_end_with_consistent_scores_and_results(data):
    game = rules.apply_op(None, Create("g1", settings=data.draw(settings_strategy)), PLAYERS[0], None)
    game = rules.apply_op(game, Join("g1", SETTING_UP), PLAYERS[1], None)
    for player in PLAYERS[:2]:
        game = rules.apply_op(game, Ready("g1", SETTING_UP, game.settings), player, None)
    while game.state == "PLAYING_GAME":
        throws = [data.draw(st.sampled_from(THROWS)) for _ in range(2)]
        for player, throw in zip(PLAYERS[:2], throws, strict=True):
            made = commitment("g1", game.round, player, throw, SALTS[0])
            game = rules.apply_op(game, Commit("g1", committing(game.round), made), player, 1)
        for player, throw in reversed(list(zip(PLAYERS[:2], throws, strict=True))):
            game = rules.apply_op(game, Reveal("g1", revealing(game.round), throw, SALTS[0]), player, 2)
        assert consistency_problem(game) is None
    assert game.conclusion_type == "normal"
    scores = [result.final_score for result in game.results]
    outcomes = [result.outcome for result in game.results]
    assert scores == [player.score for player in game.players]
    assert len(game.history) == game.round
    if max(scores) == game.settings.points:
        assert outcomes[scores.index(max(scores))] == "won"
        assert sorted(outcomes) == ["lost", "won"]
    else:  # nobody reached the objective in 100 rounds
        assert game.round == 100
        assert outcomes == (
            ["drew", "drew"]
            if scores[0] == scores[1]
            else ["won", "lost"]
            if scores[0] > scores[1]
            else ["lost", "won"]
        )


@SETTINGS
@given(
    st.sampled_from(THROWS),
    st.binary(min_size=32, max_size=32),
    st.lists(st.tuples(st.sampled_from(THROWS), st.binary(min_size=32, max_size=32)), max_size=10),
    st.integers(1, 3),
)
def test_a_copied_or_replayed_commitment_can_never_be_revealed_by_the_copier(throw, salt, attempts, later):
    """Bob copies Alice's commitment (her round or a later one): even with her throw and salt he cannot open it."""
    alice, bob = PLAYERS[:2]
    game = rules.apply_op(None, Create("g1", settings=Settings(3, 60)), alice, None)
    game = rules.apply_op(game, Join("g1", SETTING_UP), bob, None)
    for player in (alice, bob):
        game = rules.apply_op(game, Ready("g1", SETTING_UP, game.settings), player, None)
    alices = commitment("g1", 1, alice, throw, salt)
    for _ in range(later - 1):  # tie the earlier rounds, so the copy is replayed in round `later`
        for player in (alice, bob):
            made = commitment("g1", game.round, player, "rock", salt)
            game = rules.apply_op(game, Commit("g1", committing(game.round), made), player, 1)
        for player in (alice, bob):
            game = rules.apply_op(game, Reveal("g1", revealing(game.round), "rock", salt), player, 1)
    alices_own = commitment("g1", game.round, alice, throw, salt)
    game = rules.apply_op(game, Commit("g1", committing(game.round), alices_own), alice, 1)
    game = rules.apply_op(game, Commit("g1", committing(game.round), alices), bob, 1)
    for guess_throw, guess_salt in [(throw, salt), *attempts]:
        try:
            rules.apply_op(game, Reveal("g1", revealing(game.round), guess_throw, guess_salt), bob, 1)
        except InvalidTransaction as error:
            assert "does not match your commitment" in str(error)
        else:
            raise AssertionError("a copied commitment was revealed")


@st.composite
def games_at_every_moment(draw: st.DrawFn) -> Game:
    """A game honestly played to a random moment: before play, in any phase of a round, or over."""
    alice, bob = PLAYERS[:2]
    game = rules.apply_op(None, Create("g1", join=False, settings=Settings(3, 60)), alice, None)
    steps = draw(st.integers(0, 14))
    for step in range(steps):
        assert game is not None
        at = moment_of(game)
        if game.state == "CONCLUDED":
            break
        if at.phase == "join":
            game = rules.apply_op(game, Join("g1", at), alice, None)
        elif at.phase == "setup" and len(game.players) < 2:
            game = rules.apply_op(game, Join("g1", at), bob, None)
        elif at.phase == "setup":
            game = rules.apply_op(game, Ready("g1", at, game.settings), bob if game.players[0].ready else alice, None)
        elif step == steps - 1 and draw(st.booleans()):
            game = rules.apply_op(game, Resign("g1", at), draw(st.sampled_from([alice, bob])), None)
        else:  # the first player who has not taken the phase's step takes it (every throw is rock: rounds tie)
            first = game.players[0]
            key = game.players[0 if (first.commitment if at.phase == "commit" else first.throw) is None else 1].key
            if at.phase == "commit":
                game = rules.apply_op(game, Commit("g1", at, commitment("g1", at.round, key, "rock", SALTS[0])), key, 1)
            else:
                game = rules.apply_op(game, Reveal("g1", at, "rock", SALTS[0]), key, 1)
    assert game is not None
    return game


@SETTINGS
@given(games_at_every_moment(), st.sampled_from(MOMENTS), st.sampled_from(list(OPS)[1:]), st.sampled_from(PLAYERS))
def test_an_op_signed_for_another_moment_than_the_games_is_refused_whatever_the_op(game, at, op_name, signer):
    """Whoever signs it and whatever it asks, an op counts only at the moment it names: never at another."""
    if at == moment_of(game):
        at = Moment(at.round + 1, "over")
    op = {
        "join": Join("g1", at),
        "setup": Setup("g1", at, game.settings),
        "ready": Ready("g1", at, game.settings),
        "commit": Commit("g1", at, commitment("g1", at.round, signer, "rock", SALTS[0])),
        "reveal": Reveal("g1", at, "rock", SALTS[0]),
        "resign": Resign("g1", at),
        "claim": Claim("g1", at),
        "delete": Delete("g1", at),
    }[op_name]
    event(f"{op_name} at {moment_of(game).phase}")
    try:
        rules.apply_op(game, op, signer, 10**9)
    except rules.IllegalMove as error:
        assert f"this {op_name} was signed for round {at.round}, {at.phase} phase" in str(error) or (
            op_name not in rules.ALLOWED[game.state]
        )
    else:
        raise AssertionError(f"{op} counted at {moment_of(game)}")


def started(timeout: int, now: int | None = None) -> Game:
    """A game in round 1, whose play (and the clock of its commit phase) started at ``now``."""
    game = rules.apply_op(None, Create("g1", settings=Settings(1, timeout)), PLAYERS[0], None)
    game = rules.apply_op(game, Join("g1", SETTING_UP), PLAYERS[1], None)
    for player in PLAYERS[:2]:
        game = rules.apply_op(game, Ready("g1", SETTING_UP, game.settings), player, now)
    assert game is not None
    return game


@SETTINGS
@given(
    st.integers(1, 604_800),
    st.integers(0, 2**40),
    st.integers(-5, 5) | st.integers(0, 10**6),
    st.booleans(),
    st.data(),
)
def test_a_claim_succeeds_exactly_from_the_deadline_on(timeout, started_at, offset, in_reveal_step, data):
    """The deadline is the BlockInfo time at which the phase began plus the time-out, to the second.

    However late in the phase the claimant acted does not move it.
    """
    alice, bob = PLAYERS[:2]
    acted_at = started_at + data.draw(st.integers(0, timeout + 10), label="claimant acted after")
    game = started(timeout, started_at)
    step = "commit"
    alices, bobs = (Commit("g1", committing(1), commitment("g1", 1, key, "rock", SALTS[0])) for key in (alice, bob))
    if in_reveal_step:
        game = rules.apply_op(game, alices, alice, started_at)
        game = rules.apply_op(game, bobs, bob, started_at)
        game = rules.apply_op(game, Reveal("g1", revealing(1), "rock", SALTS[0]), alice, acted_at)
        step = "reveal"
    else:
        game = rules.apply_op(game, alices, alice, acted_at)
    now = started_at + timeout + offset
    try:
        after = rules.apply_op(game, Claim("g1", moment_of(game)), alice, now)
    except InvalidTransaction as error:
        left = started_at + timeout - now
        assert left > 0
        assert str(error) == f"your opponent still has {duration(left)} to {step} in round 1 of game 'g1'"
    else:
        assert now >= started_at + timeout
        assert after is not None and after.conclusion_type == "by-timeout"


@SETTINGS
@given(
    st.sampled_from(THROWS),
    st.binary(min_size=32, max_size=32),
    st.sampled_from(THROWS),
    st.binary(min_size=32, max_size=32),
)
def test_a_reveal_is_accepted_exactly_when_it_opens_the_commitment(throw, salt, shown, shown_salt):
    alice, bob = PLAYERS[:2]
    game = started(300)
    game = rules.apply_op(game, Commit("g1", committing(1), commitment("g1", 1, alice, throw, salt)), alice, None)
    game = rules.apply_op(game, Commit("g1", committing(1), commitment("g1", 1, bob, "rock", SALTS[1])), bob, None)
    try:
        after = rules.apply_op(game, Reveal("g1", revealing(1), shown, shown_salt), alice, None)
    except InvalidTransaction as error:
        assert (shown, shown_salt) != (throw, salt)
        assert str(error) == f"{shown} with that salt does not match your commitment in round 1 of game 'g1'"
    else:
        assert (shown, shown_salt) == (throw, salt)
        assert after is not None and after.players[0].throw == throw


@st.composite
def payload_maps(draw: st.DrawFn) -> bytes:
    """CBOR maps that look like payloads: right and wrong ops, fields and values."""
    value: dict[object, object] = {}
    if draw(st.integers(0, 9)):
        value["op"] = draw(st.sampled_from([*OPS, "JOIN", "", 1]))
    if draw(st.integers(0, 9)):
        value["name"] = draw(st.text(max_size=5) | st.sampled_from([b"g", 7, None]))
    fields = ["join", "settings", "round", "phase", "commitment", "throw", "salt", "x"]
    for key in draw(st.sets(st.sampled_from(fields))):
        value[key] = draw(
            st.booleans()
            | st.integers(-2, 200)
            | st.sampled_from([*THROWS, "Rock", *PHASES, "Commit"])
            | st.binary(min_size=31, max_size=33)
            | st.fixed_dictionaries({"points": st.integers(0, 4), "timeout": st.integers(0, 2)})
        )
    return cbor2.dumps(value, canonical=draw(st.booleans()))


@SETTINGS
@given(st.binary(max_size=80) | payload_maps())
def test_any_payload_bytes_give_an_op_or_an_invalid_transaction(payload):
    try:
        op = parse_payload(payload)
    except InvalidPayload as error:
        assert str(error)
        return
    decoded = cbor2.loads(payload)
    assert cbor2.dumps(decoded, canonical=True) == payload
    assert (op.NAME, op.name) == (decoded["op"], decoded["name"])
    assert parse_payload(encode_payload(op)) == op


@SETTINGS
@given(st.binary(max_size=80) | payload_maps())
def test_any_payload_through_the_handler_is_applied_or_refused_never_crashes(payload):
    state = block_info_entries(timestamp=5)
    rules_game = rules.apply_op(None, Create("g1"), PLAYERS[0], None)
    state[game_address("g1")] = encode_bucket([rules_game])
    before = dict(state)
    req = request(payload, PLAYERS[1])
    context = FakeContext(state, ["c56a0e", "00b10c"])
    try:
        RpsTransactionHandler().apply(req, context)
    except InvalidTransaction:
        assert state == before
    else:
        games_in(state)


def sample_buckets() -> list[bytes]:
    """Buckets as play leaves them: a lobby, a round in progress, a concluded game, two games at one address."""
    alice, bob = PLAYERS[:2]
    lobby = rules.apply_op(None, Create("g2", settings=Settings(3, 60)), bob, None)
    playing = started(300)
    for key, throw, salt, now in ((alice, "rock", SALTS[0], 1234), (bob, "paper", SALTS[1], 1240)):
        playing = rules.apply_op(playing, Commit("g1", committing(1), commitment("g1", 1, key, throw, salt)), key, now)
    playing = rules.apply_op(playing, Reveal("g1", revealing(1), "paper", SALTS[1]), bob, 1250)
    concluded = rules.apply_op(playing, Claim("g1", revealing(1)), bob, 1550)
    return [encode_bucket(games) for games in ([lobby], [playing], [concluded], [playing, lobby])]


SAMPLES = sample_buckets()


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    """A sample bucket with one byte changed, inserted or removed, or cut short."""
    sample = draw(st.sampled_from(SAMPLES))
    position = draw(st.integers(0, len(sample) - 1))
    byte = bytes([draw(st.integers(0, 255))])
    kind = draw(st.sampled_from(["change", "insert", "remove", "cut"]))
    if kind == "change":
        return sample[:position] + byte + sample[position + 1 :]
    if kind == "insert":
        return sample[:position] + byte + sample[position:]
    if kind == "remove":
        return sample[:position] + sample[position + 1 :]
    return sample[:position]


def test_the_sample_buckets_round_trip_byte_for_byte():
    for sample in SAMPLES:
        assert encode_bucket(decode_bucket("addr", sample).values()) == sample


@SETTINGS
@given(st.binary(max_size=80) | damaged())
def test_any_state_bytes_decode_to_games_or_a_corrupt_state_error(blob):
    try:
        games = decode_bucket("addr", blob)
    except CorruptState as error:
        assert str(error).startswith("state at addr: ")
        return
    assert (encode_bucket(games.values()) if games else b"") == blob
    assert all(consistency_problem(game) is None for game in games.values())


def test_the_block_info_prefix_covers_every_block_address():
    assert block_info.block_address(12345).startswith("00b10c")
