"""``watch [NAME]`` for any family: a game (or every game) as its changes commit, live, from any Sawtooth REST API.

The games are read as of the chain's newest block, then
:class:`client_core.follow.Follower` delivers each later block's changes at the game's
address (the family's whole namespace for the lobby), and the family's
:class:`client_core.game_book.GameBook` tells what happened. On a terminal, ``watch
NAME`` redraws the game's card after each block with the last changes under it;
elsewhere it prints the card once and then one line per change; ``--json`` writes one
JSON object per line. ``watch NAME`` before the game exists says so on its first line,
naming the games there are and the likely one (``did you mean 'game1'?``), as a
mistyped command is answered, then waits: a typo must not look like a hang. ``watch
NAME`` ends (exit 0) once the game is over or deleted; Ctrl-C ends any watch (130,
SIGTERM 143) without an error line, as it is how a person stops watching. A chain
replaced under the watch (a fork resolved the other way, a ledger started afresh) is
said in a warning, and watching starts again from its newest block: the games are read
afresh, so nothing stale is shown.

What differs between families (their addresses, how a game is told, drawn and ended)
is a :class:`WatchedFamily` each family's ``watch`` module fills in; this module knows
no game.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar

from client_core.blocks import BlockChanges, BlockRef, ChainChanged
from client_core.caller import Caller
from client_core.errors import INTERRUPTED, TERMINATED, InvalidInput, TerminateRequest
from client_core.follow import Follower
from client_core.game_book import GameBook, Named
from client_core.keys import KeyNames
from client_core.rest import RestClient
from client_core.runner import notice, sigterm_interrupts, warn
from xo_core.text import quoted

CLEAR_SCREEN = "\x1b[H\x1b[2J"
RESTART_PAUSE = 1.0
"""Seconds between a chain found replaced and the fresh start: never a tight loop against a ledger in flux."""
ENTRIES_READ_FOR_NAMES: Final = 1000
"""State entries read, at most, to name the games there are when the watched one does not exist."""
NAMES_SHOWN: Final = 8
NAME_CHARACTERS_SHOWN: Final = 40
SUGGESTION_CUTOFF: Final = 0.5
"""difflib's similarity a name must reach to be suggested: ``g1`` for ``game1`` is 0.57."""


class Change(Protocol):
    """What the watch reads of a family's change: which game, and the game after it (None once deleted)."""

    @property
    def name(self) -> str: ...
    @property
    def game(self) -> Any: ...


GameT = TypeVar("GameT", bound=Named)
ChangeT = TypeVar("ChangeT", bound=Change)


@dataclass(frozen=True)
class WatchedFamily(Generic[GameT, ChangeT]):
    """What a family's ``watch`` brings: where its games live, how it tells and draws them, and when one ends."""

    tool: str
    """The command's name, that starts its warnings and notices (``xo``)."""
    namespace: str
    """The address prefix of every game: the lobby follows all of it."""
    game_address: Callable[[str], str]
    impossible_name: Callable[[str], str | None]
    """Why no game can be called this name, if so: refused before any request."""
    book: Callable[[Callable[[str], None]], GameBook[GameT, ChangeT]]
    """A fresh book of the family's games, that reports entries it cannot read through the function given."""
    snapshot: Callable[[str, GameT | None], ChangeT]
    """The change that shows a game as it stands when watching begins (None: not created yet)."""
    is_over: Callable[[ChangeT], bool]
    """Whether the game is over or gone after this change (a snapshot is asked only when it shows a game)."""
    end_of_game: Callable[[list[ChangeT]], int | None]
    """Of one game's changes in a block: the index of the one after which the watch ends, if any.

    A family's own rule, as its changes carry different games: the game after that one
    change, or the game after the whole block.
    """
    change_line: Callable[[BlockRef, ChangeT, KeyNames, str | None], str]
    """A change for people (``block 14: game 'g1': ...``); the last argument is the reader's key, if known."""
    change_json: Callable[[BlockRef, ChangeT], str]
    waiting_line: Callable[[BlockRef, str, str], str]
    """What is said while the named game does not exist yet; the last argument (:func:`suggestion`) goes after the
    first clause (``there is no game 'g1' yet``)."""
    card: Callable[[GameT, str | None, KeyNames], str]
    """One game drawn in full, for the reader (``you``) with the key directory's names."""
    lobby_noun: str
    """What the lobby watches, as said on its first line (``every XO game``)."""
    recent_lines: int
    """Change lines kept under the redrawn card on a terminal."""


