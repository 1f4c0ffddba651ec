"""``xo watch [NAME]``: a game (or every game) as its moves commit, live, from any Sawtooth REST API.

The game is read as of the chain's newest block, then :class:`client_core.follow.Follower`
delivers each later block's changes at the game's address (every XO address for the
lobby), and :mod:`xo_cli.game_changes` tells what happened. On a terminal, ``xo watch
NAME`` redraws the board after each move; elsewhere it draws the board once and then
writes one line per change; ``--json`` writes one JSON object per line. ``xo watch
NAME`` ends (exit 0) once the game is over or deleted; Ctrl-C ends any watch (130,
SIGTERM 143) without an error line, as it is how a person stops watching.

If the chain the watch stood on is replaced (a fork resolved the other way, a devnet
started afresh), it says so in a warning and starts again from the chain's newest
block: the game is read afresh, so nothing stale is shown.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Protocol

from client_core import session
from client_core.blocks import BlockChanges, BlockRef, ChainChanged
from client_core.errors import INTERRUPTED, TERMINATED, InvalidInput, TerminateRequest
from client_core.follow import Follower
from client_core.keys import KeyNames
from client_core.rest import RestClient
from client_core.runner import notice, sigterm_interrupts, warn
from xo_cli import feed, render
from xo_cli.game_book import GameBook
from xo_cli.game_changes import DELETE, GameChange
from xo_cli.games import find_game, impossible_name
from xo_tp.family import NAMESPACE, game_address

CLEAR_SCREEN = "\x1b[H\x1b[2J"
RESTART_PAUSE = 1.0
"""Seconds between a chain found replaced and the fresh start: never a tight loop against a ledger in flux."""
RECENT_LINES = 5
"""Change lines kept under the redrawn board on a terminal."""


def watch(args: argparse.Namespace) -> int:
    """Follow one game until it ends, or every game until Ctrl-C."""
    name: str | None = args.name
    if name is not None and (problem := impossible_name(name)):
        raise InvalidInput(problem)
    names = session.key_names(args)
    if args.format == "json":
        screen: Screen = JsonLines()
    elif name is not None and sys.stdout.isatty():
        screen = Board(names, session.own_public_key(args))
    else:
        screen = TextLines(names, session.own_public_key(args))
    try:
        with sigterm_interrupts(), session.rest_client(args) as client:
            watcher = GameWatch(client, name, screen)
            while True:
                try:
                    return watcher.run()
                except ChainChanged as changed:
                    warn("xo", f"{changed.message}; starting again from its newest block")
                    time.sleep(RESTART_PAUSE)
    except KeyboardInterrupt as interrupt:
        return TERMINATED if isinstance(interrupt, TerminateRequest) else INTERRUPTED


class GameWatch:
    """The games at the watched addresses, kept up to date block by block, and shown on a :class:`Screen`."""

    def __init__(self, client: RestClient, name: str | None, screen: Screen) -> None:
        self.client = client
        self.name = name
        self.screen = screen
        self.prefix = game_address(name) if name is not None else NAMESPACE
        self.book = GameBook(lambda problem: warn("xo", problem))

    def run(self) -> int:
        """Show the games as of the newest block, then each change as it commits; 0 once a watched game ends."""
        start = self.client.head_block().ref
        self.book.load(self.read_games(start))
        games = self.book.games()
        if self.name is not None:
            game = find_game(games, self.name)
            self.screen.snapshot(start, [feed.snapshot(self.name, game)], self.name)
            if game is not None and game.next_player is None:
                return 0
        else:
            self.screen.snapshot(start, [feed.snapshot(game.name, game) for game in games], None)
        with Follower(
            self.client.base_url,
            [self.prefix],
            after=start,
            auth=self.client.auth,
            trace=self.client.trace,
            on_notice=lambda message: notice("xo", message),
        ) as follower:
            for block in follower:
                if self.apply(block):
                    return 0
        raise AssertionError("a follower never runs out of blocks")

    def read_games(self, start: BlockRef) -> list[tuple[str, bytes]]:
        """The entries at the watched addresses as of ``start``."""
        if self.name is not None:
            data = self.client.get_state(self.prefix, head=start.block_id)
            return [] if data is None else [(self.prefix, data)]
        return list(self.client.list_state(NAMESPACE, head=start.block_id))

    def apply(self, block: BlockChanges) -> bool:
        """Show what ``block`` did to the watched games; True once the watched game has ended."""
        changes = self.book.apply(block)
        if self.name is not None:
            changes = [change for change in changes if change.name == self.name]
        ended = next((index for index, change in enumerate(changes) if has_ended(change)), None)
        if self.name is not None and ended is not None:
            changes = changes[: ended + 1]
        if changes:
            self.screen.changes(block.ref, changes)
        return self.name is not None and ended is not None


def has_ended(change: GameChange) -> bool:
    """Whether the game is over (won, tied) or gone after ``change``."""
    return change.action == DELETE or change.game is None or change.game.next_player is None


class Screen(Protocol):
    """Where a watch shows games: the snapshot as watching begins, then each block's changes."""

    def snapshot(self, block: BlockRef, games: list[GameChange], name: str | None) -> None: ...

    def changes(self, block: BlockRef, changes: list[GameChange]) -> None: ...


class JsonLines:
    """``--json``: one object per line (:func:`xo_cli.feed.change_json`), flushed at once for a reading script."""

    def snapshot(self, block: BlockRef, games: list[GameChange], name: str | None) -> None:
        self.changes(block, games)

    def changes(self, block: BlockRef, changes: list[GameChange]) -> None:
        for change in changes:
            print(feed.change_json(block, change), flush=True)


class TextLines:
    """Without a terminal: the board drawn once (a lobby: one line per game), then one line per change."""

    def __init__(self, names: KeyNames, you: str | None) -> None:
        self.names = names
        self.you = you

    def snapshot(self, block: BlockRef, games: list[GameChange], name: str | None) -> None:
        if name is not None:
            game = games[0].game
            print(render.game_card(game, self.you, self.names) if game else feed.waiting_line(block, name), flush=True)
            return
        for change in games:
            print(feed.change_line(block, change, self.names))
        print(f"block {block.block_num}: watching every XO game for changes (Ctrl-C stops)", flush=True)

    def changes(self, block: BlockRef, changes: list[GameChange]) -> None:
        for change in changes:
            print(feed.change_line(block, change, self.names), flush=True)


class Board(TextLines):
    """On a terminal, one game: the board redrawn after every block, the last few changes under it."""

    def __init__(self, names: KeyNames, you: str | None, write: Callable[[str], object] | None = None) -> None:
        super().__init__(names, you)
        self.recent: list[str] = []
        self.write = write if write is not None else sys.stdout.write

    def snapshot(self, block: BlockRef, games: list[GameChange], name: str | None) -> None:
        assert name is not None
        self.recent = [] if games[0].game else [feed.waiting_line(block, name)]
        self.draw(games[0])

    def changes(self, block: BlockRef, changes: list[GameChange]) -> None:
        lines = [feed.change_line(block, change, self.names) for change in changes]
        self.recent = (self.recent + lines)[-RECENT_LINES:]
        self.draw(changes[-1])

    def draw(self, last: GameChange) -> None:
        card = render.game_card(last.game, self.you, self.names) + "\n\n" if last.game is not None else ""
        footer = "" if has_ended(last) else "\nwatching; Ctrl-C stops"
        self.write(f"{CLEAR_SCREEN}{card}" + "\n".join(self.recent) + f"{footer}\n")
        sys.stdout.flush()
