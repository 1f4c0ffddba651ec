"""How an XO game stands or ended, in words, shared by the ``xo`` commands, ``xo bot`` and the page.

Who won (``X won (player 1: alice (026c32...))``), how it stands (``alice (X) to move``: the spec's ``P1-NEXT``
is for ``--json``), and which mark a move's signer plays: the first to take a space plays X, so a player who ran
``xo take`` cannot tell from the move alone whether the other side (a bot, say) took X first.

Keys are shown with their names from the key directory (:func:`client_core.keys.key_label`).
"""

from __future__ import annotations

from client_core.keys import NO_NAMES, KeyNames, key_label
from xo_client.games import Game
from xo_core.text import clip, printable, short_key
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


def mover_text(game: Game, key: str) -> str | None:
    """After a move by ``key`` in a game that goes on: ``you play O``; None when ``key`` holds no seat or it ended."""
    if game.state not in (rules.P1_NEXT, rules.P2_NEXT):
        return None
    if key == game.player1 and key == game.player2:
        return f"you play both {rules.PLAYER_1_MARK} and {rules.PLAYER_2_MARK}"
    if key == game.player1:
        return f"you play {rules.PLAYER_1_MARK}"
    if key == game.player2:
        return f"you play {rules.PLAYER_2_MARK}"
    return None


def who(key: str, names: KeyNames = NO_NAMES, name_width: int | None = None) -> str:
    """A player as a sentence names them: the key's name where the key directory has it, else its first characters.

    Escaped either way; ``name_width`` clips a name for a table column.
    """
    name = names.name(key)
    if name is None:
        return printable(short_key(key))
    return printable(name) if name_width is None else clip(name, name_width)


def state_words(game: Game, names: KeyNames = NO_NAMES, name_width: int | None = None) -> str:
    """How the game stands, in words: ``alice (X) to move``, ``bob (O) won``, ``a tie``, ``X to move (open seat)``.

    The spec's states (``P1-NEXT``, ``P2-WIN``) are the wire's words, kept for ``--json``.
    """
    seats = {
        rules.P1_NEXT: (game.player1, rules.PLAYER_1_MARK, "to move"),
        rules.P2_NEXT: (game.player2, rules.PLAYER_2_MARK, "to move"),
        rules.P1_WIN: (game.player1, rules.PLAYER_1_MARK, "won"),
        rules.P2_WIN: (game.player2, rules.PLAYER_2_MARK, "won"),
    }
    if game.state == rules.TIE:
        return "a tie"
    if game.state not in seats:
        return f"in a state no rule writes ({printable(game.state)})"
    key, mark, verb = seats[game.state]
    if not key:
        return f"{mark} {verb} (open seat)"
    return f"{who(key, names, name_width)} ({mark}) {verb}"
