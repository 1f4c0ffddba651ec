"""A tournament as JSON, for ``chips tournament show --json`` and ``xo web``'s page alike: terms, status, players,
every round's pairings with their channels, the standings with their tie-breaks, and the payout."""

from __future__ import annotations

from chips_client.tournaments import table
from chips_tp.channel import channel_id
from chips_tp.tournament import Tournament, match_fixed, played
from client_core.keys import KeyNames


def tournament_json(t: Tournament, names: KeyNames) -> dict[str, object]:
    """``t`` as JSON; players are ``{"key", "name"}`` (the name a key has in the key directory, or null)."""

    def player(index: int | None) -> dict[str, object] | None:
        return None if index is None else {"key": t.players[index], "name": names.name(t.players[index])}

    rounds = []
    for number, pairings in enumerate(t.pairings, start=1):
        rounds.append([
            {"board": board, "white": player(p.white), "black": player(p.black), "result": p.result,
             "channel": channel_id(match_fixed(t, number, board)).hex() if played(p) else None}
            for board, p in enumerate(pairings)
        ])  # fmt: skip
    return {
        "name": t.name, "game": t.game, "first_to": t.first_to, "format": t.format, "status": t.status,
        "rounds": t.rounds, "round": t.round, "buy_in": t.buy_in, "pool": t.pool, "prizes": list(t.prizes),
        "min_players": t.min_players, "max_players": t.max_players, "join_until": t.join_until,
        "round_seconds": t.round_seconds, "round_ends": t.round_ends, "organiser": t.organiser, "draw": t.draw,
        "players": [player(i) for i in range(len(t.players))], "pairings": rounds,
        "standings": [{"place": place, "player": player(line.player), "points": line.points,
                       "buchholz": line.buchholz, "wins": line.wins}
                      for place, line in enumerate(table(t), start=1)] if t.players else [],
        "payout": None if t.payout is None else [{"key": key, "name": names.name(key), "amount": amount}
                                                  for key, amount in t.payout],
    }  # fmt: skip
