"""Who must act next in an rps game, and when a player held up may be claimed against: pure, from state alone.

A game waits on its players in a fixed order: someone to join (and host), a second
player, both players ready for the settings, then in every round both commitments
and both reveals. In play, when exactly one player has taken the current step, the
game waits for the other alone, who may be timed out: the rules
(:func:`rps_tp.game.laggard`) say who, and the time-out runs from ``waiting_since``,
the BlockInfo time at which the current phase (commit or reveal) began for both.
Everything here is public: it reads nothing but the game.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from rps_tp.game import AWAITING_GAME, AWAITING_HOST, PLAYING_GAME, SEATS, Game, laggard

JOIN: Final = "join"
READY: Final = "ready"
COMMIT: Final = "commit"
REVEAL: Final = "reveal"


class Step(NamedTuple):
    """One thing the game waits for: ``action`` by the player whose key is ``player`` (``None``: anyone)."""

    player: str | None
    action: str


class Claim(NamedTuple):
    """Who may claim the game, against whom, and from which chain time (``None``: no time-out is running)."""

    claimant: str
    laggard: str
    step: str
    since: int | None
    at: int | None


def next_steps(game: Game | None) -> tuple[Step, ...]:
    """What the game waits for now, in seat order; nothing once it is over (or, for ``None``, until it is created)."""
    if game is None:
        return ()
    if game.state == AWAITING_HOST:
        return (Step(None, JOIN),)
    if game.state == AWAITING_GAME:
        ready = tuple(Step(player.key, READY) for player in game.players if not player.ready)
        return ready + ((Step(None, JOIN),) if len(game.players) < SEATS else ())
    if game.state == PLAYING_GAME:
        step = current_step(game)
        done = (lambda player: player.commitment is not None) if step == COMMIT else (lambda p: p.throw is not None)
        return tuple(Step(player.key, step) for player in game.players if not done(player))
    return ()


def current_step(game: Game) -> str:
    """``commit`` until both players have committed in the round, then ``reveal``."""
    if any(player.commitment is None for player in game.players):
        return COMMIT
    return REVEAL


def claim(game: Game) -> Claim | None:
    """Who may claim ``game`` once its time-out has passed, if one player alone is holding it up.

    ``at`` is when, in BlockInfo time (Unix seconds): ``waiting_since`` (when the
    phase began, not when the claimant acted) plus the time-out. Without a
    ``waiting_since`` (a network that kept no BlockInfo when the phase began) no claim
    can succeed in this phase, and ``at`` is ``None``.
    """
    seat = laggard(game)
    if seat is None:
        return None
    since = game.waiting_since
    at = None if since is None else since + game.settings.timeout
    return Claim(game.players[1 - seat].key, game.players[seat].key, current_step(game), since, at)


def copied_commitment(game: Game) -> bool:
    """Whether both players hold the same commitment: one copied the other's, and can never reveal it."""
    if game.state != PLAYING_GAME:
        return False
    first, second = game.players
    return first.commitment is not None and first.commitment == second.commitment
