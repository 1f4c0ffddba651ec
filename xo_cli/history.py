"""``xo history NAME``: a game name's committed moves in order, as a table per game, JSON or an Aries thread.

The moves are read and replayed by :mod:`xo_client.history`. Output: a table per
game for people, ``--json`` for scripts, and ``--format aries``, one game (the
last, or ``--game N``) as an Aries Tic Tac Toe 1.0 thread (:mod:`xo_client.aries`).
"""

from __future__ import annotations

import argparse
import json

from client_core.caller import Caller
from client_core.errors import InvalidInput
from client_core.keys import NO_NAMES, KeyNames, key_label
from client_core.runner import warn
from client_core.tables import table
from xo_cli import render
from xo_client.games import impossible_name
from xo_client.history import aries_thread, as_game, committed_moves, history_json
from xo_client.notation import board_in_grid, grid_name
from xo_client.outcome import outcome_text, state_words
from xo_client.timeline import PastGame, Step, replay
from xo_core.text import game_label, quoted

HEADINGS = ("BLOCK", "PLAYER", "ACTION", "SPACE", "BOARD", "STATE")
DELETED = "(deleted)"


def history(args: argparse.Namespace) -> int:
    """Print the committed moves of every game called NAME (or of game ``--game N``)."""
    caller = Caller.of(args)
    name: str = args.name
    if problem := impossible_name(name):
        raise InvalidInput(problem)
    with caller.where.rest_client() as client:
        moves = committed_moves(client, name)
    games, problems = replay(name, moves)
    for problem in problems:
        warn("xo", problem)
    if not games:
        raise InvalidInput(f"there is no game named {quoted(name)} on this chain, and there never was")
    total = len(games)
    if args.game is not None:
        if args.game > total:
            raise InvalidInput(f"{game_label(name)} has had {len(games)} game(s) on this chain, not {args.game}")
        games = [games[args.game - 1]]
    if args.format == "aries":
        print(json.dumps(aries_thread(games[-1]), indent=2))
    elif args.format == "json":
        print(json.dumps(history_json(name, games), indent=2))
    else:
        print(history_text(name, games, total, caller.who.key_names()))
    return 0


def outcome(game: PastGame, names: KeyNames = NO_NAMES) -> str:
    """How the game stands or ended: ``X won (player 1: alice), then deleted``, ``bob (O) to move``."""
    last = as_game(game.last)
    ended = outcome_text(last, names)
    if game.deleted:
        return f"{ended}, then deleted" if ended else f"deleted before it ended: {state_words(last, names)}"
    return ended or f"still being played: {state_words(last, names)}"


def history_text(name: str, games: list[PastGame], total: int, names: KeyNames = NO_NAMES) -> str:
    """A heading and a table of moves per game (of the name's ``total``), columns aligned by display width."""
    sections = []
    for game in games:
        first, last = game.steps[0].move.block_num, game.steps[-1].move.block_num
        blocks = f"block {first}" if first == last else f"blocks {first}-{last}"
        heading = f"{game_label(name)} ({game.number} of {total}, {blocks}): {outcome(game, names)}"
        rows = [HEADINGS] + [step_row(step, names) for step in game.steps]
        sections.append("\n".join([heading, table(rows)]))
    return "\n\n".join(sections)


def step_row(step: Step, names: KeyNames) -> tuple[str, str, str, str, str, str]:
    move = step.move
    space = f"{move.space} ({grid_name(move.space)})" if move.space is not None and step.mark else ""
    game = step.game
    board, state = (board_in_grid(game.board), state_words(game, names)) if game is not None else ("", DELETED)
    player = key_label(move.signer, names, render.KEY_NAME_WIDTH)
    return (str(move.block_num), player, move.action, space, board, state)
