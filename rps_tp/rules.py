"""The rules of rps as ``docs/rps-family.md`` states them: one small pure function per op, no I/O.

Each function takes a game and returns the next one; an op the rules forbid raises
:class:`IllegalMove`, which *is* the SDK's ``InvalidTransaction``, with a message
in the words of the player who sent it ("you ..."). Time enters as ``now``, the
timestamp of the newest BlockInfo (``None`` on a network that keeps none), read by
the handler; the rules never look at a clock themselves.
"""

from typing import Final

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from rps_tp.commitment import commitment as commitment_of
from rps_tp.game import (
    AWAITING_GAME,
    AWAITING_HOST,
    BY_RESIGNATION,
    BY_TIMEOUT,
    CONCLUDED,
    DEFAULT_SETTINGS,
    MAX_ROUNDS,
    NORMAL,
    PLAYING_GAME,
    RESIGNED,
    SEATS,
    TIMED_OUT,
    WON,
    Game,
    Player,
    Result,
    Settings,
    describe_moment,
    describe_settings,
    laggard,
    moment_of,
    new_game,
    normal_outcomes,
    round_winner,
    seat_of,
)
from rps_tp.ops import Claim, Commit, Create, Delete, Join, OnGame, Op, Ready, Resign, Reveal, Setup
from xo_core.text import duration, game_label, short_key

#: The ops each lifecycle state allows (``create`` needs no game at all).
ALLOWED: Final = {
    AWAITING_HOST: frozenset({Join.NAME}),
    AWAITING_GAME: frozenset({Join.NAME, Setup.NAME, Ready.NAME, Delete.NAME}),
    PLAYING_GAME: frozenset({Commit.NAME, Reveal.NAME, Resign.NAME, Claim.NAME}),
    CONCLUDED: frozenset({Delete.NAME}),
}
_IN_PLAY: Final = ALLOWED[PLAYING_GAME]
_PAST: Final = {"commit": "committed", "reveal": "revealed"}


class IllegalMove(InvalidTransaction):
    """An op the rules forbid; the message says why in a player's words."""


def apply_op(game: Game | None, op: Op, signer: str, now: int | None) -> Game | None:
    """The game after ``signer`` applies ``op`` to ``game`` (``None``: no such game, or deleted)."""
    label = game_label(op.name)
    if isinstance(op, Create):
        if game is not None:
            raise IllegalMove(f"{label} already exists")
        return create(op, signer)
    if game is None:
        raise IllegalMove(f"{label} does not exist; create it first")
    if op.NAME not in ALLOWED[game.state]:
        raise IllegalMove(not_now(game, op.NAME))
    _check_moment(game, op)
    match op:
        case Join():
            return join(game, signer)
        case Setup():
            return setup(game, signer, op.settings)
        case Ready():
            return ready(game, signer, op.settings, now=now)
        case Commit():
            return commit(game, signer, op.commitment, now=now)
        case Reveal():
            return reveal(game, signer, op.throw, op.salt, now=now)
        case Resign():
            return resign(game, signer)
        case Claim():
            return claim(game, signer, now)
    check_delete(game, signer)
    return None


def not_now(game: Game, op_name: str) -> str:
    """Why ``op_name`` is not allowed in ``game``'s lifecycle state."""
    label = game_label(game.name)
    if game.state == CONCLUDED:
        return f"{label} is over"
    if game.state == PLAYING_GAME:
        if op_name == Delete.NAME:
            return f"{label} is being played; its host can delete it once it is over"
        if op_name == Join.NAME:
            return f"{label} has already started; it can no longer be joined"
        if op_name == Setup.NAME:
            return f"{label} has already started; its settings can no longer change"
        return f"{label} has already started"
    if op_name in _IN_PLAY:
        return f"{label} has not started yet: it starts once two players have joined and are ready"
    return f"{label} has no host yet: join it first (the first player to join a game hosts it)"


def create(op: Create, signer: str) -> Game:
    """A new game; ``signer`` joins it as host unless the op says not to."""
    game = new_game(op.name, op.settings or DEFAULT_SETTINGS)
    return join(game, signer) if op.join else game


