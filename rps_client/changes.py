"""What happened to an rps game from one block to the next: joined, set up, ready, committed, revealed, a round won.

A block's state change carries only the game's new record, not the transactions that
wrote it, and one block may hold several ops on one game (both commitments, both
reveals, a whole create-join-ready). So the changes are read off the two records,
field by field, in the order the rules allow them: seats, settings, ready flags, the
start of play, then each round's commitments, reveals and result, then the end. A
record no sequence of ops explains (a game deleted and created again in one block,
state written by another processor) is told as the game deleted and created anew.
Pure: games in, changes out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from rps_tp.game import (
    AWAITING_GAME,
    AWAITING_HOST,
    BY_RESIGNATION,
    BY_TIMEOUT,
    CONCLUDED,
    PLAYING_GAME,
    RESIGNED,
    STATES,
    WON,
    Game,
    new_game,
)

SNAPSHOT: Final = "snapshot"
CREATED: Final = "created"
JOINED: Final = "joined"
SET_UP: Final = "set-up"
READY: Final = "ready"
STARTED: Final = "started"
COMMITTED: Final = "committed"
REVEALED: Final = "revealed"
ROUND: Final = "round"
RESIGNED_CHANGE: Final = "resigned"
CLAIMED: Final = "claimed"
ENDED: Final = "ended"
DELETED: Final = "deleted"


class Change(NamedTuple):
    """One thing that happened to a game; ``game`` is the game after the whole block (``None`` once deleted).

    ``player`` is who did it (a key), ``round`` the round it belongs to, ``throws``
    the two throws of a completed round (or, for a reveal, the one revealed, first).
    """

    kind: str
    name: str
    game: Game | None
    player: str | None = None
    round: int | None = None
    throws: tuple[str, ...] | None = None


def changes_between(before: Sequence[Game], after: Sequence[Game]) -> list[Change]:
    """The changes that turn the games of one address (``before``) into its games a block later, by name."""
    old = {game.name: game for game in before}
    new = {game.name: game for game in after}
    found: list[Change] = []
    for name in sorted(old.keys() | new.keys()):
        found.extend(game_changes(old.get(name), new.get(name)))
    return found


def game_changes(before: Game | None, after: Game | None) -> list[Change]:
    """The changes from one record of a game to the next (either may be ``None``: not there)."""
    if before == after:
        return []
    if after is None:
        assert before is not None
        return [Change(DELETED, before.name, None)]
    fresh = new_game(after.name, after.settings)
    if before is None:
        return [Change(CREATED, after.name, after), *_steps(fresh, after)]
    if not _follows(before, after):
        return [Change(DELETED, before.name, None), Change(CREATED, after.name, after), *_steps(fresh, after)]
    return _steps(before, after)


def _follows(before: Game, after: Game) -> bool:
    """Whether ops on ``before`` can lead to ``after``: seats kept, state and rounds never going back."""
    keys_before = [player.key for player in before.players]
    return (
        [player.key for player in after.players][: len(keys_before)] == keys_before
        and STATES.index(after.state) >= STATES.index(before.state)
        and after.round >= before.round
        and after.history[: len(before.history)] == before.history
    )


def _steps(before: Game, after: Game) -> list[Change]:
    name = after.name
    found = [Change(JOINED, name, after, player.key) for player in after.players[len(before.players) :]]
    if after.settings != before.settings:
        found.append(Change(SET_UP, name, after, after.host))
    if after.state in (AWAITING_HOST, AWAITING_GAME):
        ready_before = {player.key for player in before.players if player.ready}
        found += [Change(READY, name, after, p.key) for p in after.players if p.ready and p.key not in ready_before]
        return found
    if before.state in (AWAITING_HOST, AWAITING_GAME):
        ready_before = {player.key for player in before.players if player.ready and after.settings == before.settings}
        found += [Change(READY, name, after, p.key) for p in after.players if p.key not in ready_before]
        found.append(Change(STARTED, name, after, round=1))
        before = before._replace(round=1)
    found += _rounds(before, after)
    if after.state == CONCLUDED and before.state != CONCLUDED:
        found.append(_ending(after))
    return found


def _rounds(before: Game, after: Game) -> list[Change]:
    """Commitments, reveals and results, from ``before``'s round to ``after``'s."""
    name = after.name
    found: list[Change] = []
    keys = [player.key for player in after.players]
    for number in range(before.round, after.round + 1):
        same_round = number == before.round and before.state == PLAYING_GAME
        committed = {p.key for p in before.players if p.commitment is not None} if same_round else set()
        revealed = {p.key for p in before.players if p.throw is not None} if same_round else set()
        if number <= len(after.history):
            throws = after.history[number - 1]
            found += [Change(COMMITTED, name, after, key, number) for key in keys if key not in committed]
            found += [
                Change(REVEALED, name, after, key, number, (throw,))
                for key, throw in zip(keys, throws, strict=True)
                if key not in revealed
            ]
            found.append(Change(ROUND, name, after, None, number, throws))
        elif number == after.round and after.state == PLAYING_GAME:
            found += [
                Change(COMMITTED, name, after, p.key, number)
                for p in after.players
                if p.commitment is not None and p.key not in committed
            ]
            found += [
                Change(REVEALED, name, after, p.key, number, (p.throw,))
                for p in after.players
                if p.throw is not None and p.key not in revealed
            ]
    return found


def _ending(game: Game) -> Change:
    """How the game ended: a resignation (by the loser), a claim (by the winner), or the last round."""
    assert game.results is not None
    outcomes = [result.outcome for result in game.results]
    if game.conclusion_type == BY_RESIGNATION:
        return Change(RESIGNED_CHANGE, game.name, game, game.players[outcomes.index(RESIGNED)].key)
    if game.conclusion_type == BY_TIMEOUT:
        return Change(CLAIMED, game.name, game, game.players[outcomes.index(WON)].key)
    return Change(ENDED, game.name, game)


def is_over(change: Change) -> bool:
    """Whether the game is gone, or over, after the block of ``change`` (a snapshot of no game is neither)."""
    return change.kind == DELETED or (change.game is not None and change.game.state == CONCLUDED)


def snapshot(name: str, game: Game | None) -> Change:
    """A game as it stands when watching begins (``None``: not created yet)."""
    return Change(SNAPSHOT, name, game)
