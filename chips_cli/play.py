"""``chips play``, ``chips bot`` and ``chips watch``: one player's side of matches, and a watchtower.

Play and bot run :class:`chips_client.match.Match` on the REST API and the MQTT broker
(:mod:`client_core.broker`); the moves come from the person (a terminal or a pipe) or
from the computer. Watch follows the chain and, with ``--defend``, answers challenges
with the store's latest states, so it can run as a service while no match runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from chips_cli import context
from chips_client.asking import Chooser, Immediate
from chips_client.chain import RestChain
from chips_client.computer import Computer
from chips_client.match import Match, NotPlayable, Receiver
from chips_client.messages import client_id, topic
from chips_client.narration import Story, channel_line, grid, player, xo_prompt
from chips_client.store import Store
from chips_tp.channel import channel_id
from chips_tp.state import CLOSED, Channel
from client_core import session
from client_core.broker import BrokerSession
from client_core.errors import InvalidInput
from client_core.keys import KeyNames
from client_core.runner import sigterm_interrupts
from rps_tp.game import THROWS
from xo_core.signing import Signer
from xo_core.text import printable, quoted


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
        """The person's space (1-9) for ``mark`` on ``board``, drawn as ``xo play`` draws it; asked again at a
        terminal when it is not free."""
        while True:
            text = self._line(xo_prompt(board, mark))
            if text.isdigit() and 1 <= int(text) <= 9 and board[int(text) - 1] == "-":
                return int(text)
            if not self.interactive:
                raise InvalidInput(f"{printable(text)!r} is not a free space (1-9) on the board:\n{grid(board)}")
            print(f"{printable(text)!r} is not a free space: choose a number the board shows")

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
    return _run(args, Immediate(PersonChooser()))


def bot(args: argparse.Namespace) -> int:
    """``chips bot CHANNEL [--level L]``: the computer's side."""
    return _run(args, Immediate(Computer(args.level)))


def _connector(args: argparse.Namespace, client_id: str) -> Callable[[Receiver], BrokerSession]:
    """The match's transport: a persistent session on ``--broker`` with a client id stable per key and channel
    (:func:`chips_client.messages.client_id`), so what the peer sent while this player was away is waiting."""
    return lambda on_message: BrokerSession(args.broker, client_id, on_message)


def _run(args: argparse.Namespace, chooser: Chooser) -> int:
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
                      say=say, patience=args.patience, names=names)  # fmt: skip
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
    """``chips watch [--defend]``: print changes of this player's channels; with --defend, answer challenges."""
    signer = context.signer(args)
    seen: dict[bytes, tuple] = {}
    names = session.key_names(args)
    with context.chain(args, signer) as chain, context.store(args, signer.public_key) as stored, sigterm_interrupts():
        while True:
            for found in chain.channels():
                if signer.public_key not in found.fixed.participants:
                    continue
                now = (found.status, found.turn, found.challenge)
                if seen.get(found.id) != now:
                    seen[found.id] = now
                    say(channel_line(found, stored_name(stored, found), signer.public_key, names, time.time()))
                    if args.defend and found.challenge and found.challenge.challenger != signer.public_key:
                        _defend(signer, chain, stored, found, names)
            time.sleep(args.poll)


def stored_name(stored: Store, found: Channel) -> str | None:
    """The name the player's store knows ``found``'s channel by, if it knows it."""
    terms = stored.channel(found.id)
    return None if terms is None else terms.name


def _defend(signer: Signer, chain: RestChain, stored: Store, found: Channel, names: KeyNames) -> None:
    terms = stored.channel(found.id)
    if terms is None:
        return
    match = Match(signer=signer, terms=terms, store=stored, chain=chain, connect=None,
                  chooser=Immediate(Computer("perfect")), say=say, names=names)  # fmt: skip
    match.defend_offline(found)
