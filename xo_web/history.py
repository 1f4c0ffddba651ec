"""``GET /api/history?name=NAME``: a game name's committed moves, each with the board it left, for the page.

The same reading as ``xo history NAME --json`` (:func:`xo_client.history.committed_moves`,
replayed by :func:`xo_client.timeline.replay`): every game the name has had, each move
with its block, player and the game after it. Added for the page: the name as shown
(``shown``), the players' key names (``player_name``, ``player1_name``), and a note per move that does not replay.
Blocking (``http.client``): the server runs it in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client_core.errors import CommandError
from client_core.keys import KeyNames
from client_core.rest import RestClient
from xo_client.games import impossible_name
from xo_client.history import committed_moves, history_json
from xo_client.timeline import replay
from xo_core.text import printable
from xo_web.errors import UNAVAILABLE, ApiError, bad_request
from xo_web.views import shown_name


def game_history(
    rest_url: str,
    auth: tuple[str, str] | None,
    name: str,
    names: KeyNames,
    trace: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every game called ``name`` on the chain, oldest first, and the notes of moves left out."""
    if problem := impossible_name(name):
        raise bad_request(problem)
    try:
        with RestClient(rest_url, auth=auth, trace=trace) as client:
            moves = committed_moves(client, name)
    except CommandError as error:
        raise ApiError(502, UNAVAILABLE, "REST API Unavailable", error.message) from None
    games, problems = replay(name, moves)
    document = history_json(name, games)
    for game in document["games"]:
        name_players(game["game"], names)
        for move in game["moves"]:
            move["player_name"] = shown_name(move["player"], names)
            if move["game"] is not None:
                name_players(move["game"], names)
    return {**document, "shown": printable(name), "problems": problems}


def name_players(game: dict[str, Any], names: KeyNames) -> None:
    """Add the players' key names to one of ``history_json``'s games, as :func:`xo_web.views.game_view` has them."""
    game["player1_name"] = shown_name(game["player1"], names)
    game["player2_name"] = shown_name(game["player2"], names)
