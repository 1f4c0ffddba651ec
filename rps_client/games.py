"""rps games as the client reads them from state.

Reading is lenient where the processor is strict: data at an address that is not an
rps bucket is the chain's problem, reported, and does not stop ``rps list`` from
showing every other game. The checks made before an op is signed are in
:mod:`rps_client.checks`, apart, so that ``rps show`` and ``rps list`` never load the rules.
"""

from __future__ import annotations

from client_core.errors import InvalidInput
from client_core.receipts import written_entry
from client_core.rest import RestClient
from client_core.runner import warn
from rps_client import turns
from rps_tp.family import game_address
from rps_tp.game import Game, moment_of, name_problem
from rps_tp.state import CorruptState, decode_bucket
from xo_core.text import game_label


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


def game_json(game: Game) -> dict[str, object]:
    """The object ``rps show --json`` prints, and each element of ``rps list --json``: a stable contract.

    State as the ledger holds it (commitments in hex), plus what is derived from it
    alone: ``phase`` (with ``round``, the moment an op on the game is signed for),
    ``next`` (who must do what) and ``claim`` (who may claim, from when).
    """
    claim = turns.claim(game)
    return {
        "name": game.name,
        "address": game_address(game.name),
        "state": game.state,
        "host": game.host,
        "settings": {"points": game.settings.points, "timeout": game.settings.timeout},
        "round": game.round,
        "phase": moment_of(game).phase,
        "players": [
            {
                "key": player.key,
                "ready": player.ready,
                "score": player.score,
                "committed": player.commitment is not None,
                "commitment": player.commitment.hex() if player.commitment is not None else None,
                "throw": player.throw,
            }
            for player in game.players
        ],
        "history": [list(throws) for throws in game.history],
        "waiting_since": game.waiting_since,
        "conclusion_type": game.conclusion_type,
        "results": (
            None
            if game.results is None
            else [
                {"key": player.key, "outcome": result.outcome, "final_score": result.final_score}
                for player, result in zip(game.players, game.results, strict=True)
            ]
        ),
        "next": [{"player": step.player, "action": step.action} for step in turns.next_steps(game)],
        "claim": None if claim is None else {"player": claim.claimant, "against": claim.laggard, "from": claim.at},
    }


def resulting_game(client: RestClient, transaction_id: str, name: str) -> tuple[bool, Game | None]:
    """``(True, game)`` as the committed transaction left it (``None`` once deleted); ``(False, None)`` if unknown.

    The op has committed whatever happens here, so a receipt that cannot be read is a
    warning, never the command's failure.
    """
    address = game_address(name)
    found, data = written_entry(client, transaction_id, address, tool="rps", what="op", label=game_label(name))
    if data is None:
        return found, None
    games, problems = decode_games(address, data)
    for problem in problems:
        warn("rps", problem)
    return not problems, find_game(games, name)


def read_game(client: RestClient, name: str, head: str | None = None, *, lenient: bool = False) -> Game | None:
    """The game called ``name`` (as of block ``head``, else now), or ``None`` if there is none.

    Data at its address that is not an rps bucket stops every op on it, as it stops
    the processor: an error, unless ``lenient`` (``--no-validate``), which reads it as
    no game.
    """
    address = game_address(name)
    data = client.get_state(address, head=head)
    games, problems = decode_games(address, data) if data else ([], [])
    if problems and not lenient:
        raise InvalidInput(
            f"{game_label(name)} cannot be read: {'; '.join(problems)} (not rps data, so the processor cannot apply "
            "any op to this game)"
        )
    return find_game(games, name)
