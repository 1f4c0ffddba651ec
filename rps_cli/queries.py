"""``rps list`` and ``rps show``: read games from state and print them.

Kept free of protobuf and crypto imports, like ``xo list`` and ``xo show``: these
commands start a fresh interpreter each time and must stay quick. They read state
only; the vault is never opened, so nothing a player has not revealed is ever shown.
"""

from __future__ import annotations

import argparse
import json

from client_core.caller import Caller
from client_core.errors import InvalidInput
from client_core.runner import warn
from rps_cli import render
from rps_client.games import decode_games, find_game, game_json, impossible_name
from rps_tp.family import NAMESPACE, game_address
from rps_tp.game import Game
from xo_core.text import game_label, quoted


def list_games(args: argparse.Namespace) -> int:
    """Every game under the rps namespace, across all of the REST API's pages, sorted by name."""
    caller = Caller.of(args)
    found: list[Game] = []
    with caller.where.rest_client() as client:
        for address, data in client.list_state(NAMESPACE):
            games, problems = decode_games(address, data)
            for problem in problems:
                warn("rps", problem)
            found.extend(games)
    found.sort(key=lambda game: (game.name, game_address(game.name)))
    if args.format == "json":
        print(json.dumps([game_json(game) for game in found], indent=2))
    else:
        print(render.games_table(found, caller.who.key_names()))
    return 0


def show(args: argparse.Namespace) -> int:
    """One game, or why there is none to show."""
    caller = Caller.of(args)
    name: str = args.name
    if problem := impossible_name(name):
        raise InvalidInput(problem)
    address = game_address(name)
    with caller.where.rest_client() as client:
        data = client.get_state(address)
    games, problems = decode_games(address, data) if data else ([], [])
    if problems:
        raise InvalidInput(f"{game_label(name)} cannot be read: {'; '.join(problems)}")
    game = find_game(games, name)
    if game is None:
        raise InvalidInput(f"there is no game named {quoted(name)}")
    if args.format == "json":
        print(json.dumps(game_json(game), indent=2))
    else:
        print(render.game_card(game, caller.who.own_public_key(), caller.who.key_names()))
    return 0
