"""How ``xo show --analyze`` says what a position holds: sentences for players, one JSON object for scripts.

The answers themselves come from :mod:`xo_tp.analysis`; this module only words them.
Spaces are given in both of xo's notations, ``9 (C3)``, as everywhere else in xo.
:mod:`xo_cli.queries` imports this module (and with it the solver) only for
``--analyze``, so that a plain ``xo show`` stays as quick as it was.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from xo_client.games import Game
from xo_client.notation import grid_name
from xo_tp import rules
from xo_tp.analysis import Analysis, analyze_game
from xo_tp.solver import DRAW

#: ``outcome`` values of :class:`~xo_tp.analysis.Analysis` in words.
OUTCOME_WORDS = {rules.PLAYER_1_MARK: "X wins", rules.PLAYER_2_MARK: "O wins", DRAW: "a draw"}
#: How a finished game ended, by its state.
RESULT_WORDS = {rules.P1_WIN: "X won", rules.P2_WIN: "O won", rules.TIE: "a draw (the board is full, nobody won)"}


def analyze(game: Game) -> Analysis:
    """The analysis of ``game``'s position (a game read from state always holds one the rules can)."""
    return analyze_game(game)


def spaces_text(spaces: Sequence[int]) -> str:
    """``9 (C3), 4 (A2)``: each space by number and by grid name."""
    return ", ".join(f"{space} ({grid_name(space)})" for space in spaces)


def analysis_lines(game: Game, analysis: Analysis) -> list[str]:
    """What the analysis says about ``game``, one sentence per line, the verdict first.

    For a game in play: how it ends with perfect play and the moves that keep that
    ending, said from the side of the player to move (the winner's quickest wins, the
    loser's slowest losses, or the moves that hold a draw); then the legal moves and
    the lines on the board. For a finished game: its result.
    """
    mover = rules.mark_to_move(game.state)
    if mover is None:
        verdict = f"The game is over: {RESULT_WORDS[game.state]}."
    elif not analysis.legal_moves:
        verdict = f"No move is left, as the board is full: {OUTCOME_WORDS[analysis.outcome]}."
    else:
        verdict = f"With perfect play: {OUTCOME_WORDS[analysis.outcome]}{best_moves_text(mover, analysis)}"
    legal = spaces_text(analysis.legal_moves) if analysis.legal_moves else "none"
    return [verdict, f"Legal moves: {legal}", f"Lines: {lines_text(analysis.winners)}"]


def best_moves_text(mover: str, analysis: Analysis) -> str:
    """The best moves in the mover's terms, after the verdict."""
    best = spaces_text(analysis.best_moves)
    if analysis.outcome == mover:
        return f". Best moves: {best}"
    if analysis.outcome == DRAW:
        if set(analysis.best_moves) == set(analysis.legal_moves):
            return ". Every legal move keeps the draw"
        return f". Best moves: {best}; any other loses"
    return f", whatever {mover} plays. {mover}'s moves, slowest loss first: {best}"


def lines_text(winners: Sequence[str]) -> str:
    """The marks with a row, column or diagonal; both only on a board that play cannot reach."""
    if not winners:
        return "none"
    if len(winners) == 1:
        return f"{winners[0]} has a line"
    return (
        "both X and O have a line, which no game played by the rules can reach "
        "(this state was written by some other processor)"
    )


def game_with_analysis_json(game: Game, analysis: Analysis) -> str:
    """``xo show --analyze --json``: the game's usual object with ``analysis`` added."""
    return json.dumps(game.as_json() | {"analysis": analysis.as_json()}, indent=2)