def join(game: Game, signer: str) -> Game:
    """Seat ``signer``: as host if the game has none, else as the second player."""
    label = game_label(game.name)
    if game.state == AWAITING_HOST:
        return game._replace(state=AWAITING_GAME, host=signer, players=(Player(signer),))
    if seat_of(game, signer) is not None:
        raise IllegalMove(f"you have already joined {label}")
    if len(game.players) >= SEATS:
        raise IllegalMove(f"{label} is full: it has two players already")
    return game._replace(players=(*game.players, Player(signer)))


def setup(game: Game, signer: str, settings: Settings) -> Game:
    """The host's new settings; every player must be ready again, for these."""
    _check_host(game, signer, "change its settings")
    players = tuple(player._replace(ready=False) for player in game.players)
    return game._replace(settings=settings, players=players)


def ready(game: Game, signer: str, settings: Settings, *, now: int | None) -> Game:
    """``signer`` is ready to play with ``settings``; play starts when both players are.

    Play starting begins the commit phase of round 1 for both players, so its clock
    starts: ``waiting_since`` becomes ``now``.
    """
    seat = _seat(game, signer)
    if settings != game.settings:
        raise IllegalMove(
            f"{game_label(game.name)} is now set up as {describe_settings(game.settings)}, "
            f"not {describe_settings(settings)}: be ready for its current settings"
        )
    players = _replaced(game.players, seat, ready=True)
    game = game._replace(players=players)
    if len(players) == SEATS and all(player.ready for player in players):
        return game._replace(state=PLAYING_GAME, round=1, waiting_since=now)
    return game


def commit(game: Game, signer: str, commitment: bytes, *, now: int | None) -> Game:
    """``signer`` commits to a throw in the current round (the op named it); a commitment is final.

    The first commitment of a round leaves the clock alone: the opponent's time to
    commit has run since the commit phase began. The second begins the reveal phase,
    so its clock starts at ``now``.
    """
    seat = _seat(game, signer)
    if game.players[seat].commitment is not None:
        raise IllegalMove(
            f"you have already committed in round {game.round} of {game_label(game.name)}; a commitment is final"
        )
    players = _replaced(game.players, seat, commitment=commitment)
    if game.players[1 - seat].commitment is None:
        return game._replace(players=players)
    return game._replace(players=players, waiting_since=now)


def reveal(game: Game, signer: str, throw: str, salt: bytes, *, now: int | None) -> Game:
    """``signer`` shows the throw committed to in the current round (the op named it); the second reveal scores it.

    The first reveal leaves the clock alone: the opponent's time to reveal has run
    since the reveal phase began. The second, if the game goes on, begins the commit
    phase of the next round, so its clock starts at ``now``.
    """
    seat = _seat(game, signer)
    label = game_label(game.name)
    player, opponent = game.players[seat], game.players[1 - seat]
    if player.commitment is None:
        raise IllegalMove(f"you have not committed in round {game.round} of {label}; commit before you reveal")
    if opponent.commitment is None:
        raise IllegalMove(
            f"your opponent has not committed in round {game.round} of {label} yet; "
            "reveal once both players have committed"
        )
    if player.throw is not None:
        raise IllegalMove(f"you have already revealed your throw in round {game.round} of {label}")
    if commitment_of(game.name, game.round, signer, throw, salt) != player.commitment:
        raise IllegalMove(f"{throw} with that salt does not match your commitment in round {game.round} of {label}")
    players = _replaced(game.players, seat, throw=throw)
    if opponent.throw is None:
        return game._replace(players=players)
    first, second = players
    assert first.throw is not None and second.throw is not None  # both revealed: the round is complete
    return _score_round(game, (first.throw, second.throw), now)


def _score_round(game: Game, throws: tuple[str, str], now: int | None) -> Game:
    """The round is complete: score it, then conclude the game or start the next round (its clock from ``now``)."""
    winner = round_winner(throws)
    players = tuple(
        player._replace(commitment=None, throw=None, score=player.score + (1 if seat == winner else 0))
        for seat, player in enumerate(game.players)
    )
    game = game._replace(players=players, history=(*game.history, throws))
    scores = (players[0].score, players[1].score)
    if max(scores) >= game.settings.points or game.round >= MAX_ROUNDS:
        return _conclude(game, NORMAL, normal_outcomes(scores))
    return game._replace(round=game.round + 1, waiting_since=now)


