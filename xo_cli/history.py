"""``xo history NAME``: a game name's committed moves in order, from the REST API's blocks, on any network.

State keeps only a game's present; the chain keeps every move. The REST API has
no index by address, so the blocks are read newest first, 100 per request (each
answer carries its blocks' transactions: no request per block or per transaction),
keeping only the XO transactions that write the name's address and whose payload
names this game (another name may share the address). Replaying them with
:mod:`xo_tp.rules` (:mod:`xo_cli.timeline`) gives each move's resulting board and
state; a name deleted and created again has one game per ``create``.

Output: a table per game for people, ``--json`` for scripts, and ``--format aries``,
one game (the last, or ``--game N``) as an Aries Tic Tac Toe 1.0 thread
(:mod:`xo_cli.aries`).
"""

from __future__ import annotations

import argparse
import json

from client_core import session
from client_core.blocks import may_write_under
from client_core.errors import InvalidInput
from client_core.keys import KeyNames
from client_core.rest import RestClient
from client_core.runner import warn
from client_core.tables import table
from xo_cli import aries, render
from xo_cli.games import Game, impossible_name
from xo_cli.notation import grid_name
from xo_cli.timeline import CommittedMove, PastGame, Step, replay
from xo_tp import rules
from xo_tp.family import FAMILY_NAME, game_address
from xo_tp.payload import InvalidPayload, parse_payload
from xo_tp.rules import game_label, quoted

HEADINGS = ("BLOCK", "PLAYER", "ACTION", "SPACE", "BOARD", "STATE")
DELETED = "(deleted)"


def history(args: argparse.Namespace) -> int:
    """Print the committed moves of every game called NAME (or of game ``--game N``)."""
    name: str = args.name
    if problem := impossible_name(name):
        raise InvalidInput(problem)
    with session.rest_client(args) as client:
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
        print(history_text(name, games, total, session.key_names(args)))
    return 0


def committed_moves(client: RestClient, name: str) -> list[CommittedMove]:
    """Every committed XO move of the game called ``name``, in chain order (one walk over the blocks)."""
    address = game_address(name)
    found: list[CommittedMove] = []
    for block in client.blocks():
        for transaction in reversed(block.transactions):
            if transaction.family_name != FAMILY_NAME or not may_write_under(transaction, [address]):
                continue
            try:
                move = parse_payload(transaction.payload)
            except InvalidPayload:
                continue  # not a move this processor would have accepted: another family's writer, not this game
            if move.name == name:
                found.append(
                    CommittedMove(
                        block.block_num, block.block_id, transaction.transaction_id, transaction.signer,
                        move.action, move.space,
                    )
                )  # fmt: skip
    found.reverse()
    return found


def outcome(game: PastGame, names: KeyNames = render.NO_NAMES) -> str:
    """How the game stands or ended: ``X won (player 1: alice (0208fb...)), then deleted``, ``P2-NEXT``, ..."""
    last = as_game(game.last)
    ended = render.outcome_text(last, names)
    if game.deleted:
        return f"{ended}, then deleted" if ended else f"deleted before it ended ({last.state})"
    return ended or f"still being played ({last.state})"


def history_text(name: str, games: list[PastGame], total: int, names: KeyNames = render.NO_NAMES) -> str:
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
    board, state = (step.game.board, step.game.state) if step.game is not None else ("", DELETED)
    player = render.key_label(move.signer, names, render.KEY_NAME_WIDTH)
    return (str(move.block_num), player, move.action, space, board, state)


def history_json(name: str, games: list[PastGame]) -> dict[str, object]:
    """``--json``: the name, its address, and each game's moves with the game after each (null after a delete)."""
    return {
        "name": name,
        "address": game_address(name),
        "games": [
            {
                "number": game.number,
                "deleted": game.deleted,
                "game": as_game(game.last).as_json(),
                "moves": [
                    {
                        "block_num": step.move.block_num,
                        "block_id": step.move.block_id,
                        "transaction_id": step.move.transaction_id,
                        "player": step.move.signer,
                        "action": step.move.action,
                        "space": step.move.space if step.mark else None,
                        "game": as_game(step.game).as_json() if step.game is not None else None,
                    }
                    for step in game.steps
                ],
            }
            for game in games
        ],
    }


def aries_thread(game: PastGame) -> list[dict[str, object]]:
    """The game as an Aries Tic Tac Toe thread; a game deleted before it ended is abandoned (``winner`` null)."""
    placements = [aries.Placement(step.mark, step.move.space) for step in game.takes if step.mark and step.move.space]
    return aries.to_thread(placements, abandoned=game.deleted)


def as_game(game: rules.Game) -> Game:
    return Game(*game, game_address(game.name))
