"""``xo bot [GAME...|--all]``: a long-running player, the computer playing your key's seat in games as they go on.

The games are read as of the newest block and followed from there
(:class:`xo_client.live.LiveGames`); after every block that changes a game, and at
start, :meth:`xo_client.seat.SeatPlayer.turn` says whether it is the bot's move, and
:meth:`~xo_client.seat.SeatPlayer.play` makes it from a fresh read of the game, so a
follower running behind never makes the bot move out of turn. One line per move on
stdout (UTC time, game, space, mark, the board after), and one per game it stops
playing (over, deleted, skipped). Connection notices go to stderr.

- Named games: it plays until each has ended -- won, tied, deleted, or skipped
  because both seats are held by others, or after :data:`MAX_REFUSALS` refused moves
  in a row -- then exits 0. A game that does not exist yet is waited for. It takes a
  free seat when it is that seat's turn, so it opens a game nobody has joined (as X)
  and answers a first move (as O).
- ``--all``: every game, now and to come, whose first move is made and whose second
  seat is open (and every game where its key holds a seat), until Ctrl-C (130) or
  SIGTERM (143). It never opens a game.

Never both seats, never out of turn (:func:`xo_client.seat.turn_of`). A move the
validator refuses is tried again from a fresh read after a short pause; a move that
could not be sent (the REST API down) is tried again with growing pauses (0.1 s to
5 s), for as long as it takes, while the follower reconnects.
"""

from __future__ import annotations

import argparse
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass

from client_core import interruptible
from client_core.blocks import ChainChanged
from client_core.caller import Caller
from client_core.errors import (
    INTERRUPTED,
    TERMINATED,
    CommandError,
    Interrupted,
    InvalidInput,
    Terminated,
    TerminateRequest,
    UsageError,
)
from client_core.follow import pause
from client_core.rest import RestClient
from client_core.runner import notice, sigterm_interrupts, warn
from xo_cli import render
from xo_client.ai import Level
from xo_client.changes import DELETED
from xo_client.games import Game, impossible_name
from xo_client.live import BlockEvent, Failure, LiveGames, Notice
from xo_client.notation import board_in_grid, grid_name
from xo_client.outcome import outcome_text, state_words
from xo_client.seat import AI_KEY_NAME, MARKS, Action, Outcome, SeatPlayer, ai_signer
from xo_core.text import game_label, printable
from xo_tp import rules

MAX_REFUSALS = 3
"""Refused moves in a row before the bot gives up on a game (and says so)."""
REFUSAL_PAUSE = 0.5
"""Seconds before a refused move is tried again, from a fresh read: let the race that caused it settle."""


def bot(args: argparse.Namespace) -> int:
    """``xo bot``: check the command line, load the key, then hand over to :class:`Bot`; Ctrl-C stops (130)."""
    names: list[str] = args.games
    if args.all and names:
        raise UsageError("give the names of the games to play, or --all, not both")
    if not args.all and not names:
        raise UsageError("name the games to play, or give --all to answer every game")
    for name in names:
        if problem := impossible_name(name):
            raise InvalidInput(problem)
    caller = Caller.of(args)
    who = caller.who
    signer = ai_signer(who.key_dir).signer if who.name() == AI_KEY_NAME else who.signer("xo")
    level = Level(args.level or Level.PERFECT)
    with sigterm_interrupts(), caller.where.rest_client() as client:
        player = SeatPlayer(
            client, signer, level=level, seed=args.seed, opens=not args.all, names=who.key_names()
        )
        robot = Bot(client, player, None if args.all else list(dict.fromkeys(names)))
        try:
            return robot.run()
        except KeyboardInterrupt as interrupt:
            terminated = isinstance(interrupt, TerminateRequest)
            robot.log(f"stopped ({'SIGTERM' if terminated else 'Ctrl-C'})")
            return TERMINATED if terminated else INTERRUPTED


