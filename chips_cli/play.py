"""``chips play``, ``chips bot`` and ``chips watch``: one player's side of matches, and a watchtower.

Play and bot run :class:`chips_client.match.Match` on the REST API and the MQTT broker
(:mod:`client_core.broker`), the channel's record followed through the ledger's events
(:class:`chips_client.channel_feed.ChannelFeed`); the moves come from the person (a terminal or a pipe) or
from the computer. Watch follows the chain and, with ``--defend``, answers challenges
with the store's latest states, so it can run as a service while no match runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from chips_cli import context
from chips_cli.terminal import PersonChooser
from chips_client.asking import Chooser, Immediate
from chips_client.chain import RestChain
from chips_client.channel_feed import ChannelFeed
from chips_client.computer import Computer
from chips_client.match import CHAIN_RETRY_SECONDS, Connector, Match, NotPlayable
from chips_client.messages import client_id, topic
from chips_client.narration import Story, channel_line, player
from chips_client.shared_chain import MatchChain
from chips_client.store import Store
from chips_tp.channel import channel_id
from chips_tp.state import CLOSED, Channel
from client_core import session
from client_core.broker import BrokerError, BrokerSession
from client_core.errors import InvalidInput, TimedOut, Unavailable
from client_core.keys import KeyNames
from client_core.runner import sigterm_interrupts
from xo_core.signing import Signer
from xo_core.text import printable, quoted

T = TypeVar("T")


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
        found, terms = context.locate(patiently(chain.channels), args.channel, signer.public_key, stored)
        names = session.key_names(args)
        shown = quoted(terms.name, None)
        if found.status == CLOSED:
            story = Story(found.fixed, terms.rounds, signer.public_key, names)
            print(f"channel {shown} is closed already: {story.status(found, time.time())}")
            return 0
        ident = channel_id(found.fixed).hex()
        connect = _connector(args, client_id(signer, channel_id(found.fixed)))
        with session.rest_client(args) as reader:
            feed = ChannelFeed(reader, context.address(found), say=say)
            patiently(feed.start)
            match = Match(signer=signer, terms=terms, store=stored, chain=MatchChain(feed, chain), connect=connect,
                          chooser=chooser, say=say, patience=args.patience, names=names, stand_in=stand_in)  # fmt: skip
            feed.listen(lambda _changed: match.wake())
            say(f"playing channel {shown} ({ident[:8]}) as {player(signer.public_key, None, names)} against "
                f"{match.opponent}; messages on {topic(found.id, signer.public_key)}")  # fmt: skip
            try:
                with sigterm_interrupts():
                    outcome = match.run()
            except NotPlayable as error:
                raise InvalidInput(str(error)) from None
            finally:
                feed.stop()
        record = patiently(lambda: chain.channel(context.address(found)))
    paid = record.payout if record is not None and record.payout else (0, 0)
    say(f"channel {shown} {outcome}: paid {match.story.balances(paid)}{match.story.ending(outcome)}")
    return 0


def patiently(read: Callable[[], T], sleep: Callable[[float], None] = time.sleep) -> T:
    """What ``read`` reads from the chain, waiting for a REST API out of reach (said once, tried again with a backoff
    doubling to 5 s): a ``chips play`` or ``bot`` started while the ledger is away waits for it, as mid-match."""
    retry, lost = 0.0, False
    while True:
        try:
            value = read()
        except (Unavailable, TimedOut) as error:
            if isinstance(error, BrokerError):
                raise
            retry = min(max(2 * retry, CHAIN_RETRY_SECONDS[0]), CHAIN_RETRY_SECONDS[1])
            if not lost:
                say(f"{error.message}; retrying")
            lost = True
            sleep(retry)
            continue
        if lost:
            say("the REST API answers again")
        return value


def say(line: str) -> None:
    """Print one line made safe for a terminal (it may hold names other players chose) and flush it at once; written
    whole, so a house's matches saying lines at once never run into each other."""
    sys.stdout.write(printable(line, escape_backslashes=False) + "\n")
    sys.stdout.flush()


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
