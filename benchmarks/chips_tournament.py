"""A tournament played by bots on xo-devnet: a 64-player Swiss of 6 rounds of XO, then an 8-player knockout.

Every player lives in this process on a thread of its own and runs what ``chips
tournament play --bot random`` runs: :class:`chips_client.tournament_play.TournamentPlay`,
each match through the real match loop (:class:`chips_client.match.Match`) on a broker
session of its own, every transaction on a REST connection of its own. Reads of the
tournament and its channels are shared: one listing at a time serves every player (as a
house shares its reads), so the ledger's REST API is not read 64 times a poll.

Measured per tournament: the wall time from the start to the payout, each round's time
(from the chain pairing it to the chain pairing the next) and the slowest, each round's
slowest match (from its player starting it to its channel's close), the chips
transactions committed per player (buy-in, start, results, advances, matches' concludes
and challenges) and those refused (a result or an advance another player sent first),
and whether the chips in accounts and pools are what was issued. Prints one JSON line per
tournament; exits 1 when one did not close or a chip went missing.

    python benchmarks/chips_tournament.py                  # 64-player Swiss of 6 rounds, 8-player knockout
    python benchmarks/chips_tournament.py --players 16 --rounds 4
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from chips_client import tournament_transactions as ttx
from chips_client import transactions as tx
from chips_client.asking import Immediate
from chips_client.chain import RestChain
from chips_client.computer import Computer
from chips_client.match import Match
from chips_client.store import ChannelTerms, Store
from chips_client.tournament_play import TournamentPlay
from chips_client.tournaments import match_address
from chips_tp.channel import channel_id
from chips_tp.family import ACCOUNT_TYPE, CHANNEL_TYPE, NAMESPACE, TOURNAMENT_TYPE, tournament_address
from chips_tp.state import Channel, decode_channel
from chips_tp.tournament import CLOSED, Tournament, match_fixed, match_games
from chips_tp.tournament_ops import Create
from chips_tp.tournament_state import decode_tournament
from client_core.broker import BrokerAddress, BrokerSession
from client_core.errors import Rejected
from client_core.rest import RestClient
from xo_core import canonical
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

BUY_IN = 10
ROUND_SECONDS = 120
TOURNAMENT_SECONDS = 900.0


class SharedReads:
    """The tournament and every channel, listed at most every ``every`` seconds, one listing serving every player."""

    def __init__(self, client: RestClient, name: str, every: float = 0.25) -> None:
        self.client, self.name, self.every = client, name, every
        self.lock = threading.Lock()
        self.read_at = float("-inf")
        self.record: Tournament | None = None
        self.channels: dict[str, Channel] = {}
        self.rounds_seen: dict[int | str, float] = {}
        """When each round (by number) was first seen paired, and the tournament closed ("closed")."""

    def refresh(self) -> None:
        with self.lock:
            if time.monotonic() - self.read_at < self.every:
                return
            data = self.client.get_state(tournament_address(self.name))
            self.record = decode_tournament(tournament_address(self.name), data) if data else None
            self.channels = {a: c for a, d in self.client.list_state(NAMESPACE + CHANNEL_TYPE)
                             if (c := decode_channel(a, d)) is not None}  # fmt: skip
            self.read_at = time.monotonic()
            if self.record is not None and self.record.round:
                key = CLOSED if self.record.status == CLOSED else self.record.round
                self.rounds_seen.setdefault(key, time.monotonic())

    def tournament(self, name: str) -> Tournament | None:
        self.refresh()
        return self.record

    def match(self, tournament: Tournament, board: int) -> Channel | None:
        self.refresh()
        return self.channels.get(match_address(tournament, board))

    def channel(self, address: str) -> Channel | None:
        self.refresh()
        return self.channels.get(address)


class PlayerChain:
    """One player's chain: shared reads, its own submissions (counted, refusals too)."""

    def __init__(self, reads: SharedReads, own: RestChain) -> None:
        self.reads, self.own = reads, own
        self.committed = 0
        self.refusals: list[str] = []
        self.matches: list[tuple[int, float]] = []
        """(round, seconds) of each match this player played to its close."""
        self.submitted = False

    def channel(self, address: str) -> Channel | None:
        """The shared listing's record, but the chain's own right after this player submitted (so a match whose
        conclude was refused because the opponent's landed first sees the channel closed)."""
        if self.submitted:
            self.submitted = False
            return self.own.channel(address)
        return self.reads.channel(address)

    def submit(self, transaction: Transaction, what: str) -> None:
        self.submitted = True
        try:
            self.own.submit(transaction, what)
        except Rejected as error:
            self.refusals.append(error.message[:200])
            raise
        self.committed += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=64, help="the Swiss's players (default 64)")
    parser.add_argument("--rounds", type=int, default=6, help="the Swiss's rounds (default 6)")
    parser.add_argument("--knockout", type=int, default=8, help="the knockout's players (default 8)")
    parser.add_argument("--smoke", action="store_true", help="4 players, 2 rounds, and a knockout of 4")
    args = parser.parse_args()
    if args.smoke:
        args.players, args.rounds, args.knockout = 4, 2, 4
    errors = 0
    with (
        tempfile.TemporaryDirectory(prefix="chips-tournament-") as work,
        DevnetProcess(("--ephemeral", "--min-challenge", "1"), log_path=Path(work) / "devnet.log") as devnet,
    ):
        for name, fmt, count, rounds in (("swiss", "swiss", args.players, args.rounds),
                                         ("knockout", "knockout", args.knockout, 0)):  # fmt: skip
            result = run(devnet, Path(work) / name, name, fmt, count, rounds)
            print(json.dumps(result), flush=True)
            errors += int(result["errors"])  # type: ignore[call-overload]
    return 1 if errors else 0


