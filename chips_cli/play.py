"""``chips play``, ``chips bot`` and ``chips watch``: one player's side of matches, and a watchtower.

Play and bot run :class:`chips_client.match.Match` on the REST API and the MQTT broker
(:mod:`client_core.broker`); the moves come from the person (a terminal or a pipe) or
from the computer. Watch follows the chain and, with ``--defend``, answers challenges
with the store's latest states, so it can run as a service while no match runs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from chips_cli import context
from chips_client.chain import RestChain
from chips_client.match import Match, NotPlayable, Receiver
from chips_client.messages import topic
from chips_client.store import Store
from chips_tp.channel import channel_id
from chips_tp.state import CLOSED, Channel
from client_core.broker import BrokerSession
from client_core.errors import InvalidInput
from client_core.runner import sigterm_interrupts
from rps_tp.game import THROWS
from xo_client.ai import Level, choose_move
from xo_core.signing import Signer
from xo_core.text import printable


class BotChooser:
    """The computer: xo's AI at ``level``; at rps a uniformly random throw (no strategy beats it)."""

    def __init__(self, level: str, rng: random.Random | None = None) -> None:
        self.level = Level(level)
        self.rng = rng or random.SystemRandom()

    def xo_space(self, board: str, mark: str) -> int:
        """The bot's tic-tac-toe move (1-9) for ``mark`` on ``board``, at its level."""
        return choose_move(board, mark, self.rng, self.level)  # type: ignore[arg-type]

    def rps_throw(self) -> str:
        """The bot's throw, at random so it cannot be predicted."""
        return self.rng.choice(THROWS)


class PersonChooser:
    """A person's moves, one per line: from the terminal (asked again when illegal) or a pipe (an error)."""

    def __init__(self, read: Callable[[], str] = sys.stdin.readline, interactive: bool | None = None) -> None:
        self.read = read
        self.interactive = sys.stdin.isatty() if interactive is None else interactive

    def _line(self, prompt: str) -> str:
        if self.interactive:
            print(prompt, end="", flush=True)
        line = self.read()
        if not line:
            raise InvalidInput("the input ended before the match did")
        return line.strip().lower()

    def xo_space(self, board: str, mark: str) -> int:
        """The person's space (1-9) for ``mark`` on ``board``; asked again at a terminal when it is not free."""
        shown = " ".join(board[i : i + 3] for i in (0, 3, 6))
        while True:
            text = self._line(f"board {shown}; your {mark} (1-9): ")
            if text.isdigit() and 1 <= int(text) <= 9 and board[int(text) - 1] == "-":
                return int(text)
            if not self.interactive:
                raise InvalidInput(f"{text!r} is not a free space (1-9) on {board}")
            print(f"{text!r} is not a free space: choose one of 1-9 showing '-'")

    def rps_throw(self) -> str:
        """The person's throw; asked again at a terminal when it is not rock, paper or scissors."""
        while True:
            text = self._line("your throw (rock, paper, scissors): ")
            if text in THROWS:
                return text
            if not self.interactive:
                raise InvalidInput(f"{text!r} is not rock, paper or scissors")


def play(args: argparse.Namespace) -> int:
    """``chips play CHANNEL``: the person's side."""
    return _run(args, PersonChooser())


def bot(args: argparse.Namespace) -> int:
    """``chips bot CHANNEL [--level L]``: the computer's side."""
    return _run(args, BotChooser(args.level))


def _connector(args: argparse.Namespace, client_id: str) -> Callable[[Receiver], BrokerSession]:
    """The match's transport: a persistent session on ``--broker`` with a client id stable per key and channel, so
    what the peer sent while this player was away is waiting when it comes back."""
    return lambda on_message: BrokerSession(args.broker, client_id, on_message)


def _run(args: argparse.Namespace, chooser: BotChooser | PersonChooser) -> int:
    signer = context.signer(args)
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored:
        found, terms = context.locate(chain.channels(), args.channel, signer.public_key, stored)
        if found.status == CLOSED:
            paid = found.payout or (0, 0)
            print(f"channel {args.channel!r} is closed already (paid {paid[0]} and {paid[1]})")
            return 0
        ident = channel_id(found.fixed).hex()
        connect = _connector(args, f"xo-chips-{signer.public_key[2:18]}-{ident[:16]}")
        match = Match(signer=signer, terms=terms, store=stored, chain=chain, connect=connect, chooser=chooser,
                      say=say, patience=args.patience)  # fmt: skip
        print(f"playing channel {terms.name!r} ({ident[:8]}) as participant {match.me}; messages on "
              f"{topic(found.id, signer.public_key)}", flush=True)  # fmt: skip
        try:
            with sigterm_interrupts():
                outcome = match.run()
        except NotPlayable as error:
            raise InvalidInput(str(error)) from None
        record = chain.channel(context.address(found))
    paid = record.payout if record is not None and record.payout else (0, 0)
    print(f"channel {terms.name!r} {outcome}: paid {paid[0]} and {paid[1]}")
    return 0


def say(line: str) -> None:
    """Print one line made safe for a terminal (it may hold names other players chose) and flush it at once."""
    print(printable(line, escape_backslashes=False), flush=True)


def watch(args: argparse.Namespace) -> int:
    """``chips watch [--defend]``: print changes of this player's channels; with --defend, answer challenges."""
    signer = context.signer(args)
    seen: dict[bytes, tuple] = {}
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored, sigterm_interrupts():
        while True:
            for found in chain.channels():
                if signer.public_key not in found.fixed.participants:
                    continue
                now = (found.status, found.turn, found.challenge)
                if seen.get(found.id) != now:
                    seen[found.id] = now
                    print(f"{found.id.hex()[:8]}: {found.status}, turn {found.turn}"
                          + (f", challenged until {found.challenge.deadline} by "
                             f"{'you' if found.challenge.challenger == signer.public_key else 'the opponent'}"
                             if found.challenge else ""), flush=True)  # fmt: skip
                    if args.defend and found.challenge and found.challenge.challenger != signer.public_key:
                        _defend(signer, chain, stored, found)
            time.sleep(args.poll)


def _defend(signer: Signer, chain: RestChain, stored: Store, found: Channel) -> None:
    terms = stored.channel(found.id)
    if terms is None:
        return
    match = Match(signer=signer, terms=terms, store=stored, chain=chain, connect=None,  # type: ignore[arg-type]
                  chooser=BotChooser("perfect"), say=say)  # fmt: skip
    match.defend_offline(found)
