"""The JSON the page reads: games, changes, blocks and keys, with exact text and text fit to show.

Game names are chosen by whoever creates a game and shown to everyone, so each
carries two fields: ``name``, exact (the page sends it back to name the game) and
``shown``, the same text through :func:`xo_core.text.printable` (controls and bidi
overrides written as visible escapes), which is all the page ever displays, and
always as text (``textContent``), never as markup. Players' keys come with the
name of the key file that holds them, when the key directory has one
(``player1_name``), shown the same way.
"""

from __future__ import annotations

from typing import Any

from client_core.blocks import BlockRef
from client_core.keys import KeyNames
from rps_client.changes import Change as RpsChange
from rps_client.games import game_json as rps_game_json
from rps_client.outcome import outcome_text as rps_outcome_text
from rps_tp.game import Game as RpsGame
from xo_client.changes import Change
from xo_client.games import Game
from xo_core.text import printable

Json = dict[str, Any]


def block_view(block: BlockRef | None) -> Json | None:
    return None if block is None else {"num": block.block_num, "id": block.block_id}


def game_view(game: Game, names: KeyNames) -> Json:
    """``xo show --json``'s object, plus ``shown`` and the players' key names."""
    return {
        **game.as_json(),
        "shown": printable(game.name),
        "player1_name": shown_name(game.player1, names),
        "player2_name": shown_name(game.player2, names),
    }


def shown_name(key: str, names: KeyNames) -> str | None:
    name = names.name(key)
    return None if name is None else printable(name)


def change_view(change: Change, names: KeyNames) -> Json:
    """One thing that happened to a game (``xo watch --json``'s fields) and the game after it (null once deleted)."""
    return {
        "action": change.kind,
        "name": change.name,
        "shown": printable(change.name),
        "space": change.space,
        "player": change.player,
        "player_name": shown_name(change.player, names) if change.player else None,
        "game": game_view(change.game, names) if change.game is not None else None,
    }


def snapshot_view(block: BlockRef | None, games: list[Game], names: KeyNames) -> Json:
    """Every game as of ``block``: what a page starts from, and starts again from after a reconnection."""
    return {"block": block_view(block), "games": [game_view(game, names) for game in games]}


def block_changes_view(block: BlockRef, changes: list[Change], names: KeyNames) -> Json:
    """One block's changes as the page's event stream sends them."""
    return {"block": block_view(block), "changes": [change_view(change, names) for change in changes]}


def rps_game_view(game: RpsGame, names: KeyNames) -> Json:
    """``rps show --json``'s object, plus ``shown``, each player's key name, and the outcome in words once over.

    It holds only what the chain holds: whether a player has committed, never the throw
    before it is revealed.
    """
    document = rps_game_json(game)
    for player in document["players"]:
        player["name"] = shown_name(player["key"], names)
    return {**document, "shown": printable(game.name), "outcome_text": rps_outcome_text(game, None, names)}


def rps_change_view(change: RpsChange, names: KeyNames) -> Json:
    """One thing that happened to an rps game (``rps watch --json``'s fields) and the game after the block."""
    return {
        "change": change.kind,
        "name": change.name,
        "shown": printable(change.name),
        "player": change.player,
        "player_name": shown_name(change.player, names) if change.player else None,
        "round": change.round,
        "throws": None if change.throws is None else list(change.throws),
        "game": rps_game_view(change.game, names) if change.game is not None else None,
    }
