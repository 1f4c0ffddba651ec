"""How rps players and a concluded game are told in words, shared by the ``rps`` commands and the page.

A player is ``you``, the key's name in the key directory, or the key's first
characters (:func:`client_core.keys.key_label`, escaped), never both.
"""

from __future__ import annotations

from client_core.keys import NO_NAMES, KeyNames, key_label
from rps_tp.game import BY_RESIGNATION, BY_TIMEOUT, CONCLUDED, DREW, WON, Game


def player_name(key: str, you: str | None = None, names: KeyNames = NO_NAMES) -> str:
    """A player in a sentence: ``you``, the key's name in the key directory, else its first characters."""
    if you is not None and key == you:
        return "you"
    return key_label(key, names)


def outcome_text(game: Game, you: str | None = None, names: KeyNames = NO_NAMES) -> str | None:
    """How a concluded game ended: ``alice won 2-1``, ``bob resigned: alice won``; ``None`` before that."""
    if game.state != CONCLUDED or game.results is None:
        return None
    players = [player_name(player.key, you, names) for player in game.players]
    outcomes = [result.outcome for result in game.results]
    scores = [result.final_score for result in game.results]
    if outcomes[0] == DREW:
        return f"a draw at {scores[0]}-{scores[1]} after round {game.round}"
    winner = outcomes.index(WON)
    loser = 1 - winner
    if game.conclusion_type == BY_RESIGNATION:
        return f"{players[loser]} resigned: {players[winner]} won"
    if game.conclusion_type == BY_TIMEOUT:
        return f"{players[loser]} timed out: {players[winner]} won"
    return f"{players[winner]} won {scores[winner]}-{scores[loser]}"
