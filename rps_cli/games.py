"""rps games as the client reads them from state.

Reading is lenient where the processor is strict: data at an address that is not an
rps bucket is the chain's problem, reported, and does not stop ``rps list`` from
showing every other game. The checks made before an op is signed are in
:mod:`rps_cli.checks`, apart, so that ``rps show`` and ``rps list`` never load the rules.
"""

from __future__ import annotations

from rps_tp.game import Game, name_problem
from rps_tp.state import CorruptState, decode_bucket


def decode_games(address: str, data: bytes) -> tuple[list[Game], list[str]]:
    """The games stored at ``address``, and a note if the data there is not a valid bucket (then no games)."""
    try:
        return list(decode_bucket(address, data).values()), []
    except CorruptState as problem:
        return [], [str(problem)]


def find_game(games: list[Game], name: str) -> Game | None:
    """The game called ``name`` among those sharing its address (names can collide on an address)."""
    return next((game for game in games if game.name == name), None)


def impossible_name(name: str) -> str | None:
    """Why no game can ever be called ``name``, if so: nothing to show, watch or play."""
    return name_problem(name)
