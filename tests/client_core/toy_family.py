"""A family small enough to read at a glance, for the tests of the shared game book and watch.

A bucket is ``name=score`` pairs joined by ``;``; a game is over at 3 points. Its
changes carry the game after that change, as XO's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from client_core.blocks import BlockRef
from client_core.game_book import GameBook
from client_core.keys import KeyNames
from client_core.watching import WatchedFamily
from tests.client_core.scripted_ledger import PREFIX, address

WINNING_SCORE = 3


class Toy(NamedTuple):
    name: str
    score: int


class ToyChange(NamedTuple):
    kind: str
    name: str
    game: Toy | None


def encode(*games: Toy) -> bytes:
    return ";".join(f"{game.name}={game.score}" for game in games).encode()


def decode(where: str, data: bytes) -> tuple[list[Toy], list[str]]:
    try:
        pairs = [item.split("=") for item in data.decode().split(";")]
        return [Toy(name, int(score)) for name, score in pairs], []
    except ValueError:
        return [], [f"state at {where} is not toy data"]


def compare(before: Sequence[Toy], after: Sequence[Toy]) -> list[ToyChange]:
    old, new = {game.name: game for game in before}, {game.name: game for game in after}
    changes = []
    for name in sorted(old.keys() | new.keys()):
        if name not in new:
            changes.append(ToyChange("deleted", name, None))
        elif name not in old:
            changes.append(ToyChange("created", name, new[name]))
        elif old[name] != new[name]:
            changes.append(ToyChange("scored", name, new[name]))
    return changes


def is_over(change: ToyChange) -> bool:
    return change.game is None or change.game.score >= WINNING_SCORE


def line(block: BlockRef, change: ToyChange, names: KeyNames, you: str | None) -> str:
    score = "gone" if change.game is None else change.game.score
    return f"block {block.block_num}: {change.name} {change.kind}: {score}" + (f" (seen by {you})" if you else "")


TOY = WatchedFamily[Toy, ToyChange](
    tool="toy",
    namespace=PREFIX,
    game_address=address,
    impossible_name=lambda name: "a toy name has no '='" if "=" in name else None,
    book=lambda on_problem: GameBook(decode, compare, on_problem),
    snapshot=lambda name, game: ToyChange("snapshot", name, game),
    is_over=is_over,
    end_of_game=lambda changes: next((index for index, change in enumerate(changes) if is_over(change)), None),
    change_line=line,
    change_json=lambda block, change: f'{{"block": {block.block_num}, "name": "{change.name}"}}',
    waiting_line=lambda block, name, hint: f"block {block.block_num}: no {name} yet{hint}",
    card=lambda game, you, names: f"[{game.name}: {game.score}]",
    lobby_noun="every toy",
    recent_lines=2,
)
