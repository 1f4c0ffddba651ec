"""``chips play``, ``chips bot`` and ``chips watch``: one player's side of matches, and a watchtower.

Play and bot run :class:`chips_client.match.Match` on the REST API and the MQTT broker
(:mod:`client_core.broker`), the channel's record followed through the ledger's events
(:class:`chips_client.channel_feed.ChannelFeed`); the moves come from the person (a terminal or a pipe) or
from the computer. Watch follows the chain and, with ``--defend``, answers challenges
with the store's latest states, so it can run as a service while no match runs.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from chips_cli import context
from chips_cli.terminal import PersonChooser
from chips_client.asking import Chooser, Immediate
from chips_client.chain import RestChain
from chips_client.channel_feed import CHANNELS, ChannelFeed
from chips_client.computer import Computer
from chips_client.match import CHAIN_RETRY_SECONDS, Connector, Match, NotPlayable
from chips_client.messages import client_id, topic
from chips_client.narration import Story, channel_line, player
from chips_client.next_steps import Commands, commands, left_lines
from chips_client.shared_chain import MatchChain
from chips_client.store import Store
from chips_tp.apps import APPS
from chips_tp.channel import channel_id
from chips_tp.channel_state import decode_state
from chips_tp.state import CLOSED, Channel
from client_core.broker import BrokerAddress, BrokerError, BrokerSession
from client_core.caller import Caller, Where, Who
from client_core.errors import (
    INTERRUPTED,
    TERMINATED,
    CommandError,
    InvalidInput,
    TerminateRequest,
    TimedOut,
    Unavailable,
)
from client_core.keys import KeyNames
from client_core.runner import sigterm_interrupts
from xo_core.signing import Signer
from xo_core.text import printable, quoted, shell_word

T = TypeVar("T")


def play(args: argparse.Namespace) -> int:
    """``chips play CHANNEL``: the person's side; the computer answers a challenge for them at half the time left,
    unless ``--no-auto-respond``."""
    return play_channel(Caller.of(args), context.Playing.of(args, None), args.channel)


def bot(args: argparse.Namespace) -> int:
    """``chips bot CHANNEL [--level L]``: the computer's side."""
    return play_channel(Caller.of(args), context.Playing.of(args, args.level), args.channel)


def play_channel(caller: Caller, playing: context.Playing, channel: str) -> int:
    """One side of ``channel`` (a name or an id) played to its end: the computer's at ``playing.level``, else the
    person's, the computer answering a challenge for them unless ``playing`` says not to."""
    if playing.level:
        return _run(caller, playing, channel, Immediate(Computer(playing.level)), None)
    return _run(caller, playing, channel, PersonChooser(), Computer("perfect") if playing.auto_respond else None)


def _connector(broker: BrokerAddress, client_id: str) -> Connector:
    """The match's transport: a persistent session on ``--broker`` with a client id stable per key and channel
    (:func:`chips_client.messages.client_id`), so what the peer sent while this player was away is waiting; after a
    reconnection the match publishes its latest state again. It never gives up on a broker that is away (at the
    start too), and says so once, then when it is back."""
    return lambda on_message, on_reconnect: BrokerSession(broker, client_id, on_message,
                                                          on_reconnect=on_reconnect, say=say)  # fmt: skip


def _run(caller: Caller, playing: context.Playing, channel: str, chooser: Chooser, stand_in: Computer | None) -> int:
    signer = context.signer(caller.who)
    chained = context.chain(caller.where, signer, playing.wait)
    with chained as chain, context.store(caller.who, signer.public_key) as stored:
        found, terms = context.locate(patiently(chain.channels), channel, signer.public_key, stored)
        names = caller.who.key_names()
        shown = quoted(terms.name, None)
        if found.status == CLOSED:
            story = Story(found.fixed, terms.rounds, signer.public_key, names)
            print(f"channel {shown} is closed already: {story.status(found, time.time())}")
            return 0
        ident = channel_id(found.fixed).hex()
        connect = _connector(playing.broker, client_id(signer, channel_id(found.fixed)))
        with context.followed(caller.where, context.address(found), say) as feed:
            if feed is not None:
                patiently(feed.start)
            watched = chain if feed is None else MatchChain(feed, chain)
            match = Match(signer=signer, terms=terms, store=stored, chain=watched, connect=connect, chooser=chooser,
                          say=say, patience=playing.patience, names=names, stand_in=stand_in)  # fmt: skip
            if feed is not None:
                feed.listen(lambda _changed: match.wake())
            try:
                say(f"playing channel {shown} ({ident[:8]}) as {player(signer.public_key, None, names)} against "
                    f"{match.opponent}; messages on {topic(found.id, signer.public_key)}")  # fmt: skip
                with sigterm_interrupts():
                    outcome = match.run()
            except NotPlayable as error:
                raise InvalidInput(str(error)) from None
            except KeyboardInterrupt as interrupt:
                said = functools.partial(said_commands, caller.who, playing)
                return _left(said, chain, match, found, interrupt)
        record = patiently(lambda: chain.channel(context.address(found)))
    paid = record.payout if record is not None and record.payout else (0, 0)
    say(f"channel {shown} {outcome}: paid {match.story.balances(paid)}{match.story.ending(outcome)}")
    return 0