def log_line(text: str) -> None:
    """One line of the bot's log: the UTC time, then ``text``, escaped once more (some of it is the server's)."""
    line = printable(text, escape_backslashes=False)
    print(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {line}", flush=True)


@dataclass
class Seat:
    """The bot's dealings with one game."""

    seen: bool = False
    """The game has existed while the bot followed it (so its disappearance is a deletion)."""
    done: bool = False
    """The bot plays no more in it."""
    sat: bool = False
    """The bot's key holds a seat: its end is logged, also with --all."""
    waiting_said: bool = False
    """"Does not exist yet" was logged."""
    lonely_said: bool = False
    """"Waiting for an opponent" was logged: its key holds one seat, the other is open and due."""
    refusals: int = 0
    failures: int = 0
    retry_at: float | None = None


class Bot:
    """The bot's loop: events in (blocks, notices, retry timers), moves out; :meth:`run` returns the exit code."""

    def __init__(
        self, client: RestClient, player: SeatPlayer, names: list[str] | None, log: Callable[[str], None] = log_line
    ) -> None:
        self.player = player
        self.names = names
        self.log = log
        self.events: queue.Queue[object] = queue.Queue()
        self.live = LiveGames(client, self.events, names)
        self.seats: dict[str, Seat] = {name: Seat() for name in names or ()}

    def run(self) -> int:
        with self.live:
            self.live.start()
            me = render.key_label(self.player.key, self.player.names)
            games = ", ".join(game_label(name) for name in self.names) if self.names is not None else (
                "every game whose first move is made and whose second seat is open (Ctrl-C stops)"
            )
            self.log(f"playing as {me}, level {self.player.level}: {games}")
            self.consider_all()
            while True:
                if self.names is not None and all(self.seats[name].done for name in self.names):
                    self.log("every game has ended")
                    return 0
                self.handle(self.next_event())

    def next_event(self) -> object | None:
        """The next event, or None when a retry is due first."""
        due = [seat.retry_at for seat in self.seats.values() if seat.retry_at is not None and not seat.done]
        timeout = max(0.0, min(due) - time.monotonic()) if due else None
        try:
            return interruptible.get(self.events, timeout)
        except queue.Empty:
            return None

    def handle(self, event: object | None) -> None:
        if isinstance(event, BlockEvent):
            changes = self.live.apply(event.block)
            for change in changes:
                if change.kind == DELETED:
                    self.deleted(change.name)
            for name in sorted({change.name for change in changes}):
                self.seat(name).retry_at = None
                self.consider(name)
        elif isinstance(event, Notice):
            notice("xo", event.text)
        elif isinstance(event, Failure):
            if not isinstance(event.error, ChainChanged):
                raise event.error
            warn("xo", f"{event.error.message}; starting again from its newest block")
            self.live.restart()
            self.consider_all()
        now = time.monotonic()
        for name, seat in list(self.seats.items()):
            if seat.retry_at is not None and seat.retry_at <= now:
                seat.retry_at = None
                self.consider(name)

    def consider_all(self) -> None:
        names = self.names if self.names is not None else [game.name for game in self.live.games()]
        for name in names:
            self.consider(name)

    def seat(self, name: str) -> Seat:
        return self.seats.setdefault(name, Seat())

    def consider(self, name: str) -> None:
        """Decide on ``name`` as the follower has it; move (from a fresh read) if it is the bot's turn."""
        seat = self.seat(name)
        if seat.done or seat.retry_at is not None:
            return
        game = self.live.game(name)
        turn = self.player.turn(game)
        label = game_label(name)
        if game is not None:
            seat.seen = True
            seat.sat = seat.sat or self.player.key in (game.player1, game.player2)
        if turn.action is Action.GONE:
            if seat.seen:
                self.deleted(name)
            elif self.names is not None and not seat.waiting_said:
                seat.waiting_said = True
                self.log(f"{label} does not exist yet: waiting for it to be created")
        elif turn.action is Action.OVER:
            assert game is not None
            if self.names is not None or seat.sat:
                self.stop(name, self.result(game))
            else:
                seat.done = True
        elif turn.action is Action.NO_SEAT:
            if self.names is not None:
                self.stop(name, f"skipped: {turn.reason}; it cannot play there")
            else:
                seat.done = True
        elif turn.action is Action.MOVE:
            self.move(name)
        elif seat.sat and not seat.lonely_said and game is not None and self.open_seat_due(game):
            seat.lonely_said = True  # its key holds the other seat, and it never takes both
            self.log(f"{label}: waiting for an opponent to join as {MARKS[game.next_player]}")

    @staticmethod
    def open_seat_due(game: Game) -> bool:
        """Whether the seat whose turn it is in ``game`` is open."""
        return game.next_player is not None and not game.player_key(game.next_player)

    def move(self, name: str) -> None:
        seat = self.seat(name)
        label = game_label(name)
        try:
            outcome = self.player.play(name)
        except InvalidInput as error:
            self.stop(name, f"skipped: {error.message}")
            return
        except (Interrupted, Terminated):
            raise  # Ctrl-C or SIGTERM while a move was on its way: the error names the batch
        except CommandError as error:
            seat.failures += 1
            seat.retry_at = time.monotonic() + (wait := pause(seat.failures))
            self.log(f"{label}: could not move: {error.message}; trying again in {wait:.1f} s")
            return
        seat.failures = 0
        if outcome.played:
            seat.refusals = 0
            seat.sat = True
            self.log(self.move_text(name, outcome))
        elif outcome.refusal is not None:
            seat.refusals += 1
            refusal = outcome.refusal
            if seat.refusals >= MAX_REFUSALS:
                self.stop(name, f"gave up after {seat.refusals} refused moves: {refusal}")
            else:
                seat.retry_at = time.monotonic() + REFUSAL_PAUSE
                self.log(f"{label}: the move on {outcome.space} was refused: {refusal}; trying again")
        # otherwise a fresh read says it is not the bot's move: the block that shows why is on its way

    def move_text(self, name: str, outcome: Outcome) -> str:
        """``game 'g1': took 5 (B2) as O; alice (X) to move; X on A1, O on B2``, or how the game ended."""
        assert outcome.space is not None and outcome.game is not None
        game = outcome.game
        text = f"{game_label(name)}: took {outcome.space} ({grid_name(outcome.space)}) as {outcome.turn.mark}; "
        standing = outcome_text(game, self.player.names) or state_words(game, self.player.names)
        return f"{text}{standing}; {board_in_grid(game.board)}"

    def result(self, game: Game) -> str:
        """How a game ended, for the bot: won, lost, a tie (or over before it sat, as a named game)."""
        label = game_label(game.name)
        winner = {rules.P1_WIN: game.player1, rules.P2_WIN: game.player2}.get(game.state)
        if self.player.key not in (game.player1, game.player2):
            return f"{label} is over: {outcome_text(game, self.player.names)}"
        if winner is None:
            return f"{label} is over: a tie"
        return f"{label} is over: {'won' if winner == self.player.key else 'lost'}: " \
            f"{outcome_text(game, self.player.names)}"

    def deleted(self, name: str) -> None:
        """A named game deleted has ended; with --all, a name created again is a new game, so it starts afresh."""
        seat = self.seat(name)
        if self.names is None:
            if seat.sat and not seat.done:
                self.log(f"{game_label(name)} was deleted")
            del self.seats[name]
        elif not seat.done:
            self.stop(name, f"{game_label(name)} was deleted")

    def stop(self, name: str, text: str) -> None:
        seat = self.seat(name)
        seat.done = True
        seat.retry_at = None
        self.log(text)
