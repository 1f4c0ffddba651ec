"""``rps watch [NAME]``: a game (or every rps game) as its ops commit, live, from any Sawtooth REST API.

As ``xo watch``: the games are read as of the chain's newest block, then
:class:`client_core.follow.Follower` delivers each later block's changes at the game's
address (the whole rps namespace without NAME), and :mod:`rps_cli.changes` tells what
happened. On a terminal, ``rps watch NAME`` redraws the game's card after each block
with the last changes under it; elsewhere it prints the card once, then one line per
change; ``--json`` writes one JSON object per line. ``rps watch NAME`` ends (exit 0)
once the game is over or deleted; Ctrl-C ends any watch (130, SIGTERM 143) without an
error line. A chain replaced under the watch (a ledger started afresh) is said in a
warning, and watching starts again from its newest block.
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
from rps_cli import feed, render
from rps_cli.changes import DELETED, Change, changes_between, is_over, snapshot
from rps_cli.games import decode_games, find_game, impossible_name
from rps_tp.family import NAMESPACE, game_address
from rps_tp.game import CONCLUDED, Game

CLEAR_SCREEN = "\x1b[H\x1b[2J"
RESTART_PAUSE = 1.0
"""Seconds between a chain found replaced and the fresh start: never a tight loop against a ledger in flux."""
RECENT_LINES = 6
"""Change lines kept under the redrawn card on a terminal."""


def watch(args: argparse.Namespace) -> int:
    """Follow one game until it ends, or every game until Ctrl-C."""
    name: str | None = args.name
    if name is not None and (problem := impossible_name(name)):
        raise InvalidInput(problem)
    names, you = session.key_names(args), session.own_public_key(args)
    if args.format == "json":
        screen: Screen = JsonLines()
    elif name is not None and sys.stdout.isatty():
        screen = Card(names, you)
    else:
        screen = TextLines(names, you)
    try:
        with sigterm_interrupts(), session.rest_client(args) as client:
            watcher = GameWatch(client, name, screen)
            while True:
                try:
                    return watcher.run()
                except ChainChanged as changed:
                    warn("rps", f"{changed.message}; starting again from its newest block")
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
        self.buckets: dict[str, list[Game]] = {}

    def run(self) -> int:
        """Show the games as of the newest block, then each change as it commits; 0 once a watched game ends."""
        start = self.client.head_block().ref
        self.buckets = self.read_games(start)
        games = sorted((game for bucket in self.buckets.values() for game in bucket), key=lambda game: game.name)
        if self.name is not None:
            game = find_game(games, self.name)
            self.screen.snapshot(start, [snapshot(self.name, game)], self.name)
            if game is not None and game.state == CONCLUDED:
                return 0
        else:
            self.screen.snapshot(start, [snapshot(game.name, game) for game in games], None)
        with Follower(
            self.client.base_url,
            [self.prefix],
            after=start,
            auth=self.client.auth,
            trace=self.client.trace,
            on_notice=lambda message: notice("rps", message),
        ) as follower:
            for block in follower:
                if self.apply(block):
                    return 0
        raise AssertionError("a follower never runs out of blocks")

    def read_games(self, start: BlockRef) -> dict[str, list[Game]]:
        if self.name is not None:
            data = self.client.get_state(self.prefix, head=start.block_id)
            entries = [] if data is None else [(self.prefix, data)]
        else:
            entries = list(self.client.list_state(NAMESPACE, head=start.block_id))
        return {address: self.decoded(address, data) for address, data in entries}

    def apply(self, block: BlockChanges) -> bool:
        """Show what ``block`` did to the watched games; True once the watched game has ended."""
        found: list[Change] = []
        for change in sorted(block.changes, key=lambda change: change.address):
            after = self.decoded(change.address, change.value) if change.type == "SET" else []
            found.extend(changes_between(self.buckets.pop(change.address, []), after))
            if after:
                self.buckets[change.address] = after
        ended = False
        if self.name is not None:
            found = [change for change in found if change.name == self.name]
            ended = bool(found) and is_over(found[-1])
            deleted = next((index for index, change in enumerate(found) if change.kind == DELETED), None)
            if deleted is not None:  # deleted (and perhaps created again in the same block): this game is gone
                found, ended = found[: deleted + 1], True
        if found:
            self.screen.changes(block.ref, found)
        return ended

    def decoded(self, address: str, data: bytes) -> list[Game]:
        games, problems = decode_games(address, data)
        for problem in problems:
            warn("rps", problem)
        return games


class Screen(Protocol):
    """Where a watch shows games: the snapshot as watching begins, then each block's changes."""

    def snapshot(self, block: BlockRef, games: list[Change], name: str | None) -> None: ...

    def changes(self, block: BlockRef, changes: list[Change]) -> None: ...


class JsonLines:
    """``--json``: one object per line (:func:`rps_cli.feed.change_json`), flushed at once for a reading script."""

    def snapshot(self, block: BlockRef, games: list[Change], name: str | None) -> None:
        self.changes(block, games)

    def changes(self, block: BlockRef, changes: list[Change]) -> None:
        for change in changes:
            print(feed.change_json(block, change), flush=True)


class TextLines:
    """Without a terminal: the card printed once (a lobby: one line per game), then one line per change."""

    def __init__(self, names: KeyNames, you: str | None) -> None:
        self.names = names
        self.you = you

    def snapshot(self, block: BlockRef, games: list[Change], name: str | None) -> None:
        if name is not None:
            game = games[0].game
            print(render.game_card(game, self.you, self.names) if game else feed.waiting_line(block, name), flush=True)
            return
        for change in games:
            print(feed.change_line(block, change, self.names, self.you))
        print(f"block {block.block_num}: watching every rps game for changes (Ctrl-C stops)", flush=True)

    def changes(self, block: BlockRef, changes: list[Change]) -> None:
        for change in changes:
            print(feed.change_line(block, change, self.names, self.you), flush=True)


class Card(TextLines):
    """On a terminal, one game: its card redrawn after every block, the last few changes under it."""

    def __init__(self, names: KeyNames, you: str | None, write: Callable[[str], object] | None = None) -> None:
        super().__init__(names, you)
        self.recent: list[str] = []
        self.write = write if write is not None else sys.stdout.write

    def snapshot(self, block: BlockRef, games: list[Change], name: str | None) -> None:
        assert name is not None
        self.recent = [] if games[0].game else [feed.waiting_line(block, name)]
        self.draw(games[0])

    def changes(self, block: BlockRef, changes: list[Change]) -> None:
        lines = [feed.change_line(block, change, self.names, self.you) for change in changes]
        self.recent = (self.recent + lines)[-RECENT_LINES:]
        self.draw(changes[-1])

    def draw(self, last: Change) -> None:
        card = render.game_card(last.game, self.you, self.names) + "\n\n" if last.game is not None else ""
        footer = "" if is_over(last) else "\nwatching; Ctrl-C stops"
        self.write(f"{CLEAR_SCREEN}{card}" + "\n".join(self.recent) + f"{footer}\n")
        sys.stdout.flush()
