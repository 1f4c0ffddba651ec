"""The XO games at some state addresses, as of one block, kept current block by block.

Every command that follows XO games live (``xo watch``, ``xo play``, ``xo bot``, the
web page's lobby) keeps a :class:`client_core.game_book.GameBook`; this one decodes
entries as ``xo list`` does and tells moves with :mod:`xo_client.changes`.
"""

from __future__ import annotations

from collections.abc import Callable

from client_core import game_book
from xo_client.changes import Change, changes_between
from xo_client.games import Game, decode_games


class GameBook(game_book.GameBook[Game, Change]):
    """XO games by address; :meth:`apply` says what each block did to them (created, spaces taken, deleted)."""

    def __init__(self, on_problem: Callable[[str], None]) -> None:
        super().__init__(decode_games, changes_between, on_problem)
