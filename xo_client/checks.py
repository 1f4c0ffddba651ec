"""The checks made before an XO move is signed: the processor's own, on the game as it stands.

They are the processor's rules (``xo_tp.rules``, ``xo_tp.payload``), so a move the
processor would reject is never signed and sent, and the player reads the very
reason the validator would have given.
"""

from __future__ import annotations

from client_core.errors import InvalidInput
from client_core.keys import NO_NAMES, KeyNames
from xo_client.games import Game, impossible_name
from xo_client.outcome import state_words
from xo_core.text import game_label, printable, quoted, shell_word, short_key
from xo_tp import rules


def check_name(name: str, *, validate: bool) -> None:
    """Refuse a name no payload can carry (a ``,``) and, when ``validate``, one the specification forbids.

    Forbidden names are sent with ``--no-validate``, so that the validator can be seen rejecting them.
    """
    problem = impossible_name(name) if validate or "," in name else None
    if problem:
        raise InvalidInput(problem)



def refuse_create(name: str, game: Game | None, names: KeyNames = NO_NAMES) -> str | None:
    """Why ``name`` cannot be created, or None: the processor refuses a name already in use."""
    if game is not None:
        return f"game {quoted(name)} already exists: {state_words(game, names)}"
    return None


def refuse_delete(name: str, game: Game | None) -> str | None:
    """Why ``name`` cannot be deleted, or None: the processor refuses to delete what does not exist."""
    if game is None:
        return f"there is no game named {quoted(name)}"
    return None


def refuse_take(
    name: str,
    game: Game | None,
    player_key: str,
    space: int,
    *,
    names: KeyNames | None = None,
    both_seats: bool = False,
) -> str | None:
    """Why ``player_key`` cannot (or, without ``both_seats``, should not) take ``space`` in ``game``; None if it may.

    The rules' own refusal comes first, worded with the key's name when the key
    directory knows it ("it is bob's turn"). A legal move can still be a slip: the
    key that holds player 1's seat taking player 2's locks the game to that one key
    for good, since a seat is never given up. That is refused unless ``both_seats``.
    """
    if game is None:
        return f"there is no game named {quoted(name)} (create it with 'xo create {shell_word(name)}')"
    try:
        rules.take(rules.Game(game.name, game.board, game.state, game.player1, game.player2), space, player_key)
    except rules.NotYourTurn as refusal:
        seated = names.name(refusal.seat) if names is not None else None
        if seated is None:
            return str(refusal)
        return f"{game_label(name)}: it is {printable(seated)}'s turn (player {refusal.number}, " \
            f"{printable(short_key(refusal.seat))})"
    except rules.IllegalMove as refusal:
        return str(refusal)
    if not both_seats and game.state == rules.P2_NEXT and not game.player2 and game.player1 == player_key:
        return (
            f"{game_label(name)}: your key already holds player 1's seat (X), and this move would give it "
            "player 2's seat (O) too, so that nobody else could ever join; to play both sides on purpose, "
            "add --both-seats"
        )
    return None