def run(devnet: DevnetProcess, work: Path, name: str, fmt: str, count: int, rounds: int) -> dict[str, object]:
    """One tournament of ``count`` bots, from create to payout; its figures."""
    work.mkdir(parents=True)
    broker = BrokerAddress.parse(str(devnet.ready["broker_url"]), {})
    players = [Signer.generate() for _ in range(count)]
    with RestClient(devnet.rest_url) as client:
        issuer = RestChain(client, Signer.from_hex((devnet.key_dir / "chips-issuer.priv").read_text()))
        issuer.submit_all([tx.issue(issuer.signer, p.public_key, BUY_IN) for p in players], "the issue")  # type: ignore[arg-type]
        organiser = RestChain(client, players[0])
        op = Create(name, "xo", fmt, rounds, BUY_IN, (2, count), 600, ROUND_SECONDS, (60, 30, 10))
        organiser.submit(ttx.create(players[0], op), "the create")
        issued = total_chips(client)
    with ThreadPoolExecutor(16) as pool:  # every player joins on a connection of its own, at once
        list(pool.map(lambda p: enter(devnet.rest_url, p, name), players))
    with RestClient(devnet.rest_url) as reader, Store(work / "players.sqlite") as store:
        reads = SharedReads(reader, name)
        chains: list[PlayerChain] = []
        finals: list[Tournament] = []
        failures: list[str] = []
        started = time.monotonic()

        def take_part(signer: Signer) -> None:
            with RestClient(devnet.rest_url) as own:
                chain = PlayerChain(reads, RestChain(own, signer))
                chains.append(chain)
                play = TournamentPlay(name=name, signer=signer, reader=reads, submit=chain.submit,
                                      play_match=lambda t, board: play_match(t, board, signer, chain, store, broker),
                                      say=lambda _line: None)  # fmt: skip
                try:
                    finals.append(play.run(time_limit=TOURNAMENT_SECONDS))
                except Exception as error:  # a benchmark counts a player that failed, it does not stop
                    failures.append(f"{type(error).__name__}: {error}")

        threads = [threading.Thread(target=take_part, args=(p,)) for p in players]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(TOURNAMENT_SECONDS + 60)
        wall = time.monotonic() - started
    with RestClient(devnet.rest_url) as client:
        conserved = total_chips(client) == issued
        data = client.get_state(tournament_address(name))
    final = decode_tournament(tournament_address(name), data or b"")
    closed = final is not None and final.status == CLOSED
    seen = sorted((k, v) for k, v in reads.rounds_seen.items() if isinstance(k, int))
    ends = [*(v for _k, v in seen[1:]), reads.rounds_seen.get(CLOSED, time.monotonic())]
    round_seconds = [round(end - begin, 1) for (_k, begin), end in zip(seen, ends, strict=True)]
    committed, refused = sum(c.committed for c in chains), sum(len(c.refusals) for c in chains)
    # each round's slowest match, from its player starting it to the channel's close
    played = [(number, seconds) for c in chains for number, seconds in c.matches]
    slowest = [round(max((s for r, s in played if r == n), default=0), 1) for n in range(1, len(round_seconds) + 1)]
    matches = 0 if final is None else sum(1 for r in final.pairings for p in r if p.black is not None)
    return {
        "benchmark": "chips_tournament", "format": fmt, "players": count,
        "rounds": 0 if final is None else final.round, "matches": matches, "closed": closed,
        "chips_conserved": conserved, "seconds": round(wall, 1), "round_seconds": round_seconds,
        "slowest_round_seconds": max(round_seconds, default=0),
        "slowest_match_seconds": slowest,
        # one buy-in each, then what the players sent while playing: start, results, advances, concludes
        "transactions_per_player": round((count + committed) / count, 2),
        "refused_per_player": round(refused / count, 2),
        "payout": None if final is None or final.payout is None else [paid for _key, paid in final.payout],
        "errors": (not closed) + (not conserved) + len(failures),
        **({"failures": failures[:5]} if failures else {}),
        **({"refusals": [m for c in chains for m in c.refusals][:5]} if refused else {}),
    }  # fmt: skip


