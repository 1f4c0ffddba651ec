"""The XO game tree walked with the string rules alone, as an oracle for the bitboard, solver, analysis and AI.

Everything here is built from ``xo_tp.rules.take`` -- never from ``xo_tp.bitboard`` or
``xo_tp.solver`` -- so that agreement between the two is evidence, not an echo.
"""

from collections import Counter
from functools import cache

from xo_tp import rules

SIGNER = "player"
#: The outcome each finished state records.
RESULT = {rules.P1_WIN: "X", rules.P2_WIN: "O", rules.TIE: "draw"}


def start(board: str = rules.EMPTY_BOARD, state: str = rules.P1_NEXT) -> rules.Game:
    """A game on ``board`` in ``state`` whose seats are open, so any signer may move."""
    return rules.Game("g", board, state, "", "")


def accepted_moves(game: rules.Game) -> list[int]:
    """The spaces ``rules.take`` accepts, found by trying all nine."""
    moves = []
    for space in range(1, 10):
        try:
            rules.take(game, space, SIGNER)
        except rules.IllegalMove:
            continue
        moves.append(space)
    return moves


def after(game: rules.Game, space: int) -> rules.Game:
    """``game`` once ``space`` is taken, seats reopened so the next move is anyone's."""
    played = rules.take(game, space, SIGNER)
    return start(played.board, played.state)


def layers() -> list[Counter[rules.Game]]:
    """Breadth first from the empty board: per number of moves made, each game reached and by how many move orders."""
    found = [Counter({start(): 1})]
    while found[-1]:
        following: Counter[rules.Game] = Counter()
        for game, paths in found[-1].items():
            for space in accepted_moves(game):
                following[after(game, space)] += paths
        found.append(following)
    return found[:-1]


@cache
def reachable() -> dict[str, str]:
    """Every board play can reach from the empty board, with the state the rules give it."""
    return {game.board: game.state for layer in layers() for game in layer}


def complete_games() -> int:
    """How many different move sequences play a game to its end."""
    return sum(paths for layer in layers() for game, paths in layer.items() if game.state in rules.FINISHED_STATES)


def value(outcome: str, mark: str) -> int:
    """1, 0 or -1: how ``outcome`` is for the player of ``mark``."""
    if outcome == mark:
        return 1
    return 0 if outcome == "draw" else -1


@cache
def perfect_outcome(board: str, state: str) -> str:
    """How the game ends with perfect play, by plain minimax over ``rules.take`` (any board, any state)."""
    game = start(board, state)
    if state in rules.FINISHED_STATES:
        return RESULT[state]
    moves = accepted_moves(game)
    if not moves:  # a full board whose state still names a mover: only foreign state
        finished = rules.state_after_move(board, state)
        return RESULT[finished]
    mover = rules.mark_to_move(state)
    outcomes = [perfect_outcome(child.board, child.state) for child in (after(game, space) for space in moves)]
    return max(outcomes, key=lambda outcome: value(outcome, mover))
