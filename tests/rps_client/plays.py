"""Games made by the processor's own rules, for the tests of what the client shows: no hand-built states."""

from __future__ import annotations

from rps_tp import rules
from rps_tp.commitment import commitment
from rps_tp.game import Game, Settings, moment_of
from rps_tp.ops import Claim, Commit, Create, Join, Ready, Resign, Reveal

ALICE = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
BOB = "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
SALTS = {ALICE: bytes(range(32)), BOB: bytes(range(32, 64))}
NOW = 1_700_000_000


def created(name: str = "g1", settings: Settings | None = None) -> Game:
    game = rules.apply_op(None, Create(name, settings=settings), ALICE, NOW)
    assert game is not None
    return game


def started(name: str = "g1", settings: Settings | None = None, now: int | None = NOW) -> Game:
    """A game in round 1 whose play (and the clock of its first commit phase) started at ``now``."""
    game = created(name, settings)
    at = moment_of(game)  # the setup phase, until both are ready
    for op, who in (
        (Join(name, at), BOB),
        (Ready(name, at, game.settings), ALICE),
        (Ready(name, at, game.settings), BOB),
    ):
        game = rules.apply_op(game, op, who, now)
    return game


def commit(game: Game, who: str, throw: str, now: int | None = NOW) -> Game:
    made = commitment(game.name, game.round, who, throw, SALTS[who])
    return rules.apply_op(game, Commit(game.name, moment_of(game), made), who, now)


def reveal(game: Game, who: str, throw: str, now: int | None = NOW) -> Game:
    return rules.apply_op(game, Reveal(game.name, moment_of(game), throw, SALTS[who]), who, now)


def round_played(game: Game, alices: str, bobs: str) -> Game:
    game = commit(commit(game, ALICE, alices), BOB, bobs)
    return reveal(reveal(game, ALICE, alices), BOB, bobs)


def resigned(game: Game, who: str) -> Game:
    return rules.apply_op(game, Resign(game.name, moment_of(game)), who, NOW)


def claimed(game: Game, who: str, now: int) -> Game:
    return rules.apply_op(game, Claim(game.name, moment_of(game)), who, now)
