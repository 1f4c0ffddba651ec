"""``xo watch [NAME]``: a game (or every game) as its moves commit, live, from any Sawtooth REST API.

The machinery is :mod:`client_core.watching` (read as of the newest block, follow,
redraw on a terminal, one line or JSON object per change elsewhere, exit 0 once the
named game ends, start again on a replaced chain); this module is what it needs of
XO: the addresses, :class:`xo_client.game_book.GameBook`, the lines of
:mod:`xo_cli.feed` and the board of :func:`xo_cli.render.game_card`.
"""

from __future__ import annotations

import argparse
from functools import partial

from client_core import watching
from client_core.blocks import BlockRef
from client_core.caller import Caller
from client_core.keys import KeyNames
from xo_cli import feed, render
from xo_client.changes import DELETED, Change
from xo_client.game_book import GameBook
from xo_client.games import Game, impossible_name
from xo_tp.family import NAMESPACE, game_address


def watch(args: argparse.Namespace) -> int:
    """Follow one game until it ends, or every game until Ctrl-C."""
    return watching.watch(Caller.of(args), XO_WATCH, args.name, args.format)


def has_ended(change: Change) -> bool:
    """Whether the game is over (won, tied) or gone after ``change``."""
    return change.kind == DELETED or change.game is None or change.game.next_player is None


def end_of_game(changes: list[Change]) -> int | None:
    """The first change after which the game is over or gone: each change carries the game after that very move."""
    return next((index for index, change in enumerate(changes) if has_ended(change)), None)


def change_line(block: BlockRef, change: Change, names: KeyNames, you: str | None) -> str:
    """:func:`xo_cli.feed.change_line`: XO's lines name the reader as anyone else."""
    return feed.change_line(block, change, names)


XO_WATCH = watching.WatchedFamily[Game, Change](
    tool="xo",
    namespace=NAMESPACE,
    game_address=game_address,
    impossible_name=impossible_name,
    book=GameBook,
    snapshot=feed.snapshot,
    is_over=has_ended,
    end_of_game=end_of_game,
    change_line=change_line,
    change_json=feed.change_json,
    waiting_line=feed.waiting_line,
    card=render.game_card,
    lobby_noun="every XO game",
    recent_lines=5,
)

Board = partial(watching.Card, XO_WATCH)
"""On a terminal, one game: the board redrawn after every block, the last few moves under it."""
