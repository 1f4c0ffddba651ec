"""``xo ratings`` against ``xo-devnet``: a scripted set of XO, rps and staked games gives the table worked out here.

The expected table is computed in the test, game by game, with openskill's own
``PlackettLuce().rate`` (not :mod:`client_core.ratings`): what the command reads off the
chain (outcomes, seats, the order of the games, what a closed channel counts as) is what
is checked. Each game is one batch, waited for, so the games finish in the order played.
Then a second reader with a cache of its own prints the same bytes, and a reader that
resumes from its cache after more games prints what a fresh one does. One devnet serves
the module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from chips_client import transactions as chips_tx
from chips_tp import rps_app
from chips_tp.channel import RPS, Fixed, channel_id
from chips_tp.channel_state import State
from client_core.rest import RestClient
from client_core.submission import submit
from rps_tp.family import FAMILY_NAME, FAMILY_VERSION, transaction_inputs, transaction_outputs
from rps_tp.game import DEFAULT_SETTINGS, Moment
from rps_tp.ops import Create, Join, Op, Ready, Resign
from rps_tp.payload import encode_payload
from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_transaction
from xo_core.keyfiles import load_signer, write_key_pair
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

WIN, LOSS, DRAW = [0, 1], [1, 0], [0, 0]
SETUP, FIRST_ROUND = Moment(0, "setup"), Moment(1, "commit")


class Chain:
    """Alice, Bob and Carol at one devnet; every game is one batch, waited for; ``played`` the results in order."""

    def __init__(self, devnet: DevnetProcess) -> None:
        self.url, self.key_dir = devnet.rest_url, devnet.key_dir
        self.client = RestClient(self.url)
        write_key_pair(self.key_dir, "carol", Signer.generate())
        self.keys = {name: load_signer(self.key_dir, name) for name in ("alice", "bob", "carol")}
        self.played: list[tuple[str, str, str, list[int]]] = []
        """``(family, first, second, ranks)`` of every rated game, in the order played."""

    def key(self, name: str) -> str:
        return self.keys[name].public_key

    def commit(self, transactions: list[Transaction], batcher: Signer) -> None:
        status = self.client.batch_status(submit(self.client, batcher, transactions), wait=60)
        assert status.status == "COMMITTED", status

    def xo(self, name: str, x: str, o: str, spaces: list[int], *, create: bool = True) -> None:
        """A whole XO game (created, unless it exists): ``x`` takes the odd moves, ``o`` the even ones."""
        batcher = self.keys[x]
        moves = [make_xo_transaction(batcher, name, "create")] if create else []
        for number, space in enumerate(spaces):
            mover = self.keys[x if number % 2 == 0 else o]
            moves.append(make_xo_transaction(mover, name, "take", space, batcher_public_key=batcher.public_key))
        self.commit(moves, batcher)

    def delete_xo(self, name: str) -> None:
        self.commit([make_xo_transaction(self.keys["alice"], name, "delete")], self.keys["alice"])

    def rps_resigned(self, name: str, host: str, resigner: str) -> None:
        """An rps game ``host`` creates, the other joins, both get ready, and ``resigner`` resigns."""
        other = "bob" if host == "alice" else "alice"
        ops: list[tuple[str, Op]] = [
            (host, Create(name)),
            (other, Join(name, SETUP)),
            (host, Ready(name, SETUP, DEFAULT_SETTINGS)),
            (other, Ready(name, SETUP, DEFAULT_SETTINGS)),
            (resigner, Resign(name, FIRST_ROUND)),
        ]
        batcher = self.keys[host]
        self.commit([rps_transaction(self.keys[who], op, batcher.public_key) for who, op in ops], batcher)

    def staked_rps(self, nonce: int, rounds: int, balances: tuple[int, int]) -> None:
        """Alice opens an rps channel with Bob (stake 10, 100 each), Bob joins, both sign a final state and conclude."""
        alice, bob = self.keys["alice"], self.keys["bob"]
        fixed = Fixed((alice.public_key, bob.public_key), RPS, 10, (100, 100), 3600, nonce)
        self.commit([chips_tx.open_channel(alice, fixed)], alice)
        self.commit([chips_tx.join(bob, fixed, 100)], bob)
        data = rps_app.INITIAL._replace(round=rounds)
        final = State(channel_id(fixed), 4 * rounds + 1, True, data, balances)
        self.commit([chips_tx.conclude(alice, fixed, chips_tx.signed_state(fixed, final, alice, bob))], alice)

    def ratings(self, cache: Path, *argv: str) -> str:
        command = [sys.executable, "-m", "xo_cli.main", "ratings", *argv, "--url", self.url, "--key-dir",
                   str(self.key_dir)]  # fmt: skip
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "XDG_CACHE_HOME": str(cache)},
        )
        assert done.returncode == 0, done.stderr
        return done.stdout


def rps_transaction(signer: Signer, op: Op, batcher: str) -> Transaction:
    return make_transaction(
        signer, encode_payload(op), family_name=FAMILY_NAME, family_version=FAMILY_VERSION,
        inputs=transaction_inputs(op.name), outputs=transaction_outputs(op.name), batcher_public_key=batcher,
    )  # fmt: skip


def by_hand(played: list[tuple[str, str, str, list[int]]], family: str | None = None) -> list[dict[str, object]]:
    """The table, worked out with openskill directly: one ``rate`` per game in the order played, then ranked."""
    model = PlackettLuce()
    ratings: dict[str, object] = {}
    counts: dict[str, list[int]] = {}
    for game, first, second, ranks in played:
        if family is not None and game != family:
            continue
        one, two = (ratings.get(key) or model.rating() for key in (first, second))
        [[ratings[first]], [ratings[second]]] = model.rate([[one], [two]], ranks=ranks)
        for key, mine in ((first, ranks), (second, ranks[::-1])):
            column = 2 if mine == DRAW else 0 if mine == WIN else 1
            counts.setdefault(key, [0, 0, 0])[column] += 1
    rows = [
        {"key": key, "rating": round(rating.mu, 6), "deviation": round(rating.sigma, 6),
         "ordinal": round(rating.mu - 3 * rating.sigma, 6), "games": sum(counts[key]), "wins": counts[key][0],
         "losses": counts[key][1], "draws": counts[key][2], "provisional": sum(counts[key]) < 5}
        for key, rating in ratings.items()
    ]  # fmt: skip
    rows.sort(key=lambda row: (-row["ordinal"], -row["rating"], row["key"]))
    return [{"rank": rank, **row} for rank, row in enumerate(rows, start=1)]


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chain]:
    log = tmp_path_factory.mktemp("ratings") / "devnet.log"
    with DevnetProcess(("--ephemeral",), log_path=log) as devnet:
        scripted = Chain(devnet)
        play_the_scripted_games(scripted)
        yield scripted


def play_the_scripted_games(chain: Chain) -> None:
    alice, bob, carol = (chain.key(name) for name in ("alice", "bob", "carol"))
    chain.xo("g1", "alice", "bob", [1, 4, 2, 5, 3])  # a row of X: alice (player 1) wins
    chain.played.append(("xo", alice, bob, WIN))
    chain.xo("g2", "alice", "bob", [5, 1, 9, 3, 2, 8, 7, 4, 6])  # a full board, no line: a tie
    chain.played.append(("xo", alice, bob, DRAW))
    chain.xo("g3", "carol", "alice", [1, 4, 2, 5, 9, 6])  # a row of O: alice (player 2) beats carol
    chain.played.append(("xo", carol, alice, LOSS))
    chain.delete_xo("g1")
    chain.xo("g1", "bob", "carol", [1, 2, 4, 3, 7])  # the name again, a new game: bob wins a column
    chain.played.append(("xo", bob, carol, WIN))
    chain.xo("solo", "carol", "carol", [1, 4, 2, 5, 3])  # carol on both seats: no opponent, nothing counts
    chain.xo("open", "alice", "bob", [5, 1])  # not over: nothing counts
    chain.rps_resigned("r1", "alice", "bob")  # bob resigns: the host, alice, won
    chain.played.append(("rps", alice, bob, WIN))
    chain.rps_resigned("r2", "bob", "bob")  # the host resigns: a loss for the first player, bob
    chain.played.append(("rps", bob, alice, LOSS))
    chain.staked_rps(1, 3, (120, 80))  # alice two stakes up after 3 rounds: 2 wins, and 1 round a draw
    chain.played.extend([("chips", alice, bob, WIN), ("chips", alice, bob, WIN), ("chips", alice, bob, DRAW)])


def test_the_table_is_the_one_worked_out_by_hand_and_a_fresh_reader_prints_the_same_bytes(chain, tmp_path):
    first = chain.ratings(tmp_path / "one", "--json")
    table = json.loads(first)
    assert table["players"] == by_hand(chain.played)
    assert (table["game"], table["games"]) == ("all", len(chain.played))
    assert table["block"]["num"] == chain.client.head_block().block_num
    assert chain.ratings(tmp_path / "two", "--json") == first
    assert chain.ratings(tmp_path / "one", "--json") == first  # from the cache: nothing new to read
    people = chain.ratings(tmp_path / "one")
    assert people == chain.ratings(tmp_path / "three")
    heading, columns, *rows = people.splitlines()
    assert (
        heading
        == f"ratings as of block {table['block']['num']}: {len(chain.played)} XO, rps and staked games (openskill)"
    )
    assert columns.split() == ["RANK", "PLAYER", "SCORE", "RATING", "DEVIATION", "GAMES", "WINS", "LOSSES", "DRAWS"]
    best = table["players"][0]
    assert rows[0].split()[:5] == ["1", "alice", f"({best['key'][:6]}...)", f"{best['ordinal']:.2f}",
                                   f"{best['rating']:.2f}" + ("?" if best["provisional"] else "")]  # fmt: skip
    assert rows[-1].startswith("(ranked by SCORE = RATING - 3 * DEVIATION")


def test_one_family_and_the_top_players(chain, tmp_path):
    xo_only = json.loads(chain.ratings(tmp_path, "--json", "--game", "xo"))
    assert xo_only["players"] == by_hand(chain.played, "xo")
    staked = json.loads(chain.ratings(tmp_path, "--json", "--game", "chips", "--top", "1"))
    assert staked["games"] == 3
    assert [(row["key"], row["wins"], row["draws"]) for row in staked["players"]] == [(chain.key("alice"), 2, 1)]


def test_a_cached_reader_takes_only_the_new_games_and_agrees_with_a_fresh_one(chain, tmp_path):
    cached = tmp_path / "cached"
    chain.ratings(cached, "--json")
    chain.xo("late", "carol", "bob", [5, 1, 9, 3, 2, 8, 7, 4, 6])
    chain.played.append(("xo", chain.key("carol"), chain.key("bob"), DRAW))
    resumed = chain.ratings(cached, "--json")
    assert resumed == chain.ratings(tmp_path / "fresh", "--json")
    assert json.loads(resumed)["players"] == by_hand(chain.played)