def _left(said: Callable[[str], Commands], chain: RestChain, match: Match, found: Channel,
          interrupt: KeyboardInterrupt) -> int:  # fmt: skip
    """A player who left the match (Ctrl-C, SIGTERM) is told where it stands, what is at stake and due by when, and
    the command that goes on with it; the exit code says which signal it was (130, 143), with no error line."""
    terminated = isinstance(interrupt, TerminateRequest)
    record = None
    for _attempt in (1, 2):  # a request the interrupt cut short leaves a connection to drop: the second is afresh
        try:
            with sigterm_interrupts():
                record = chain.channel(context.address(found))
            break
        except CommandError:  # the chain out of reach: said without its record
            chain.client.close()
        except KeyboardInterrupt:  # a second Ctrl-C: said at once, without its record
            break
    latest = None if match.channel is None else match.channel.latest.state
    if latest is None and record is not None and record.state is not None:  # left before the match loaded it
        latest = decode_state(record.state, APPS[record.fixed.app].decode)
    name = match.terms.name
    for line in left_lines(match.story, record, latest, how="SIGTERM" if terminated else "Ctrl-C", name=name,
                           said=said(name), now=time.time()):  # fmt: skip
        say(line)
    return TERMINATED if terminated else INTERRUPTED


def said_commands(who: Who, playing: context.Playing, name: str) -> Commands:
    """The commands suggested for the channel ``name`` (:func:`chips_cli.context.player_flags`); the computer's side is
    resumed by ``chips bot``, a person's by ``chips play``."""
    return commands(shell_word(name), context.player_flags(who), "bot" if playing.level else "play")


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
    caller = Caller.of(args)
    signer = context.signer(caller.who)
    said = "answering every challenge against you with the latest state in your store" if args.defend else (
        "printing each change; with --defend it would answer challenges against you")  # fmt: skip
    say(f"watching your channels on the chain every {args.poll:g} s, {said}; Ctrl-C stops")
    try:
        chained, kept = context.chain(caller.where, signer, None), context.store(caller.who, signer.public_key)
        with chained as chain, kept as stored, sigterm_interrupts():
            _watch(caller.where, signer, chain, stored, caller.who.key_names(), defend=args.defend, poll=args.poll)
    except KeyboardInterrupt as interrupt:
        terminated = isinstance(interrupt, TerminateRequest)
        say(f"stopped watching ({'SIGTERM' if terminated else 'Ctrl-C'})" + (
            ": challenges against you are no longer answered" if args.defend else ""))  # fmt: skip
        return TERMINATED if terminated else INTERRUPTED
    return 0


def _watch(where: Where, signer: Signer, chain: RestChain, stored: Store, names: KeyNames, *, defend: bool,
           poll: float) -> None:  # fmt: skip
    """Watch until interrupted: each change of the player's channels said, challenges answered with ``defend``.
    The channels are followed through the ledger's events, looked at as each block comes (at least every ``poll``
    seconds, when the REST API is also asked whether it is there, and says so once if not: the follower's own
    notices are left unsaid); without a feed (a command's test), read every ``poll`` seconds."""
    with context.followed(where, CHANNELS, _unsaid) as feed:
        if feed is not None:
            patiently(feed.start)
        _watch_channels(signer, chain, stored, names, feed, defend=defend, poll=poll)


def _watch_channels(signer: Signer, chain: RestChain, stored: Store, names: KeyNames, feed: ChannelFeed | None, *,
                    defend: bool, poll: float) -> None:  # fmt: skip
    seen: dict[bytes, tuple] = {}
    towers: dict[bytes, Match] = {}
    retry, lost, first, woken = 0.0, False, True, True
    while True:
        block = -1 if feed is None else feed.block_num
        try:
            if not woken:  # no block for --poll seconds: a REST API away is said, as a read of it would
                chain.head()
            channels = chain.channels() if feed is None else feed.channels()
            if first and not any(signer.public_key in c.fixed.participants for c in channels):
                say("you take part in no channel yet: each one you open or join is said here")
            first = False
            for found in channels:
                if signer.public_key not in found.fixed.participants:
                    continue
                now = (found.status, found.turn, found.challenge)
                if seen.get(found.id) != now:
                    seen[found.id] = now
                    say(channel_line(found, stored_name(stored, found), signer.public_key, names, time.time()))
                if defend and found.challenge:  # against this player; or its own, which a newer state clears
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
        if feed is None:
            time.sleep(poll)
        else:
            woken = feed.reaches(block + 1, poll)  # the next block, or ``poll`` seconds


def _unsaid(_line: str) -> None:
    pass


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
