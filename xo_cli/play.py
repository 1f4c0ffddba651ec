"""``xo play NAME [--vs ai]``: a whole game at the terminal, or driven by a script through a pipe.

The game is created if it does not exist, then followed live (:class:`xo_client.live.LiveGames`,
the chain follower on its own thread), while the person's lines are read on another
(:class:`client_core.lines.LineReader`). Both feed one event queue, which this
module's thread works through one event at a time: a block moves the game on and
is shown; a line is a move, checked with the processor's rules
(:func:`xo_client.checks.refuse_take`), signed, submitted and waited for until it
commits. After every event the same question is asked (:func:`xo_client.seat.turn_of`):
is it my move, the computer's, or the other player's; is the game over?

- Each side acts once per position: after a move commits, that side waits until a
  block shows a change to the game (its move, normally) before it is asked again.
- On a terminal, a line typed when it is not your move is answered "not your turn"
  and dropped. From a pipe, lines are moves in order, one per turn, so a script
  may write them all at once; the end of the input leaves the game when the next
  move is due.
- ``--vs ai``: the computer plays the other seat with its own key, ``xo-ai``
  (:func:`xo_client.seat.ai_signer`), through :class:`xo_client.seat.SeatPlayer` in this
  thread, as soon as the chain shows it is its move. It never opens a game (you play
  X first) and plays only games between you and it.

Exit codes: 0 once the game is over (or deleted), or when the player leaves (``q``,
end of input); 1 when the player cannot play (both seats held by others; another
player in a ``--vs ai`` game); 130 Ctrl-C and 143 SIGTERM, the game left as it is on
the ledger; 3 server errors, as everywhere.
"""

from __future__ import annotations

import argparse
import math
import os
import queue
import sys
from collections import deque
from dataclasses import dataclass

from client_core import interruptible
from client_core.blocks import ChainChanged
from client_core.caller import Caller
from client_core.errors import (
    INTERRUPTED,
    TERMINATED,
    InvalidInput,
    Rejected,
    TerminateRequest,
    TimedOut,
    UsageError,
)
from client_core.keys import KeyNames
from client_core.lines import LineReader
from client_core.rest import RestClient
from client_core.runner import sigterm_interrupts, warn
from client_core.submission import submit_and_wait
from xo_cli import render
from xo_cli.play_screen import LineScreen, Screen, TerminalScreen, result_text
from xo_client.ai import Level
from xo_client.checks import check_name, refuse_take
from xo_client.games import Game
from xo_client.live import BlockEvent, Failure, LiveGames, Notice
from xo_client.notation import BadSpace, parse_space
from xo_client.outcome import state_words
from xo_client.seat import AI_KEY_NAME, Action, SeatPlayer, Turn, ai_signer, read_game, turn_of
from xo_client.transactions import describe, make_xo_transaction
from xo_core.signing import Signer
from xo_core.text import game_label, quoted, shell_word

STDIN = 0
"""Read as a file descriptor, not through ``sys.stdin``: see :mod:`client_core.lines`."""
QUIT_WORDS = frozenset(("q", "quit", "exit"))
MAX_AI_REFUSALS = 3
"""Refused moves of the computer in a row before ``xo play`` gives up (a refusal it cannot learn from)."""


@dataclass(frozen=True)
class Line:
    """A line the player typed (or a script wrote)."""

    text: str


@dataclass(frozen=True)
class EndOfInput:
    """Ctrl-D, or the end of the pipe."""


def play(args: argparse.Namespace) -> int:
    """``xo play NAME``: set up the players, then hand over to :class:`Match`; Ctrl-C leaves (130)."""
    name: str = args.name
    check_name(name, validate=True)
    if args.vs != "ai" and (args.level is not None or args.seed is not None):
        raise UsageError("--level and --seed choose how the computer plays: add --vs ai")
    caller = Caller.of(args)
    key_dir = caller.who.key_dir
    me = caller.who.signer("xo")
    made_ai_key = False
    ai_key: Signer | None = None
    if args.vs == "ai":
        ai_key, made_ai_key = ai_signer(key_dir)
        if ai_key.public_key == me.public_key:
            raise InvalidInput(f"--vs ai plays with the key {AI_KEY_NAME!r}: choose another --username for yourself")
    names = caller.who.key_names()
    interactive = os.isatty(STDIN)  # a closed stdin is no terminal, and ends at once
    screen: Screen = TerminalScreen(me.public_key, names) if interactive and sys.stdout.isatty() else LineScreen(names)
    with sigterm_interrupts(), caller.where.rest_client() as client:
        ai = None
        if ai_key is not None:
            level = Level(args.level or Level.PERFECT)
            ai = SeatPlayer(client, ai_key, level=level, seed=args.seed, opens=False, names=names)
        match = Match(client, name, me, ai, screen, names=names, interactive=interactive)
        if made_ai_key:
            match.intro.append(f"made the computer player's key {AI_KEY_NAME!r} in {key_dir}")
        try:
            return match.run()
        except KeyboardInterrupt as interrupt:
            terminated = isinstance(interrupt, TerminateRequest)
            screen.finish(match.left_text("SIGTERM" if terminated else "Ctrl-C"))
            return TERMINATED if terminated else INTERRUPTED


