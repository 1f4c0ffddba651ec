"""How ``xo watch`` shows games changing: one line per change for people, one JSON object per line for scripts.

Every line starts with the block that committed the change and names the game
through :func:`xo_core.text.game_label` (escaped, cut if very long); keys are shown
as ``alice (0208fb...)`` when the key directory names them. A JSON line is a stable
object for scripts: the block, what happened, and the game after it in the shape of
``xo show --json`` (``null`` once deleted), with the exact name and full keys.
"""

from __future__ import annotations

import json

from client_core.blocks import BlockRef
from client_core.keys import KeyNames
from xo_cli import render
from xo_client.changes import CREATED, DELETED, TAKEN, Change
from xo_client.games import Game
from xo_client.notation import board_in_grid, grid_name
from xo_client.outcome import outcome_text, state_words
from xo_core.text import game_label

SNAPSHOT = "snapshot"
"""The action of the lines that show a game as it stood when watching began."""


def change_line(block: BlockRef, change: Change, names: KeyNames = render.NO_NAMES) -> str:
    """``block 14: game 'g1': alice (0208fb...) took 5 (B2) as X; bob (O) to move; X on B2``, and the like."""
    label = game_label(change.name)
    game = change.game
    if change.kind == DELETED or game is None:
        return f"block {block.block_num}: {label} deleted"
    if change.kind == TAKEN and change.space is not None and change.player is not None:
        mark = game.board[change.space - 1]
        player = render.key_label(change.player, names)
        what = f"{label}: {player} took {change.space} ({grid_name(change.space)}) as {mark}"
    elif change.kind == CREATED:
        what = f"{label} created"
    elif change.kind == SNAPSHOT:
        what = f"{label} as it stands"
    else:
        what = f"{label} rewritten"
    standing = outcome_text(game, names) or state_words(game, names)
    return f"block {block.block_num}: {what}; {standing}; {board_in_grid(game.board)}"


def waiting_line(block: BlockRef, name: str, hint: str = "") -> str:
    """``hint``: the games there are and the likely one (client_core.watching.suggestion)."""
    missing = f"block {block.block_num}: there is no {game_label(name)} yet{hint}"
    return f"{missing}; waiting for it to be created (Ctrl-C stops)"


def change_json(block: BlockRef, change: Change) -> str:
    """One line of ``--json``: ``{"block_num", "block_id", "action", "name", "space", "player", "game"}``."""
    return json.dumps(
        {
            "block_num": block.block_num,
            "block_id": block.block_id,
            "action": change.kind,
            "name": change.name,
            "space": change.space,
            "player": change.player,
            "game": change.game.as_json() if change.game is not None else None,
        }
    )


def snapshot(name: str, game: Game | None) -> Change:
    """The first line of a watch: the game as it stands (or None: not created yet)."""
    return Change(SNAPSHOT, name, None, None, game)