def resign(game: Game, signer: str) -> Game:
    """``signer`` gives up; the opponent wins."""
    seat = _seat(game, signer)
    outcomes = (RESIGNED, WON) if seat == 0 else (WON, RESIGNED)
    return _conclude(game, BY_RESIGNATION, outcomes)


def claim(game: Game, signer: str, now: int | None) -> Game:
    """``signer`` wins because the opponent has not taken their step within the time-out.

    Only the player who has taken the current step (committed, or revealed) while the
    opponent has not may claim, and only once ``now`` has reached ``waiting_since`` (when
    the phase began for both) plus the time-out: how late the claimant acted does not
    matter, the opponent has had the whole time-out either way.
    """
    seat = _seat(game, signer)
    label = game_label(game.name)
    first, second = game.players
    step = "commit" if first.commitment is None or second.commitment is None else "reveal"
    if laggard(game) != 1 - seat:
        raise IllegalMove(
            f"you cannot claim {label}: you have not {_PAST[step]} in round {game.round} yourself, "
            "so your opponent is not holding the game up"
        )
    if now is None:
        raise IllegalMove(
            f"{label}: a time-out cannot be claimed on this network: it keeps no BlockInfo, the clock "
            "time-outs are measured by (run the block_info transaction processor and the validator's "
            "BlockInfo injector)"
        )
    if game.waiting_since is None:
        raise IllegalMove(
            f"{label}: no time-out is running: the network kept no BlockInfo when your opponent's turn began"
        )
    remaining = game.waiting_since + game.settings.timeout - now
    if remaining > 0:
        raise IllegalMove(f"your opponent still has {duration(remaining)} to {step} in round {game.round} of {label}")
    outcomes = (WON, TIMED_OUT) if seat == 0 else (TIMED_OUT, WON)
    return _conclude(game, BY_TIMEOUT, outcomes)


def check_delete(game: Game, signer: str) -> None:
    """Refuse unless ``signer`` is the host (the lifecycle state was checked before)."""
    _check_host(game, signer, "delete it")


def _conclude(game: Game, conclusion_type: str, outcomes: tuple[str, str]) -> Game:
    """The game is over: results per player, and nothing of an unfinished round kept."""
    players = tuple(player._replace(commitment=None, throw=None) for player in game.players)
    results = tuple(Result(outcome, player.score) for outcome, player in zip(outcomes, players, strict=True))
    return game._replace(
        state=CONCLUDED, players=players, waiting_since=None, conclusion_type=conclusion_type, results=results
    )


def _seat(game: Game, signer: str) -> int:
    """``signer``'s seat; refused if they have none."""
    seat = seat_of(game, signer)
    if seat is None:
        hint = "; join it first" if game.state in (AWAITING_HOST, AWAITING_GAME) else ""
        raise IllegalMove(f"you are not a player in {game_label(game.name)}{hint}")
    return seat


def _check_host(game: Game, signer: str, action: str) -> None:
    assert game.host is not None  # the states that allow setup and delete have a host
    if signer != game.host:
        raise IllegalMove(f"only the host of {game_label(game.name)} ({short_key(game.host)}) can {action}")


def _check_moment(game: Game, op: OnGame) -> None:
    """Refuse an op signed for another moment of the game than the one it is at.

    Sawtooth keeps no record of invalid transactions, so an op refused now could be
    sent again later; naming the moment it was signed for keeps it from counting then.
    """
    moment = moment_of(game)
    if op.at != moment:
        raise IllegalMove(
            f"{game_label(game.name)} is at {describe_moment(moment)}; this {op.NAME} was signed for "
            f"{describe_moment(op.at)}: an op counts only in the round and phase it was signed for "
            "(read the game again, then sign a new one)"
        )


def _replaced(players: tuple[Player, ...], seat: int, **changes: object) -> tuple[Player, ...]:
    return tuple(player._replace(**changes) if index == seat else player for index, player in enumerate(players))
