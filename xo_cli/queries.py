"""``xo list`` and ``xo show``: read games from state and print them.

Kept free of protobuf and crypto imports: these commands start a fresh
interpreter each time and must stay fast. The solver behind ``xo show --analyze``
is loaded only for that flag.
"""

from __future__ import annotations

import argparse

from client_core.caller import Caller, Who
from client_core.errors import InvalidInput
from client_core.runner import warn
from xo_cli import render
from xo_client.games import Game, decode_games, find_game
from xo_core.text import game_label, quoted
from xo_tp.family import NAMESPACE, game_address


def list_games(args: argparse.Namespace) -> int:
    """Every game under the XO namespace, across all of the REST API's pages, sorted by name."""
    caller = Caller.of(args)
    found: list[Game] = []
    with caller.where.rest_client() as client:
        for address, data in client.list_state(NAMESPACE):
            games, problems = decode_games(address, data)
            warn_all(problems)
            found.extend(games)
    found.sort(key=lambda game: (game.name, game.address))
    if args.format == "json":
        print(render.games_json(found))
    else:
        print(render.games_table(found, caller.who.key_names()))
    return 0


def show(args: argparse.Namespace) -> int:
    """One game. Unreadable entries sharing its address are warnings if the game itself reads, else the error."""
    caller = Caller.of(args)
    name: str = args.name
    address = game_address(name)
    with caller.where.rest_client() as client:
        data = client.get_state(address)
    games, problems = decode_games(address, data) if data is not None else ([], [])
    game = find_game(games, name)
    if game is None and problems:
        raise InvalidInput(f"{game_label(name)} cannot be read: {'; '.join(problems)}")
    if game is None:
        raise InvalidInput(f"there is no game named {quoted(name)}")
    warn_all(problems)
    if args.analyze:
        return show_analyzed(caller.who, game, args.format)
    if args.format == "json":
        print(render.game_json(game))
    else:
        print(render.game_card(game, caller.who.own_public_key(), caller.who.key_names()))
    return 0


def show_analyzed(who: Who, game: Game, output: str) -> int:
    """``xo show --analyze``: the game, then who has a line, the legal moves and how perfect play ends it."""
    from xo_client import analysis_view  # noqa: PLC0415 - it loads the solver, which only --analyze needs

    analysis = analysis_view.analyze(game)
    if output == "json":
        print(analysis_view.game_with_analysis_json(game, analysis))
        return 0
    card = render.game_card(game, who.own_public_key(), who.key_names())
    print("\n".join([card, "", *analysis_view.analysis_lines(game, analysis)]))
    return 0


def warn_all(problems: list[str]) -> None:
    """Report data that is not a game on stderr, so stdout stays the games alone."""
    for problem in problems:
        warn("xo", problem)