def enter(rest_url: str, signer: Signer, name: str) -> None:
    """``chips tournament join``: the buy-in paid."""
    with RestClient(rest_url) as client:
        RestChain(client, signer).submit(ttx.enter(signer, name, BUY_IN), "the join")


def play_match(tournament: Tournament, board: int, signer: Signer, chain: PlayerChain, store: Store,
               broker: BrokerAddress) -> bool:  # fmt: skip
    """The player's match of ``board`` in the round in play, by the computer at random; whether the channel closed."""
    fixed = match_fixed(tournament, tournament.round, board)
    terms = ChannelTerms(
        f"{tournament.name} {tournament.round}/{board}",
        fixed,
        match_games(tournament.game, tournament.first_to),
    )
    ident = f"bench-tournament-{signer.public_key[2:14]}-{channel_id(fixed).hex()[:8]}"
    match = Match(
        signer=signer, terms=terms, store=store, chain=chain, chooser=Immediate(Computer("random")),
        connect=lambda receive, again: BrokerSession(broker, ident, receive, on_reconnect=again, persistent=False),
        say=lambda _line: None, patience=tournament.duration,
    )  # fmt: skip
    left = (tournament.round_ends or 0) - time.time()
    began = time.monotonic()
    try:
        match.run(time_limit=max(left, 1.0) + 2.0)
    except TimeoutError:
        return False
    chain.matches.append((tournament.round, time.monotonic() - began))
    return True


def total_chips(client: RestClient) -> int:
    """Every account's balance and every tournament's pool (a tournament's channels hold points, not chips)."""
    total = sum(int(canonical.decode(data, "an account")["balance"])
                for _address, data in client.list_state(NAMESPACE + ACCOUNT_TYPE))  # fmt: skip
    for address, data in client.list_state(NAMESPACE + TOURNAMENT_TYPE):
        found = decode_tournament(address, data)
        total += 0 if found is None else found.pool
    return total


if __name__ == "__main__":
    sys.exit(main())
