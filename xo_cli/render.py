"""How games look: a table and a drawn board for people, JSON for scripts.

Pure text in, text out. For people, keys are shortened and empty spaces show
the number (and, through the row and column labels, the grid name) that
``xo take`` accepts. Keys are shortened by the processor's own ``short_key``, so
the key in a refusal ("it is player 2's turn (03b1c2...)") reads exactly as in
``xo show``. JSON always carries full keys and the raw board.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from xo_cli.games import EMPTY, Game
from xo_cli.notation import COLUMNS, ROWS
from xo_tp.rules import short_key

TABLE_HEADINGS = ("GAME", "PLAYER 1", "PLAYER 2", "BOARD", "STATE")
OUTCOMES = {"P1-WIN": "X (player 1) won", "P2-WIN": "O (player 2) won", "TIE": "a tie: nobody won"}


def games_json(games: Sequence[Game]) -> str:
    """``xo list --json``: one array, so a script parses the whole listing at once."""
    return json.dumps([game.as_json() for game in games], indent=2)


def game_json(game: Game) -> str:
    """``xo show --json``: the same object as one element of ``xo list --json``."""
    return json.dumps(game.as_json(), indent=2)


def games_table(games: Sequence[Game]) -> str:
    """The ``xo list`` table: one row per game, columns as wide as their widest cell."""
    if not games:
        return "No XO games yet."
    rows = [TABLE_HEADINGS] + [
        (game.name, seat_cell(game.player1), seat_cell(game.player2), game.board, game.state) for game in games
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(TABLE_HEADINGS))]
    lines = ("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(line.rstrip() for line in lines)


def seat_cell(key: str) -> str:
    """A player's table cell: the shortened key, blank while the seat is open."""
    return short_key(key) if key else ""


def game_card(game: Game, you: str | None = None) -> str:
    """The ``xo show`` view: who plays, whose turn it is, and the board."""
    lines = [
        f"GAME     : {game.name}",
        f"STATE    : {game.state} ({turn_text(game, you)})",
        f"PLAYER 1 : {player_text(game.player1, 'X', you)}",
        f"PLAYER 2 : {player_text(game.player2, 'O', you)}",
        f"ADDRESS  : {game.address}",
        "",
        *board_lines(game.board),
    ]
    return "\n".join(lines)


def turn_text(game: Game, you: str | None) -> str:
    """Who moves next, said to the reader: "your turn", an open seat anyone may take, or another key."""
    if game.next_player is None:
        return OUTCOMES.get(game.state, "game over")
    number = game.next_player
    mark = "X" if number == 1 else "O"
    key = game.player_key(number)
    if not key:
        return f"{mark} to play: player {number}'s seat is open, the next to take a space joins as player {number}"
    if you is not None and key == you:
        return f"{mark} to play: your turn"
    return f"{mark} to play: player {number}, {short_key(key)}"


def player_text(key: str, mark: str, you: str | None) -> str:
    """One seat of the PLAYER lines: its key and mark, or an open seat, with "(you)" on the reader's own."""
    if not key:
        return f"(open seat, plays {mark})"
    suffix = " (you)" if you is not None and key == you else ""
    return f"{short_key(key)} plays {mark}{suffix}"


def board_lines(board: str) -> list[str]:
    """The board drawn with column letters and row numbers; empty spaces show their number."""
    cells = [mark if mark != EMPTY else str(index + 1) for index, mark in enumerate(board)]
    lines = ["      " + "   ".join(COLUMNS)]
    for row, label in enumerate(ROWS):
        lines.append(f"  {label}   " + " | ".join(cells[row * 3 : row * 3 + 3]))
        if row < len(ROWS) - 1:
            lines.append("     ---+---+---")
    return lines
