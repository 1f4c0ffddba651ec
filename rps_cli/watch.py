"""``rps watch [NAME]``: a game (or every rps game) as its ops commit, live, from any Sawtooth REST API.

The machinery is :mod:`client_core.watching`, as for ``xo watch`` (read as of the
newest block, follow, redraw on a terminal, one line or JSON object per change
elsewhere, exit 0 once the named game ends, start again on a replaced chain); this
module is what it needs of rps: the addresses, :class:`rps_client.game_book.GameBook`,
the lines of :mod:`rps_cli.feed` and the card of :func:`rps_cli.render.game_card`.
"""

from __future__ import annotations

import argparse

from client_core import watching
from client_core.caller import Caller
from rps_cli import feed, render
from rps_client.changes import DELETED, Change, is_over, snapshot
from rps_client.game_book import GameBook
from rps_client.games import impossible_name
from rps_tp.family import NAMESPACE, game_address
from rps_tp.game import Game


def watch(args: argparse.Namespace) -> int:
    """Follow one game until it ends, or every game until Ctrl-C."""
    return watching.watch(Caller.of(args), RPS_WATCH, args.name, args.format)


def end_of_game(changes: list[Change]) -> int | None:
    """Where the watch of one game ends in a block's changes: at its deletion, else at the last if it is over.

    Every change of a block carries the game after the whole block, so only the last
    says whether the game is over; a deletion ends the watch even if the block then
    created the game again: this game is gone.
    """
    deleted = next((index for index, change in enumerate(changes) if change.kind == DELETED), None)
    if deleted is not None:
        return deleted
    return len(changes) - 1 if changes and is_over(changes[-1]) else None


RPS_WATCH = watching.WatchedFamily[Game, Change](
    tool="rps",
    namespace=NAMESPACE,
    game_address=game_address,
    impossible_name=impossible_name,
    book=GameBook,
    snapshot=snapshot,
    is_over=is_over,
    end_of_game=end_of_game,
    change_line=feed.change_line,
    change_json=feed.change_json,
    waiting_line=feed.waiting_line,
    card=render.game_card,
    lobby_noun="every rps game",
    recent_lines=6,
)