def watch(caller: Caller, family: WatchedFamily[GameT, ChangeT], name: str | None, output: str) -> int:
    """Follow the game ``name`` until it ends, or every game (None) until Ctrl-C; ``output``: ``json`` or ``table``."""
    if name is not None and (problem := family.impossible_name(name)):
        raise InvalidInput(problem)
    names = caller.who.key_names()
    if output == "json":
        screen: Screen[ChangeT] = JsonLines(family)
    elif name is not None and sys.stdout.isatty():
        screen = Card(family, names, caller.who.own_public_key())
    else:
        screen = TextLines(family, names, caller.who.own_public_key())
    try:
        with sigterm_interrupts(), caller.where.rest_client() as client:
            watcher = GameWatch(family, client, name, screen)
            while True:
                try:
                    return watcher.run()
                except ChainChanged as changed:
                    warn(family.tool, f"{changed.message}; starting again from its newest block")
                    time.sleep(RESTART_PAUSE)
    except KeyboardInterrupt as interrupt:
        return TERMINATED if isinstance(interrupt, TerminateRequest) else INTERRUPTED


class GameWatch(Generic[GameT, ChangeT]):
    """The games at the watched addresses, kept up to date block by block, and shown on a :class:`Screen`."""

    def __init__(
        self, family: WatchedFamily[GameT, ChangeT], client: RestClient, name: str | None, screen: Screen[ChangeT]
    ) -> None:
        self.family = family
        self.client = client
        self.name = name
        self.screen = screen
        self.prefix = family.game_address(name) if name is not None else family.namespace
        self.book = family.book(lambda problem: warn(family.tool, problem))

    def run(self) -> int:
        """Show the games as of the newest block, then each change as it commits; 0 once a watched game ends."""
        family, start = self.family, self.client.head_block().ref
        self.book.load(self.read_games(start))
        if self.name is not None:
            game = self.book.game(self.name, self.prefix)
            first = family.snapshot(self.name, game)
            hint = suggestion(self.name, self.existing_names(start)) if game is None else ""
            self.screen.snapshot(start, [first], self.name, hint)
            if game is not None and family.is_over(first):
                return 0
        else:
            self.screen.snapshot(start, [family.snapshot(game.name, game) for game in self.book.games()], None, "")
        with Follower(
            self.client.base_url,
            [self.prefix],
            after=start,
            auth=self.client.auth,
            trace=self.client.trace,
            on_notice=lambda message: notice(family.tool, message),
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
        return list(self.client.list_state(self.family.namespace, head=start.block_id))

    def existing_names(self, start: BlockRef) -> list[str]:
        """The names of the family's games as of ``start`` (of its first entries, if it has very many)."""
        entries = self.client.list_state(self.family.namespace, head=start.block_id)
        book = self.family.book(lambda problem: None)  # an unreadable entry is not the watched game's business
        book.load(itertools.islice(entries, ENTRIES_READ_FOR_NAMES))
        return [game.name for game in book.games()]

    def apply(self, block: BlockChanges) -> bool:
        """Show what ``block`` did to the watched games; True once the watched game has ended.

        A watched game's changes stop at its end: whatever the block did after (a game
        deleted and created again under the name) is for a watch started afresh.
        """
        changes = self.book.apply(block)
        ended = None
        if self.name is not None:
            changes = [change for change in changes if change.name == self.name]
            ended = self.family.end_of_game(changes)
            if ended is not None:
                changes = changes[: ended + 1]
        if changes:
            self.screen.changes(block.ref, changes)
        return ended is not None


def suggestion(name: str, existing: Sequence[str]) -> str:
    """What follows "there is no game NAME yet": the likely game, if any, and the games there are (pure).

    ``"; did you mean 'game1'? (games now: 'duel', 'game1')"``, or ``" (games now: 'duel')"``
    with none alike, or nothing when there is no game at all. Names are the chain's (anyone's)
    text, so each is quoted, escaped and cut short.
    """
    if not existing:
        return ""
    import difflib  # noqa: PLC0415 - only a watch of a game that does not exist needs it

    folded = {other.casefold(): other for other in reversed(existing)}
    close = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=SUGGESTION_CUTOFF)
    shown = ", ".join(quoted(other, NAME_CHARACTERS_SHOWN) for other in existing[:NAMES_SHOWN])
    more = f" and {len(existing) - NAMES_SHOWN} more" if len(existing) > NAMES_SHOWN else ""
    listed = f"(games now: {shown}{more})"
    if not close:
        return f" {listed}"
    return f"; did you mean {quoted(folded[close[0]], NAME_CHARACTERS_SHOWN)}? {listed}"


