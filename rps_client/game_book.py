"""The rps games at some state addresses, as of one block, kept current block by block.

``rps watch`` and the web page's rps lobby both keep a
:class:`client_core.game_book.GameBook` of rps games; this one decodes buckets as
``rps list`` does and tells what happened with :func:`rps_client.changes.changes_between`
(joined, ready, committed, revealed, a round won, the end).
"""

from __future__ import annotations

from collections.abc import Callable

from client_core import game_book
from rps_client.changes import Change, changes_between
from rps_client.games import decode_games
from rps_tp.game import Game


class GameBook(game_book.GameBook[Game, Change]):
    """rps games by address; :meth:`apply` says what each block did to them."""

    def __init__(self, on_problem: Callable[[str], None]) -> None:
        super().__init__(decode_games, changes_between, on_problem)
