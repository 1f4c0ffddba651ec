"""How long ``xo ratings`` takes on a long chain: the first read, a read from the cache, and one after new games.

Starts its own ``xo-devnet --ephemeral``, plays ``--games`` whole XO games among
``--players`` keys (one batch a game: a create and its takes; X wins, O wins or a tie,
drawn by a seeded generator), then times ``xo ratings --json`` as a whole process
(interpreter start-up included):

- ``first_read_s``: an empty cache, so the chain is followed from its genesis block;
- ``cached_read_s``: again, nothing new on the chain (the median of ``--runs``);
- ``incremental_read_s``: after ``--more`` more games, which it reads alone.

The fresh and the cached reader must print the same bytes, and the table must count every
game played; anything else counts as an error. Prints one JSON line:

    python benchmarks/ratings_read.py --games 10000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from client_core.rest import RestClient
from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

ENDINGS = ([1, 4, 2, 5, 3], [1, 4, 2, 5, 9, 6], [5, 1, 9, 3, 2, 8, 7, 4, 6])
"""X wins a row, O wins a row, a tie."""
BATCHES_PER_POST = 100
POSTS_IN_FLIGHT = 10


def play(client: RestClient, players: list[Signer], games: int, first: int, rng: random.Random) -> None:
    """``games`` whole games, named from ``first`` on, a batch each; returns once the last has committed."""
    posted: list[str] = []
    for start in range(first, first + games, BATCHES_PER_POST):
        batches = []
        for number in range(start, min(start + BATCHES_PER_POST, first + games)):
            x, o = rng.sample(players, 2)
            name = f"game-{number}"
            moves = [make_xo_transaction(x, name, "create")]
            for turn, space in enumerate(rng.choice(ENDINGS)):
                mover = x if turn % 2 == 0 else o
                moves.append(make_xo_transaction(mover, name, "take", space, batcher_public_key=x.public_key))
            batches.append(make_batch(x, moves))
        client.submit_batches(make_batch_list(batches))
        posted.append(batches[-1].header_signature)
        if len(posted) >= POSTS_IN_FLIGHT:
            wait(client, posted.pop(0))
    for batch_id in posted:
        wait(client, batch_id)


def wait(client: RestClient, batch_id: str) -> None:
    status = client.batch_status(batch_id, wait=120)
    if status.status != "COMMITTED":
        raise SystemExit(f"ratings_read: a game's batch ended {status}")


def ratings(url: str, cache: Path) -> tuple[float, str]:
    """Seconds for ``xo ratings --json`` as a whole process, and what it printed."""
    command = [str(Path(sys.executable).parent / "xo"), "ratings", "--json", "--url", url]
    started = time.perf_counter()
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200, check=False, env=environment)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"ratings_read: xo ratings failed: {done.stderr.strip()}")
    return seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--more", type=int, default=100, help="games played before the incremental read")
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3, help="reads from the cache, for the median")
    parser.add_argument("--smoke", action="store_true", help="20 games, then 5 more: checks it still runs")
    options = parser.parse_args()
    if options.smoke:
        options.games, options.more, options.players, options.runs = 20, 5, 4, 1
    rng = random.Random(2026)
    players = [Signer.generate() for _ in range(options.players)]
    errors = 0
    with DevnetProcess() as devnet, tempfile.TemporaryDirectory() as caches:
        client = RestClient(devnet.rest_url)
        started = time.perf_counter()
        play(client, players, options.games, 0, rng)
        fill_s = time.perf_counter() - started
        cache, fresh = Path(caches) / "cache", Path(caches) / "fresh"
        first_s, first = ratings(devnet.rest_url, cache)
        cached = [ratings(devnet.rest_url, cache) for _ in range(options.runs)]
        errors += sum(printed != first for _, printed in cached)
        errors += json.loads(first)["games"] != options.games
        play(client, players, options.more, options.games, rng)
        incremental_s, incremental = ratings(devnet.rest_url, cache)
        errors += incremental != ratings(devnet.rest_url, fresh)[1]
        errors += json.loads(incremental)["games"] != options.games + options.more
        blocks = client.head_block().block_num
    print(json.dumps({
        "games": options.games,
        "players": options.players,
        "blocks": blocks,
        "fill_s": round(fill_s, 1),
        "first_read_s": round(first_s, 3),
        "cached_read_s": round(statistics.median(seconds for seconds, _ in cached), 3),
        "incremental_read_s": round(incremental_s, 3),
        "more_games": options.more,
        "errors": errors,
    }))  # fmt: skip
    if errors:
        sys.exit(1)


if __name__ == "__main__":
    main()
