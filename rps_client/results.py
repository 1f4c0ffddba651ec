"""The concluded rps games at an address, as the ratings count them (:mod:`client_core.ratings`). Pure, no I/O.

A game counts once it is ``CONCLUDED``, by its results: the host (``players[0]``) is the
first player; ``won`` is a win, ``drew`` a draw, and ``lost``, ``resigned`` and
``timed-out`` are losses. Each concluded game is told from the others at its address by
its whole record (canonical CBOR), so it counts once however often the address is rewritten.
"""

from __future__ import annotations

import hashlib

from client_core.ratings import DRAW, LOSS, WIN, Finished, Outcome
from client_core.results_book import Family
from rps_client.games import decode_games
from rps_tp.family import NAMESPACE
from rps_tp.game import CONCLUDED, DREW, WON
from rps_tp.state import encode_game


def finished_games(address: str, data: bytes) -> tuple[list[Finished], list[str]]:
    """The concluded games stored at ``address`` (``data``: its bucket), and a note if it is not an rps bucket."""
    games, problems = decode_games(address, data)
    found = []
    for game in games:
        if game.state != CONCLUDED or game.results is None or len(game.players) != 2:
            continue
        first, second = game.players
        ended = game.results[0].outcome
        outcome = WIN if ended == WON else DRAW if ended == DREW else LOSS
        ident = hashlib.sha256(encode_game(game)).hexdigest()[:32]
        found.append(Finished(ident, game.name, (Outcome(first.key, second.key, outcome),)))
    return found, problems


FAMILY = Family("rps", NAMESPACE, finished_games)
"""What the ratings read of this family: its name, the prefix of its records, and the reader above."""
