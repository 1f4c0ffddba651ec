"""How ``rps watch`` tells games changing: one line per change for people, one JSON object per line for scripts.

Every line starts with the block that committed the change and names the game as the
processor's messages do (:func:`xo_core.text.game_label`); players are named from the
key directory. A JSON line is a stable object: the block, the change, who made it,
the round, the throws shown by it, and the game after the block in the shape of
``rps show --json`` (``null`` once deleted).
"""

from __future__ import annotations

import json

from client_core.blocks import BlockRef
from client_core.keys import NO_NAMES, KeyNames, key_label
from rps_cli import render
from rps_client import changes
from rps_client.changes import Change
from rps_client.games import game_json
from rps_client.outcome import outcome_text, player_name
from rps_tp.game import CONCLUDED, Game, describe_settings, round_winner
from xo_core.text import game_label


def change_line(block: BlockRef, change: Change, names: KeyNames = NO_NAMES, you: str | None = None) -> str:
    """``block 14: game 'g1': round 1: alice rock, bob scissors: alice won the round; score: alice 1, bob 0``.

    Players are named as the key directory names them, or by their first characters,
    as a third person reads them; ``you`` (the reader's key) is said only in the
    snapshot's "next", where it suggests the reader's own command.
    """
    label = game_label(change.name)
    game = change.game
    player = player_name(change.player, None, names) if change.player is not None else ""
    match change.kind:
        case changes.DELETED:
            what = f"{label} deleted"
        case changes.CREATED:
            assert game is not None
            what = f"{label} created: {describe_settings(game.settings)}"
        case changes.SNAPSHOT:
            assert game is not None
            what = f"{label} as it stands: {render.state_text(game)}; {_standing(game, names, you)}"
        case changes.JOINED:
            host = game is not None and change.player == game.host
            seated = key_label(change.player, names) if change.player is not None else ""
            what = f"{label}: {seated} joined" + (" as host" if host else "")
        case changes.SET_UP:
            assert game is not None
            settings = describe_settings(game.settings)
            what = f"{label}: {player} set it up as {settings}; every player must be ready again"
        case changes.READY:
            what = f"{label}: {player} ready"
        case changes.STARTED:
            what = f"{label}: play starts, round 1"
        case changes.COMMITTED:
            what = f"{label}: {player} committed in round {change.round}"
        case changes.REVEALED:
            what = f"{label}: {player} revealed {change.throws[0] if change.throws else '?'} in round {change.round}"
        case changes.ROUND:
            assert game is not None and change.round is not None and change.throws is not None
            what = f"{label}: round {change.round}: {_round(game, change.round, change.throws, names)}"
        case _:
            assert game is not None
            what = f"{label} is over: {outcome_text(game, None, names)}"
    return render.say(f"block {block.block_num}: {what}")


def _round(game: Game, number: int, throws: tuple[str, ...], names: KeyNames) -> str:
    first, second = (player_name(player.key, None, names) for player in game.players)
    winner = round_winner((throws[0], throws[1]))
    result = "a tie" if winner is None else f"{(first, second)[winner]} won the round"
    return f"{first} {throws[0]}, {second} {throws[1]}: {result}; score: {render.score_text(game, None, names, number)}"


def _standing(game: Game, names: KeyNames, you: str | None) -> str:
    if game.state == CONCLUDED:
        return outcome_text(game, you, names) or ""
    return "next: " + render.next_text(game, you, names)


def waiting_line(block: BlockRef, name: str, hint: str = "") -> str:
    """``hint``: the games there are and the likely one (client_core.watching.suggestion)."""
    missing = f"block {block.block_num}: there is no {game_label(name)} yet{hint}"
    return render.say(f"{missing}; waiting for it to be created (Ctrl-C stops)")


def change_json(block: BlockRef, change: Change) -> str:
    """One line of ``--json``: ``{"block_num", "block_id", "change", "name", "player", "round", "throws", "game"}``."""
    return json.dumps(
        {
            "block_num": block.block_num,
            "block_id": block.block_id,
            "change": change.kind,
            "name": change.name,
            "player": change.player,
            "round": change.round,
            "throws": None if change.throws is None else list(change.throws),
            "game": None if change.game is None else game_json(change.game),
        }
    )