class Screen(Protocol[ChangeT]):
    """Where a watch shows games: the snapshot as watching begins, then each block's changes.

    ``hint``: what to add when the named game does not exist (:func:`suggestion`).
    """

    def snapshot(self, block: BlockRef, games: list[ChangeT], name: str | None, hint: str) -> None:
        """Show the games as watching begins (or, for a named game not there yet, a line that waits for it)."""

    def changes(self, block: BlockRef, changes: list[ChangeT]) -> None:
        """Show the changes one block made."""


class JsonLines(Generic[GameT, ChangeT]):
    """``--json``: one object per line, flushed at once for a reading script."""

    def __init__(self, family: WatchedFamily[GameT, ChangeT]) -> None:
        self.family = family

    def snapshot(self, block: BlockRef, games: list[ChangeT], name: str | None, hint: str) -> None:
        """Print the games as watching begins, one object each, like any later change."""
        self.changes(block, games)

    def changes(self, block: BlockRef, changes: list[ChangeT]) -> None:
        for change in changes:
            print(self.family.change_json(block, change), flush=True)


class TextLines(Generic[GameT, ChangeT]):
    """Without a terminal: the card printed once (a lobby: one line per game), then one line per change."""

    def __init__(self, family: WatchedFamily[GameT, ChangeT], names: KeyNames, you: str | None) -> None:
        self.family = family
        self.names = names
        self.you = you

    def snapshot(self, block: BlockRef, games: list[ChangeT], name: str | None, hint: str) -> None:
        """Print the named game's card (or that it is awaited), or one line per game when watching all."""
        if name is not None:
            game = games[0].game
            if game is not None:
                print(self.family.card(game, self.you, self.names), flush=True)
            else:
                print(self.family.waiting_line(block, name, hint), flush=True)
            return
        for change in games:
            print(self.line(block, change))
        print(f"block {block.block_num}: watching {self.family.lobby_noun} for changes (Ctrl-C stops)", flush=True)

    def changes(self, block: BlockRef, changes: list[ChangeT]) -> None:
        for change in changes:
            print(self.line(block, change), flush=True)

    def line(self, block: BlockRef, change: ChangeT) -> str:
        return self.family.change_line(block, change, self.names, self.you)


class Card(TextLines[GameT, ChangeT]):
    """On a terminal, one game: its card redrawn after every block, the last few changes under it."""

    def __init__(
        self,
        family: WatchedFamily[GameT, ChangeT],
        names: KeyNames,
        you: str | None,
        write: Callable[[str], object] | None = None,
    ) -> None:
        super().__init__(family, names, you)
        self.recent: list[str] = []
        self.write = write if write is not None else sys.stdout.write

    def snapshot(self, block: BlockRef, games: list[ChangeT], name: str | None, hint: str) -> None:
        """Draw the named game's card as watching begins, with a waiting line when it does not exist yet."""
        assert name is not None
        self.recent = [] if games[0].game else [self.family.waiting_line(block, name, hint)]
        self.draw(games[0])

    def changes(self, block: BlockRef, changes: list[ChangeT]) -> None:
        lines = [self.line(block, change) for change in changes]
        self.recent = (self.recent + lines)[-self.family.recent_lines :]
        self.draw(changes[-1])

    def draw(self, last: ChangeT) -> None:
        card = self.family.card(last.game, self.you, self.names) + "\n\n" if last.game is not None else ""
        footer = "" if self.family.is_over(last) else "\nwatching; Ctrl-C stops"
        self.write(f"{CLEAR_SCREEN}{card}" + "\n".join(self.recent) + f"{footer}\n")
        sys.stdout.flush()
