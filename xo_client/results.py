"""The finished XO games at an address, as the ratings count them (:mod:`client_core.ratings`). Pure, no I/O.

A game counts once it is won or tied, by its seats: player 1 (X) is the first player,
``P1-WIN`` a win for them, ``P2-WIN`` a loss, ``TIE`` a draw. A game whose two seats
hold one key (someone playing both sides, as the rules allow) has no opponent and counts
for nothing. Each finished game is told from the others at its address by its whole
entry, so it counts once however often the address is rewritten.
"""

from __future__ import annotations

import hashlib

from client_core.ratings import DRAW, LOSS, WIN, Finished, Outcome
from client_core.results_book import Family
from xo_client.games import decode_games
from xo_tp import rules
from xo_tp.family import NAMESPACE

OUTCOMES = {rules.P1_WIN: WIN, rules.P2_WIN: LOSS, rules.TIE: DRAW}


def finished_games(address: str, data: bytes) -> tuple[list[Finished], list[str]]:
    """The won and tied games stored at ``address`` (``data``: its bucket), and a note per malformed entry."""
    games, problems = decode_games(address, data)
    found = []
    for game in games:
        outcome = OUTCOMES.get(game.state)
        if outcome is None or not game.player1 or not game.player2 or game.player1 == game.player2:
            continue
        entry = ",".join((game.name, game.board, game.state, game.player1, game.player2))
        ident = hashlib.sha256(entry.encode("utf-8")).hexdigest()[:32]
        found.append(Finished(ident, game.name, (Outcome(game.player1, game.player2, outcome),)))
    return found, problems


FAMILY = Family("xo", NAMESPACE, finished_games)
"""What the ratings read of this family: its name, the prefix of its records, and the reader above."""
