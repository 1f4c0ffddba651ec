"""``chips play``, ``chips bot`` and ``chips watch``: one player's side of matches, and a watchtower.

Play and bot run :class:`chips_client.match.Match` on the REST API and the MQTT broker
(:mod:`client_core.broker`); the moves come from the person (a terminal or a pipe) or
from the computer. Watch follows the chain and, with ``--defend``, answers challenges
with the store's latest states, so it can run as a service while no match runs.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading
import time
from collections.abc import Callable

from chips_cli import context
from chips_client.asking import Chooser, Immediate, Question
from chips_client.chain import RestChain
from chips_client.computer import Computer
from chips_client.match import CHAIN_RETRY_SECONDS, Connector, Match, NotPlayable
from chips_client.messages import client_id, topic
from chips_client.narration import (
    Story,
    channel_line,
    clock_time,
    deadline_text,
    duration,
    grid,
    player,
    seconds_left,
    xo_prompt,
)
from chips_client.store import Store
from chips_tp.channel import channel_id
from chips_tp.state import CLOSED, Channel
from client_core import session
from client_core.broker import BrokerError, BrokerSession
from client_core.errors import InvalidInput, TimedOut, Unavailable
from client_core.keys import KeyNames
from client_core.runner import sigterm_interrupts
from rps_tp.game import THROWS
from xo_core.signing import Signer
from xo_core.text import printable, quoted

COUNTDOWN_STEP_SECONDS = 5
"""A challenge's countdown on the prompt line is redrawn this often, then every second for the last few."""


class StandardInput:
    """Lines from file descriptor 0, read with ``os.read``: the reading thread then holds none of ``sys.stdin``'s
    locks, which an interpreter exiting while that thread waits on the keyboard would otherwise wait for."""

    def __init__(self, fd: int = 0) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self) -> str:
        """The next line, with its newline; "" at the end of the input."""
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 4096)
            if not chunk:
                line, self.buffer = self.buffer, b""
                return line.decode("utf-8", "replace")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", "replace") + "\n"


class PersonChooser:
    """A person's moves, one per line, read on a thread of its own so the match never waits on the keyboard.

    At a terminal the question is shown when asked (the board drawn as ``xo play`` draws it), an illegal
    answer is asked again, a challenge's deadline is counted down on the prompt line, and a question withdrawn
    says why; from a pipe the lines are the moves in order, and one that is not a move is an error.
    """

    def __init__(self, read: Callable[[], str] | None = None, interactive: bool | None = None,
                 clock: Callable[[], float] = time.time) -> None:  # fmt: skip
        self.read, self.clock = read or StandardInput().readline, clock
        self.interactive = sys.stdin.isatty() if interactive is None else interactive
        self.lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._question: Question | None = None
        self._counted: int | None = None

    def _read_lines(self) -> None:
        while line := self.read():
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, question: Question) -> None:
        """Show the question (at a terminal) and start reading, if not yet."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._read_lines, name="chips play: input", daemon=True)
            self._reader.start()
        self._question = question
        self._counted = None
        if self.interactive:
            if question.deadline is not None:
                print(self._urgency(question), flush=True)
            print(self._prompt(question), end="", flush=True)

    def answer(self) -> int | str | None:
        """The move typed, once a line came and it is legal; None while none has (the countdown goes on)."""
        question = self._question
        if question is None:
            return None
        try:
            line = self.lines.get_nowait()
        except queue.Empty:
            self._count_down(question)
            return None
        if line is None:
            raise InvalidInput("the input ended before the match did")
        text = line.strip().lower()
        move = _move(question, text)
        if move is not None:
            self._question = None
            return move
        if not self.interactive:
            what = f"a free space (1-9) on the board:\n{grid(question.board)}" if question.game == "xo" else (
                "rock, paper or scissors")  # fmt: skip
            raise InvalidInput(f"{printable(text)!r} is not {what}")
        if question.game == "xo":
            print(f"{printable(text)!r} is not a free space: choose a number the board shows")
        else:
            print(f"{printable(text)!r} is not rock, paper or scissors")
        print(self._prompt(question), end="", flush=True)
        return None

    def withdraw(self, reason: str) -> None:
        """Drop the question, saying why at a terminal."""
        if self._question is not None and self.interactive:
            print(f"\n(no longer asked: {printable(reason)})", flush=True)
        self._question = None

    def _prompt(self, question: Question) -> str:
        if question.game == "xo":
            text = xo_prompt(question.board, question.mark)
        else:
            text = "your throw (rock, paper, scissors): "
        if question.deadline is None:
            return text
        left = seconds_left(question.deadline, self.clock())
        return text[: -len(": ")] + f" [{duration(left)} left]: "

    def _urgency(self, question: Question) -> str:
        assert question.deadline is not None
        now = self.clock()
        line = f"!!! answer the challenge: your move must be on chain by {deadline_text(question.deadline, now)}"
        if question.computer_at is not None:
            line += f"; the computer plays it for you at {clock_time(question.computer_at, now)} if you have not"
        return line + " !!!"

    def _count_down(self, question: Question) -> None:
        """At a terminal, the prompt line shows the seconds left, redrawn every few seconds."""
        if not self.interactive or question.deadline is None:
            return
        left = seconds_left(question.deadline, self.clock())
        step = COUNTDOWN_STEP_SECONDS if left > 2 * COUNTDOWN_STEP_SECONDS else 1
        if self._counted is not None and self._counted - left < step:
            return
        self._counted = left
        last_line = self._prompt(question).rsplit("\n", 1)[-1]
        print(f"\r{last_line}\x1b[K", end="", flush=True)


def _move(question: Question, text: str) -> int | str | None:
    """The move ``text`` names if it answers ``question``: a free space (1-9), or a throw."""
    if question.game == "xo":
        if text.isascii() and text.isdigit() and 1 <= int(text) <= 9 and question.board[int(text) - 1] == "-":
            return int(text)
        return None
    return text if text in THROWS else None


def play(args: argparse.Namespace) -> int:
    """``chips play CHANNEL``: the person's side; the computer answers a challenge for them at half the time left,
    unless ``--no-auto-respond``."""
    return _run(args, PersonChooser(), None if args.no_auto_respond else Computer("perfect"))


def bot(args: argparse.Namespace) -> int:
    """``chips bot CHANNEL [--level L]``: the computer's side."""
    return _run(args, Immediate(Computer(args.level)), None)


