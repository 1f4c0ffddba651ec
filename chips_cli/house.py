"""A house: the matches a ``chips offer --bot LEVEL`` plays at once, from one process.

Each joined channel is played by the computer on a thread of its own, all of them through
one broker session (:class:`client_core.broker_hub.BrokerHub`), one store (shared by its
threads under its lock) and one reading of the chain (:class:`chips_client.shared_chain.SharedChain`),
each submitting on a REST connection of its own. A match that fails is said, with its
channel, and the others go on; the store keeps every state, so ``chips bot CHANNEL`` (or
``chips watch --defend``) takes any of them up again. A house is patient for a minute by default: an
accepter who walks away would otherwise hold its deposit, and keep it from ever ending, for good.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from typing import Final

from chips_cli import context
from chips_client.asking import Immediate
from chips_client.chain import RestChain
from chips_client.computer import Computer
from chips_client.match import CHAIN_RETRY_SECONDS, Match, NotPlayable
from chips_client.narration import player
from chips_client.shared_chain import MatchChain, SharedChain
from chips_client.store import ChannelTerms, Store
from chips_tp.state import Channel
from client_core import interruptible, session
from client_core.broker import BrokerError, BrokerSession, private_client_id
from client_core.broker_hub import BrokerHub
from client_core.errors import CommandError, TimedOut, Unavailable
from xo_core.signing import Signer
from xo_core.text import quoted, shell_word

HOUSE_PATIENCE_SECONDS: Final = 60.0
"""How long a house waits on an opponent who does not move before it challenges them, unless ``--patience`` says."""


def patience(args: argparse.Namespace) -> float:
    """The house's patience: ``--patience``, or HOUSE_PATIENCE_SECONDS (a person's ``chips play`` waits for ever)."""
    return HOUSE_PATIENCE_SECONDS if args.patience is None else float(args.patience)


class House:
    """The computer's matches of one key, played side by side."""

    def __init__(self, args: argparse.Namespace, signer: Signer, say: Callable[[str], None], stored: Store) -> None:
        self.args, self.signer, self.say, self.stored = args, signer, say, stored
        self.names = session.key_names(args)
        self._reader = session.rest_client(args)
        self.shared = SharedChain(RestChain(self._reader, None))
        client_id = private_client_id(signer, "chips-house", "hub")
        self.hub = BrokerHub(lambda on_message, on_reconnect: BrokerSession(
            args.broker, client_id, on_message, on_reconnect=on_reconnect, say=say,  # a broker away is waited for
        ))  # fmt: skip
        self.hub.connect(10.0)
        self._threads: list[threading.Thread] = []
        self.outcomes: dict[bytes, str] = {}

    def start(self, channel: Channel, name: str) -> None:
        """Play ``channel`` (recorded in the store as ``name``) on a thread of its own, from now on."""
        terms = ChannelTerms(name, channel.fixed, channel.fixed.nonce & 0xFF)
        joined = self.shared.stale()  # the join just committed: the match must not read the channel as still funding
        thread = threading.Thread(target=self._play, args=(channel, terms, joined), name=f"house-{name}", daemon=True)
        self._threads.append(thread)
        thread.start()

    def _play(self, channel: Channel, terms: ChannelTerms, joined: int) -> None:
        shown = f"{quoted(terms.name, None)} ({channel.id.hex()[:8]})"  # every accepter's first is named alike
        opponent = player(channel.fixed.participants[0], self.signer.public_key, self.names)
        retry = 0.0
        while True:
            try:
                match, outcome = self._match(channel, terms, shown, joined)
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

    def _match(self, channel: Channel, terms: ChannelTerms, shown: str, joined: int) -> tuple[Match, str]:
        """The computer's side of ``channel``, played to its end on a REST connection of its own."""
        with context.chain(self.args, self.signer) as own:
            match = Match(
                signer=self.signer, terms=terms, store=self.stored, chain=MatchChain(self.shared, own, joined),
                connect=self.hub.session_for, chooser=Immediate(Computer(self.args.bot)),
                say=lambda line: self.say(f"{shown}: {line}"), patience=patience(self.args), names=self.names,
            )  # fmt: skip
            return match, match.run()

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
        """Close the broker session and the shared reader; matches still playing stop at their next message."""
        self.hub.close()
        self._reader.close()
