"""How a finished XO game ended, in words: one sentence shared by the ``xo`` commands, ``xo bot`` and the page.

Keys are shown with their names from the key directory (:func:`client_core.keys.key_label`).
"""

from __future__ import annotations

from client_core.keys import NO_NAMES, KeyNames, key_label
from xo_client.games import Game
from xo_tp import rules


def outcome_text(game: Game, names: KeyNames = NO_NAMES) -> str | None:
    """How a finished game ended, naming the winner: ``X won (player 1: alice (026c32...))``; None while it goes on."""
    if game.state == rules.P1_WIN:
        return f"{rules.PLAYER_1_MARK} won (player 1: {key_label(game.player1, names)})"
    if game.state == rules.P2_WIN:
        return f"{rules.PLAYER_2_MARK} won (player 2: {key_label(game.player2, names)})"
    if game.state == rules.TIE:
        return "a tie (the board is full, nobody won)"
    return None
