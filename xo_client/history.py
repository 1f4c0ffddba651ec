"""A game name's committed moves in order, from the REST API's blocks, on any network: ``xo history`` and the page.

State keeps only a game's present; the chain keeps every move. The REST API has
no index by address, so the blocks are read newest first, 100 per request (each
answer carries its blocks' transactions: no request per block or per transaction),
keeping only the XO transactions that write the name's address and whose payload
names this game (another name may share the address). Replaying them with
:mod:`xo_tp.rules` (:mod:`xo_client.timeline`) gives each move's resulting board and
state; a name deleted and created again has one game per ``create``.

The moves come out as the JSON ``xo history --json`` prints and the page shows, or
one game as an Aries Tic Tac Toe 1.0 thread (:mod:`xo_client.aries`).
"""

from __future__ import annotations

from client_core.blocks import may_write_under
from client_core.rest import RestClient
from xo_client import aries
from xo_client.games import Game
from xo_client.timeline import CommittedMove, PastGame
from xo_tp import rules
from xo_tp.family import FAMILY_NAME, game_address
from xo_tp.payload import InvalidPayload, parse_payload


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
    """A rules game as a client's game, with the state address it lives at."""
    return Game(*game, game_address(game.name))
