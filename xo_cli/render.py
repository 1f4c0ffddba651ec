"""How games look: a table and a drawn board for people, JSON for scripts.

Pure text in, text out. For people, every name a player chose goes through
:mod:`xo_core.text` (escaped; in the table also cut and padded by display width,
so a hostile or a CJK name cannot break a row), keys are shortened, and a key
whose ``*.pub`` is in the key directory is shown with its name:
``alice (0208fb...)`` (:func:`client_core.keys.key_label`, cut as the processor's
refusals cut keys, so a key in a refusal reads exactly as in ``xo show``). JSON
always carries the exact names, full keys, the raw board and the spec's state (``P1-NEXT``); people read
the board in grid notation and the state in words (``alice (X) to move``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from client_core.keys import NO_NAMES, KeyNames, key_label
from client_core.tables import table
from xo_client.games import Game
from xo_client.notation import board_in_grid, board_lines
from xo_client.outcome import state_words, who
from xo_core.text import clip, printable
from xo_tp import rules

TABLE_HEADINGS = ("GAME", "X", "O", "BOARD", "STATE")
GAME_WIDTH = 24
"""Columns a game name may take in ``xo list``; longer names are cut there (``xo show`` shows them whole)."""
KEY_NAME_WIDTH = 12
"""Columns a key's name may take in ``xo list``."""
OUTCOMES = {rules.P1_WIN: "X (player 1) won", rules.P2_WIN: "O (player 2) won", rules.TIE: "a tie: nobody won"}


def games_json(games: Sequence[Game]) -> str:
    """``xo list --json``: one array, so a script parses the whole listing at once."""
    return json.dumps([game.as_json() for game in games], indent=2)


def game_json(game: Game) -> str:
    """``xo show --json``: the same object as one element of ``xo list --json``."""
    return json.dumps(game.as_json(), indent=2)


def games_table(games: Sequence[Game], names: KeyNames = NO_NAMES) -> str:
    """The ``xo list`` table: one row per game, columns as wide as their widest cell (display width)."""
    if not games:
        return "No XO games yet."
    rows = [TABLE_HEADINGS] + [
        (
            clip(game.name, GAME_WIDTH),
            seat_cell(game.player1, names),
            seat_cell(game.player2, names),
            board_in_grid(game.board),
            state_words(game, names, KEY_NAME_WIDTH),
        )
        for game in games
    ]
    return table(rows)


def seat_cell(key: str, names: KeyNames = NO_NAMES) -> str:
    """A player's table cell: the key's name (else its first characters), blank while the seat is open."""
    return who(key, names, KEY_NAME_WIDTH) if key else ""


def game_card(game: Game, you: str | None = None, names: KeyNames = NO_NAMES) -> str:
    """The ``xo show`` view: who plays, whose turn it is, and the board."""
    lines = [
        f"GAME     : {printable(game.name)}",
        f"STATE    : {turn_text(game, you, names)}",
        f"PLAYER 1 : {player_text(game.player1, rules.PLAYER_1_MARK, you, names)}",
        f"PLAYER 2 : {player_text(game.player2, rules.PLAYER_2_MARK, you, names)}",
        f"ADDRESS  : {printable(game.address)}",
        "",
        *board_lines(game.board),
    ]
    return "\n".join(lines)


def turn_text(game: Game, you: str | None, names: KeyNames = NO_NAMES) -> str:
    """Who moves next, said to the reader: "your turn", an open seat anyone may take, or another key."""
    if game.next_player is None:
        return OUTCOMES.get(game.state, "game over")
    number = game.next_player
    mark = rules.PLAYER_1_MARK if number == 1 else rules.PLAYER_2_MARK
    key = game.player_key(number)
    if not key:
        return f"{mark} to play: player {number}'s seat is open, the next to take a space joins as player {number}"
    if you is not None and key == you:
        return f"{mark} to play: your turn"
    return f"{mark} to play: player {number}, {key_label(key, names)}"


def player_text(key: str, mark: str, you: str | None, names: KeyNames = NO_NAMES) -> str:
    """One seat of the PLAYER lines: its key and mark, or an open seat, with "(you)" on the reader's own."""
    if not key:
        return f"(open seat, plays {mark})"
    suffix = " (you)" if you is not None and key == you else ""
    return f"{key_label(key, names)} plays {mark}{suffix}"
