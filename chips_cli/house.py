"""A house: the matches a ``chips offer --bot LEVEL`` plays at once, from one process.

Each joined channel is played by the computer on a thread of its own, all of them through
one broker session (:class:`client_core.broker_hub.BrokerHub`), one store (shared by its
threads under its lock) and the channel records the ledger's events keep current
(:class:`chips_client.channel_feed.ChannelFeed`): a block that changes a channel wakes its
match, which otherwise sleeps a second between looks at its clocks. The matches submit
through a few REST connections taken in turn (:class:`chips_client.shared_chain.ChainPool`).
A match that fails is said, with its
channel, and the others go on; the store keeps every state, so ``chips bot CHANNEL`` (or
``chips watch --defend``) takes any of them up again. A house is patient for a minute by default: an
accepter who walks away would otherwise hold its deposit, and keep it from ever ending, for good.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Final

from chips_cli import context
from chips_client.asking import Immediate
from chips_client.chain import RestChain
from chips_client.channel_feed import ChannelBook
from chips_client.channels import address_of
from chips_client.computer import Computer
from chips_client.match import CHAIN_RETRY_SECONDS, Match, NotPlayable
from chips_client.narration import player
from chips_client.shared_chain import ChainPool, MatchChain
from chips_client.store import ChannelTerms, Store
from chips_tp.state import Channel
from client_core import interruptible
from client_core.broker import BrokerError, BrokerSession, private_client_id
from client_core.broker_hub import BrokerHub
from client_core.caller import Caller
from client_core.errors import CommandError, TimedOut, Unavailable
from xo_core.signing import Signer
from xo_core.text import quoted, shell_word

#: REST connections a house's matches submit through (each holds one until its commit).
POOL_SIZE: Final = 16
#: How long a house's match sleeps when nothing wakes it (a message, a block changing its channel).
HOUSE_PASS_SECONDS: Final = 1.0
#: A thread's stack: a match needs little, and a thousand of them at the default would reserve gigabytes.
STACK_BYTES: Final = 512 * 1024

#: How late the house's pulse may wake (seconds, smoothed) before it starts no more matches: its matches come first.
BEHIND_SECONDS: Final = 0.25
#: How far behind the broker may be (seconds to acknowledge a message, smoothed) before the house starts no more.
BROKER_BEHIND_SECONDS: Final = 0.5
#: Matches started at once at most (a block's joins), and joins awaiting their commit at most.
START_BURST: Final = 100

HOUSE_PATIENCE_SECONDS: Final = 60.0
"""How long a house waits on an opponent who does not move before it challenges them, unless ``--patience`` says."""


def patience(playing: context.Playing) -> float:
    """The house's patience: ``--patience``, or HOUSE_PATIENCE_SECONDS (a person's ``chips play`` waits for ever)."""
    return HOUSE_PATIENCE_SECONDS if playing.patience is None else float(playing.patience)


class Pulse:
    """How far behind the process runs: a thread that sleeps a tenth of a second and notes how late it wakes.

    When a house's matches (or anything else on the machine) keep the interpreter busy, every thread waits its turn,
    and so does this one: its lateness, smoothed, is how long a message waits before its match reads it."""

    EVERY: Final = 0.1

    def __init__(self) -> None:
        self.late = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="house-pulse", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            started = time.monotonic()
            if self._stop.wait(self.EVERY):
                return
            self.late = 0.7 * self.late + 0.3 * max(0.0, time.monotonic() - started - self.EVERY)

    def stop(self) -> None:
        self._stop.set()


class House:
    """The computer's matches of one key, played side by side."""

    def __init__(self, caller: Caller, playing: context.Playing, signer: Signer, *, say: Callable[[str], None],
                 stored: Store, feed: ChannelBook) -> None:  # fmt: skip
        self.playing_as, self.signer, self.say, self.stored, self.feed = playing, signer, say, stored, feed
        self.names = caller.who.key_names()
        wait = context.wait_seconds(playing.wait)
        self._chains = [RestChain(caller.where.rest_client(), signer, wait) for _ in range(POOL_SIZE)]
        self.pool = ChainPool(self._chains)
        client_id = private_client_id(signer, "chips-house", "hub")
        self.hub = BrokerHub(lambda on_message, on_reconnect: BrokerSession(
            playing.broker, client_id, on_message, on_reconnect=on_reconnect, say=say,  # a broker away is waited for
        ))  # fmt: skip
        self.hub.connect(10.0)
        self.computer = Computer(playing.level).ready()
        self.pulse = Pulse()
        self._threads: list[threading.Thread] = []
        self._playing: dict[str, Match] = {}
        self._lock = threading.Lock()
        self.outcomes: dict[bytes, str] = {}
        feed.listen(self._changed)

    def start(self, channel: Channel, name: str) -> None:
        """Play ``channel`` (recorded in the store as ``name``, its join seen in the feed) on a thread of its own."""
        terms = ChannelTerms(name, channel.fixed, channel.fixed.nonce & 0xFF)
        previous = threading.stack_size(STACK_BYTES)
        try:
            thread = threading.Thread(target=self._play, args=(channel, terms), name=f"house-{name}", daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
        self._threads.append(thread)

    def admits(self, pending: int) -> int:
        """How many more matches may start now, with ``pending`` joins not yet committed: none while the house runs
        behind or its broker does (its running matches come first), and at most START_BURST joins in flight."""
        if self.pulse.late > BEHIND_SECONDS or self.hub.lag > BROKER_BEHIND_SECONDS:
            return 0
        return max(0, START_BURST - pending)

    def _changed(self, channels: list[Channel]) -> None:
        """On the feed's thread: wake the matches whose channels a block changed."""
        with self._lock:
            woken = [self._playing.get(address_of(channel.fixed)) for channel in channels]
        for match in woken:
            if match is not None:
                match.wake()

    def _play(self, channel: Channel, terms: ChannelTerms) -> None:
        shown = f"{quoted(terms.name, None)} ({channel.id.hex()[:8]})"  # every accepter's first is named alike
        opponent = player(channel.fixed.participants[0], self.signer.public_key, self.names)
        retry = 0.0
        while True:
            try:
                match, outcome = self._match(channel, terms, shown)
            except BrokerError as error:
                self._stopped(channel, terms.name, opponent, error)
                return
            except (Unavailable, TimedOut) as error:  # only the match's start gives up on the chain: start it again
                if not retry:
                    self.say(f"{shown}: {error.message}; retrying")
                retry = min(max(2 * retry, CHAIN_RETRY_SECONDS[0]), CHAIN_RETRY_SECONDS[1])
                time.sleep(retry)
                continue
            except (CommandError, NotPlayable) as error:
                self._stopped(channel, terms.name, opponent, error)
                return
            self.outcomes[channel.id] = outcome
            self.say(f"{shown} against {opponent}: {outcome}{match.story.ending(outcome)}")
            return

    def _match(self, channel: Channel, terms: ChannelTerms, shown: str) -> tuple[Match, str]:
        """The computer's side of ``channel``, played to its end, woken by the blocks that change it."""
        match = Match(
            signer=self.signer, terms=terms, store=self.stored, chain=MatchChain(self.feed, self.pool),
            connect=self.hub.session_for, chooser=Immediate(self.computer),
            say=lambda line: self.say(f"{shown}: {line}"), patience=patience(self.playing_as), names=self.names,
            pass_seconds=HOUSE_PASS_SECONDS,
        )  # fmt: skip
        address = address_of(channel.fixed)
        with self._lock:
            self._playing[address] = match
        try:
            return match, match.run()
        finally:
            with self._lock:
                self._playing.pop(address, None)

    def _stopped(self, channel: Channel, name: str, opponent: str, error: Exception) -> None:
        self.outcomes[channel.id] = "failed"
        self.say(f"{quoted(name, None)} ({channel.id.hex()[:8]}) against {opponent} stopped: {error}; "
                 f"'chips bot {shell_word(name)}' takes it up again")  # fmt: skip

    @property
    def playing(self) -> int:
        """How many matches are being played now."""
        return sum(thread.is_alive() for thread in self._threads)

    @property
    def unfinished(self) -> list[str]:
        """The names of the channels whose matches are still being played."""
        return [thread.name.removeprefix("house-") for thread in self._threads if thread.is_alive()]

    def wait(self, timeout: float | None = None) -> None:
        """Until every match started has ended (or ``timeout`` seconds for each)."""
        for thread in self._threads:
            interruptible.join(thread, timeout)

    def close(self) -> None:
        """Close the broker session and the REST connections; matches still playing stop at their next message."""
        self.feed.unlisten(self._changed)
        self.pulse.stop()
        self.hub.close()
        for chain in self._chains:
            chain.client.close()