def _connector(args: argparse.Namespace, client_id: str) -> Connector:
    """The match's transport: a persistent session on ``--broker`` with a client id stable per key and channel
    (:func:`chips_client.messages.client_id`), so what the peer sent while this player was away is waiting; after a
    reconnection the match publishes its latest state again. It never gives up on a broker that is away (at the
    start too), and says so once, then when it is back."""
    return lambda on_message, on_reconnect: BrokerSession(args.broker, client_id, on_message,
                                                          on_reconnect=on_reconnect, say=say)  # fmt: skip


def _run(args: argparse.Namespace, chooser: Chooser, stand_in: Computer | None) -> int:
    signer = context.signer(args)
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored:
        found, terms = context.locate(chain.channels(), args.channel, signer.public_key, stored)
        names = session.key_names(args)
        shown = quoted(terms.name, None)
        if found.status == CLOSED:
            story = Story(found.fixed, terms.rounds, signer.public_key, names)
            print(f"channel {shown} is closed already: {story.status(found, time.time())}")
            return 0
        ident = channel_id(found.fixed).hex()
        connect = _connector(args, client_id(signer, channel_id(found.fixed)))
        match = Match(signer=signer, terms=terms, store=stored, chain=chain, connect=connect, chooser=chooser,
                      say=say, patience=args.patience, names=names, stand_in=stand_in)  # fmt: skip
        say(f"playing channel {shown} ({ident[:8]}) as {player(signer.public_key, None, names)} against "
            f"{match.opponent}; messages on {topic(found.id, signer.public_key)}")  # fmt: skip
        try:
            with sigterm_interrupts():
                outcome = match.run()
        except NotPlayable as error:
            raise InvalidInput(str(error)) from None
        record = chain.channel(context.address(found))
    paid = record.payout if record is not None and record.payout else (0, 0)
    result = ""
    if match.story.games:
        result = f"; {match.story.result()}" if outcome == "concluded" else f"; games played: {match.story.score()}"
    say(f"channel {shown} {outcome}: paid {match.story.balances(paid)}{result}")
    return 0


def say(line: str) -> None:
    """Print one line made safe for a terminal (it may hold names other players chose) and flush it at once."""
    print(printable(line, escape_backslashes=False), flush=True)


def watch(args: argparse.Namespace) -> int:
    """``chips watch [--defend]``: print changes of this player's channels; with --defend, answer challenges. A REST
    API out of reach is said once and tried again with a capped backoff: it runs until Ctrl-C or SIGTERM."""
    signer = context.signer(args)
    seen: dict[bytes, tuple] = {}
    towers: dict[bytes, Match] = {}
    names = session.key_names(args)
    retry, lost = 0.0, False
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored, sigterm_interrupts():
        while True:
            try:
                for found in chain.channels():
                    if signer.public_key not in found.fixed.participants:
                        continue
                    now = (found.status, found.turn, found.challenge)
                    if seen.get(found.id) != now:
                        seen[found.id] = now
                        say(channel_line(found, stored_name(stored, found), signer.public_key, names, time.time()))
                    if args.defend and found.challenge and found.challenge.challenger != signer.public_key:
                        tower = towers.get(found.id) or _tower(signer, chain, stored, found, names)
                        if tower is not None:
                            towers[found.id] = tower
                            tower.defend_offline(found)
            except BrokerError:
                raise
            except (Unavailable, TimedOut) as error:
                retry = min(max(2 * retry, CHAIN_RETRY_SECONDS[0]), CHAIN_RETRY_SECONDS[1])
                if not lost:
                    say(f"{error.message}; retrying")
                lost = True
                time.sleep(retry)
                continue
            if lost:
                say("the REST API answers again: watching")
            retry, lost = 0.0, False
            time.sleep(args.poll)


def stored_name(stored: Store, found: Channel) -> str | None:
    """The name the player's store knows ``found``'s channel by, if it knows it."""
    terms = stored.channel(found.id)
    return None if terms is None else terms.name


def _tower(signer: Signer, chain: RestChain, stored: Store, found: Channel, names: KeyNames) -> Match | None:
    """The match's own defence for ``found``, from the store (None when the store does not know the channel); kept
    per channel by ``watch``, so a challenge is answered once, and again only after a refusal or a lost REST API."""
    terms = stored.channel(found.id)
    if terms is None:
        return None
    return Match(signer=signer, terms=terms, store=stored, chain=chain, connect=None,
                 chooser=Immediate(Computer("perfect")), say=say, names=names)  # fmt: skip
