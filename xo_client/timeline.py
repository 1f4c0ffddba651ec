"""A game name's past on the chain: its committed moves, replayed by the rules, one game per ``create``.

A name can be created, deleted and created again, so one name may have had several
games; each starts at a ``create`` and ends at a ``delete`` (or goes on). The
chain holds only the moves the processor accepted, so replaying them with
:mod:`xo_tp.rules` -- the processor's own rules -- gives the board and state after
each one without asking the REST API for more. A move that does not replay (a
chain written by a processor with other rules) is reported and left out rather
than guessed at. Pure: moves in, games out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from xo_core.text import game_label
from xo_tp import rules
from xo_tp.payload import CREATE, DELETE


class CommittedMove(NamedTuple):
    """A committed XO transaction of the name: where it is on the chain, who signed it, what it did."""

    block_num: int
    block_id: str
    transaction_id: str
    signer: str
    action: str
    space: int | None


class Step(NamedTuple):
    """A move and what it left: ``mark`` is what a take placed; ``game`` is None after a delete."""

    move: CommittedMove
    mark: str | None
    game: rules.Game | None


class PastGame(NamedTuple):
    """One game of a name, from its ``create``; ``number`` counts the name's games from 1."""

    number: int
    steps: tuple[Step, ...]

    @property
    def deleted(self) -> bool:
        return self.steps[-1].move.action == DELETE

    @property
    def last(self) -> rules.Game:
        """The game as it stood last (before its deletion, if deleted)."""
        return next(step.game for step in reversed(self.steps) if step.game is not None)

    @property
    def takes(self) -> list[Step]:
        return [step for step in self.steps if step.mark is not None]


def replay(name: str, moves: Iterable[CommittedMove]) -> tuple[list[PastGame], list[str]]:
    """The games of ``name`` played by ``moves`` (in chain order), and a note for each move that does not replay."""
    games: list[PastGame] = []
    steps: list[Step] = []
    game: rules.Game | None = None
    problems: list[str] = []

    def close() -> None:
        if steps:
            games.append(PastGame(len(games) + 1, tuple(steps)))
            steps.clear()

    for move in moves:
        where = f"the {move.action} in block {move.block_num} (transaction {move.transaction_id[:16]}...)"
        if move.action == CREATE:
            if game is not None:
                problems.append(f"{where} creates {game_label(name)} again while it exists")
            close()
            game = rules.new_game(name)
            steps.append(Step(move, None, game))
        elif game is None:
            problems.append(f"{where} comes while there is no {game_label(name)}; left out")
        elif move.action == DELETE:
            steps.append(Step(move, None, None))
            close()
            game = None
        else:
            mark = rules.mark_to_move(game.state)
            try:
                game = rules.take(game, move.space or 0, move.signer)
            except rules.IllegalMove as refusal:
                problems.append(f"{where} does not replay under the XO rules ({refusal}); left out")
                continue
            steps.append(Step(move, mark, game))
    close()
    return games, problems