class Match:
    """One player's game, from the first read to the last line; :meth:`run` returns the exit code."""

    def __init__(
        self,
        client: RestClient,
        name: str,
        me: Signer,
        ai: SeatPlayer | None,
        screen: Screen,
        *,
        names: KeyNames,
        interactive: bool,
    ) -> None:
        self.client = client
        self.name = name
        self.me = me
        self.ai = ai
        self.screen = screen
        self.names = names
        self.interactive = interactive
        self.events: queue.Queue[object] = queue.Queue()
        self.live = LiveGames(client, self.events, [name])
        self.label = game_label(name)
        self.intro: list[str] = []
        self.seen = False
        self.i_moved = False
        self.ai_moved = False
        self.shown_position: tuple[object, ...] | None = None
        self.typed: deque[str] = deque()
        self.input_ended = False
        self.ai_refusals = 0

    def run(self) -> int:
        with self.live:
            start = self.live.start()
            game = self.live.game(self.name)
            self.intro.append(self.players_text())
            self.screen.start(start, game, self.intro)
            if game is None:
                self.create()
            LineReader(STDIN, self.typed_line).start()
            while True:
                code = self.step()
                if code is not None:
                    return code
                code = self.handle(interruptible.get(self.events))
                if code is not None:
                    return code

    def players_text(self) -> str:
        you = f"you play as {render.key_label(self.me.public_key, self.names)}"
        if self.ai is None:
            return f"{self.label}: {you}"
        return f"{self.label}: {you}, against {render.key_label(self.ai.key, self.names)} (level {self.ai.level})"

    def typed_line(self, text: str | None) -> None:
        """Called on the input thread: hand the line over to this one."""
        self.events.put(EndOfInput() if text is None else Line(text))

    # --- what to do next ---

    def step(self) -> int | None:
        """Act on the game as it stands until a new event is needed; an exit code once play is over."""
        while True:
            game = self.live.game(self.name)
            if game is None:
                if self.seen:
                    self.screen.finish(f"{self.label} was deleted")
                    return 0
                return None  # created, not yet seen in a block
            self.seen = True
            self.check_players(game)
            mine = turn_of(game, self.me.public_key, names=self.names)
            if mine.action is Action.OVER:
                self.screen.finish(result_text(game, self.me.public_key, self.names))
                return 0
            if mine.action is Action.NO_SEAT:
                raise InvalidInput(f"{mine.reason}: you can only watch it: xo watch {shell_word(self.name)}")
            if self.ai is not None and not self.ai_moved and self.ai.turn(game).action is Action.MOVE:
                self.ai_moves()
                continue
            if self.i_moved or self.ai_moved:
                return None  # a move is on its way through the chain: nothing to say until it shows
            if mine.action is Action.MOVE:
                if self.new_position(game):
                    self.screen.prompt(game, mine.mark or "")
                if self.typed:
                    code = self.try_move(self.typed.popleft(), game, mine)
                    if code is not None:
                        return code
                    continue
                if self.input_ended:
                    return self.leave()
                return None
            if self.new_position(game):
                self.screen.waiting(game, self.waiting_text(game))
            return None

    def check_players(self, game: Game) -> None:
        """``--vs ai`` plays only games between you and the computer."""
        if self.ai is None:
            return
        others = [key for key in (game.player1, game.player2) if key and key not in (self.me.public_key, self.ai.key)]
        if others:
            raise InvalidInput(
                f"{self.label} has another player, {render.key_label(others[0], self.names)}: --vs ai plays only "
                "games between you and the computer (play it without --vs ai, or choose a new name)"
            )

    def new_position(self, game: Game) -> bool:
        """Whether ``game`` is not the position last prompted (or waited) in: say it once, not at every event."""
        position = (game.board, game.state, game.player1, game.player2)
        if position == self.shown_position:
            return False
        self.shown_position = position
        return True

    def waiting_text(self, game: Game) -> str:
        return render.turn_text(game, self.me.public_key, self.names)

    # --- events ---

    def handle(self, event: object) -> int | None:
        if isinstance(event, BlockEvent):
            changes = self.live.apply(event.block)
            if changes:
                self.screen.changes(event.block.ref, changes)
                self.i_moved = self.ai_moved = False
                self.shown_position = None
        elif isinstance(event, Line):
            return self.typed_text(event.text)
        elif isinstance(event, EndOfInput):
            self.input_ended = True
            if self.interactive:
                return self.leave()
        elif isinstance(event, Notice):
            self.screen.notice(event.text)
        elif isinstance(event, Failure):
            if not isinstance(event.error, ChainChanged):
                raise event.error
            warn("xo", f"{event.error.message}; starting again from its newest block")
            self.live.restart()
            self.shown_position = None
        return None

    def typed_text(self, text: str) -> int | None:
        """From a pipe, a line waits for its turn; on a terminal, it is for now or not at all."""
        if not self.interactive:
            self.typed.append(text)
            return None
        game = self.live.game(self.name)
        word = text.strip()
        if word.lower() in QUIT_WORDS:
            return self.leave()
        if game is None or not word:
            self.shown_position = None
            return None
        mine = turn_of(game, self.me.public_key, names=self.names)
        if self.i_moved:
            self.screen.say(f"your last move is on its way to the chain; {quoted(word, 20)} ignored")
            return None
        if mine.action is Action.MOVE and not self.ai_to_move(game):
            return self.try_move(text, game, mine)
        self.screen.say(f"not your turn: {self.waiting_text(game)}; {quoted(word, 20)} ignored")
        return None

    def ai_to_move(self, game: Game) -> bool:
        return self.ai is not None and not self.ai_moved and self.ai.turn(game).action is Action.MOVE

    # --- moves ---

    def try_move(self, text: str, game: Game, mine: Turn) -> int | None:
        """A line typed when it is your move: leave, a move (checked, sent, waited for), or asked again."""
        word = text.strip()
        if word.lower() in QUIT_WORDS:
            return self.leave()
        try:
            space = parse_space(word)
        except BadSpace as error:
            return self.ask_again(f"{error}; or q to leave")
        refusal = refuse_take(self.name, game, self.me.public_key, space, names=self.names)
        if refusal is not None:
            return self.ask_again(refusal)
        transaction = make_xo_transaction(self.me, self.name, "take", space)
        self.screen.progress(f"{describe('take', self.name, space)}: sent, waiting for it to commit")
        batch_id, status = submit_and_wait(self.client, self.me, [transaction], math.inf)
        if status.status == "INVALID":
            reason = "; ".join(reason for reason in status.reasons if reason) or "no reason given"
            return self.ask_again(f"the validator refused your move: {reason}")
        if status.status != "COMMITTED":
            raise TimedOut(f"{self.label}: your move is still {status.status} (batch {batch_id}); it may still commit")
        self.i_moved = True
        return None

    def ask_again(self, why: str) -> None:
        self.screen.say(why)
        self.shown_position = None  # the prompt again

    def ai_moves(self) -> None:
        """The computer's move, read afresh and committed; a refused one is tried again a few times."""
        assert self.ai is not None
        outcome = self.ai.play(self.name)
        self.ai_moved = True
        if outcome.refusal is not None:
            self.ai_refusals += 1
            if self.ai_refusals >= MAX_AI_REFUSALS:
                raise Rejected(f"{self.label}: the computer's moves keep being refused: {outcome.refusal}")
            self.screen.say(f"{render.key_label(self.ai.key, self.names)}'s move was refused: {outcome.refusal}")
            self.ai_moved = False  # try again at once, from a fresh read
        elif outcome.played:
            self.ai_refusals = 0

    def create(self) -> None:
        """Create the game; someone else creating it first is as good."""
        _, status = submit_and_wait(
            self.client, self.me, [make_xo_transaction(self.me, self.name, "create")], math.inf,
            interrupted=f"creating {self.label}: batch {{batch}} may still commit",
        )  # fmt: skip
        if status.status == "INVALID" and read_game(self.client, self.name) is not None:
            return
        if status.status != "COMMITTED":
            reason = "; ".join(reason for reason in status.reasons if reason) or status.status
            raise Rejected(f"could not create {self.label}: {reason}")

    def leave(self) -> int:
        self.screen.finish(self.left_text("you left"))
        return 0

    def left_text(self, how: str) -> str:
        game = self.live.game(self.name)
        if game is None or game.next_player is None:
            return f"{how}: {self.label}"
        return (
            f"{how}: {self.label} stays on the ledger, unfinished, {state_words(game, self.names)}; "
            f"to go on with it: xo play {shell_word(self.name)}"
        )

