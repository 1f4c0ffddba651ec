"""What happened to the XO games at one state address from one block to the next: created, a space taken, deleted.

A block's state change gives only the games' new entries, not the transactions that
wrote them, and a block may hold several moves of one game (the ledger squashes a
block's changes to the last one per address). So the moves are worked out from the
two boards: the spaces that filled up, played in turn order from the old game by
:mod:`xo_tp.rules`, which seats the players and decides each intermediate state
exactly as the processor did. The player of a take is the key the new entry seats
for that mark. Pure: games in, changes out.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Final, NamedTuple

from xo_client.games import Game
from xo_tp import rules

CREATED: Final = "create"
TAKEN: Final = "take"
DELETED: Final = "delete"
CHANGED: Final = "change"
"""An entry rewritten in a way no sequence of moves explains (state written by some other processor)."""
MAX_ORDERINGS: Final = 2000
"""Orders of one block's moves tried before settling for a plain change (9 moves have at most 2880)."""


class Change(NamedTuple):
    """One thing that happened to a game; ``game`` is the game after it (None once deleted)."""

    kind: str
    name: str
    space: int | None
    player: str | None
    game: Game | None


def changes_between(before: Sequence[Game], after: Sequence[Game]) -> list[Change]:
    """The changes that turn the games of one address (``before``) into its games a block later, by name."""
    old = {game.name: game for game in before}
    new = {game.name: game for game in after}
    changes: list[Change] = []
    for name in sorted(old.keys() | new.keys()):
        changes.extend(game_changes(old.get(name), new.get(name)))
    return changes


def game_changes(before: Game | None, after: Game | None) -> list[Change]:
    """The changes from one game entry to the next (either may be None: not there)."""
    if before == after:
        return []
    if after is None:
        assert before is not None
        return [Change(DELETED, before.name, None, None, None)]
    fresh = Game(*rules.new_game(after.name), after.address)
    if before is not None:
        played = moves_between(before, after)
        if played is not None:
            return played
        recreated = moves_between(fresh, after)
        if recreated is not None:
            deleted = Change(DELETED, before.name, None, None, None)
            return [deleted, Change(CREATED, after.name, None, None, fresh), *recreated]
        return [Change(CHANGED, after.name, None, None, after)]
    played = moves_between(fresh, after)
    if played is None:
        return [Change(CREATED, after.name, None, None, after)]
    return [Change(CREATED, after.name, None, None, fresh), *played]


def moves_between(before: Game, after: Game) -> list[Change] | None:
    """The takes that lead from ``before`` to ``after`` by the rules, in play order; None if no order of takes does.

    Each mark's new spaces are tried in every order (fewest first: usually one move
    each), since the board alone does not say which came first.
    """
    added = [index + 1 for index, (old, new) in enumerate(zip(before.board, after.board, strict=True)) if old != new]
    if any(before.board[space - 1] != rules.EMPTY for space in added):
        return None
    marks = (rules.PLAYER_1_MARK, rules.PLAYER_2_MARK)
    by_mark = {mark: [space for space in added if after.board[space - 1] == mark] for mark in marks}
    if len(by_mark[rules.PLAYER_1_MARK]) + len(by_mark[rules.PLAYER_2_MARK]) != len(added):
        return None
    orders = itertools.product(
        itertools.permutations(by_mark[rules.PLAYER_1_MARK]), itertools.permutations(by_mark[rules.PLAYER_2_MARK])
    )
    for crosses, noughts in itertools.islice(orders, MAX_ORDERINGS):
        played = _play(before, after, list(crosses), list(noughts))
        if played is not None:
            return played
    return None


def _play(before: Game, after: Game, crosses: list[int], noughts: list[int]) -> list[Change] | None:
    """Play ``crosses`` and ``noughts`` in turn from ``before``; the changes if that ends exactly at ``after``."""
    game = rules.Game(*before[:5])
    changes = []
    queues = {rules.PLAYER_1_MARK: crosses, rules.PLAYER_2_MARK: noughts}
    while crosses or noughts:
        mark = rules.mark_to_move(game.state)
        if mark is None or not queues[mark]:
            return None
        space = queues[mark].pop(0)
        player = after.player1 if mark == rules.PLAYER_1_MARK else after.player2
        try:
            game = rules.take(game, space, player)
        except rules.IllegalMove:
            return None
        changes.append(Change(TAKEN, after.name, space, player, Game(*game, after.address)))
    return changes if tuple(game) == tuple(after[:5]) else None
