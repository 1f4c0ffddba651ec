"""How rps games look: a card and a table for people, stable JSON objects for scripts.

Pure text in, text out; every clock reading is passed in. Only what state holds is
shown, and state holds nothing secret: a commitment says nothing of its throw, and
a throw appears once its player has revealed it. For people, a game's name is
escaped (:mod:`xo_core.text`; in the table also clipped), and a key is shown with its
name from the key directory (:func:`client_core.keys.key_label`); ``you`` is the key
of ``--username``. JSON carries the exact name and full keys.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Final

from client_core.keys import NO_NAMES, KeyNames, key_label
from client_core.tables import table
from rps_client import turns
from rps_client.outcome import outcome_text, player_name
from rps_tp.family import game_address
from rps_tp.game import (
    AWAITING_GAME,
    AWAITING_HOST,
    CONCLUDED,
    PLAYING_GAME,
    Game,
    describe_settings,
    round_winner,
    scores_from,
)
from xo_core.text import clip, duration, printable, shell_word, short_key

TABLE_HEADINGS: Final = ("GAME", "PLAYER 1", "PLAYER 2", "SCORE", "ROUND", "STATE", "NEXT")
GAME_WIDTH: Final = 24
"""Columns a game name may take in ``rps list``; ``rps show`` shows it whole."""
KEY_NAME_WIDTH: Final = 12
OUTCOME_WORDS: Final = {"timed-out": "timed out"}
ACTION_WORDS: Final = {turns.JOIN: "join", turns.READY: "get ready", turns.COMMIT: "commit", turns.REVEAL: "reveal"}
HINTS: Final = {
    turns.READY: "rps ready {name}",
    turns.COMMIT: "rps throw {name} rock|paper|scissors",
    turns.REVEAL: "rps reveal {name}",
}


def games_table(games: Sequence[Game], names: KeyNames = NO_NAMES) -> str:
    """The ``rps list`` table: one row per game."""
    if not games:
        return "No rps games yet."
    rows = [TABLE_HEADINGS] + [
        (
            clip(game.name, GAME_WIDTH),
            *(
                key_label(game.players[seat].key, names, KEY_NAME_WIDTH) if seat < len(game.players) else ""
                for seat in (0, 1)
            ),
            "-".join(str(player.score) for player in game.players) if len(game.players) == 2 else "",
            str(game.round) if game.round else "",
            STATE_WORDS.get(game.state, printable(game.state)),
            next_cell(game, names),
        )
        for game in games
    ]
    return table(rows)


def next_cell(game: Game, names: KeyNames = NO_NAMES) -> str:
    """What the game waits for, in a few words: ``commit: alice, bob``; the result once it is over."""
    if game.state == CONCLUDED:
        return f"over: {outcome_text(game, None, names)}"
    steps = turns.next_steps(game)
    by_action: dict[str, list[str]] = {}
    for step in steps:
        who = "anyone" if step.player is None else clip(names.name(step.player) or short_key(step.player), 12)
        by_action.setdefault(step.action, []).append(who)
    return "; ".join(f"{ACTION_WORDS[action]}: {', '.join(who)}" for action, who in by_action.items())


def game_card(game: Game, you: str | None = None, names: KeyNames = NO_NAMES, now: float | None = None) -> str:
    """The ``rps show`` view: state, settings, players, what happens next, the rounds so far."""
    now = time.time() if now is None else now
    lines = [f"GAME     : {printable(game.name)}", f"STATE    : {state_text(game)}"]
    if game.state == CONCLUDED:
        lines.append(f"RESULT   : {outcome_text(game, you, names)}")
    lines.append(f"SETTINGS : {describe_settings(game.settings)}")
    for seat in (0, 1):
        label = f"PLAYER {seat + 1} : "
        lines.append(label + (seat_text(game, seat, you, names) if seat < len(game.players) else "(open seat)"))
    if game.state != CONCLUDED:
        lines.append(f"NEXT     : {next_text(game, you, names, now)}")
    if turns.copied_commitment(game):
        lines.append(
            f"NOTE     : both players hold the same commitment in round {game.round}: one copied the other's, "
            "and can never reveal it"
        )
    for number in range(1, len(game.history) + 1):
        heading = "ROUNDS   : " if number == 1 else "           "
        lines.append(f"{heading}{number}. {round_text(game, number, None, names)}")
    lines.append(f"ADDRESS  : {game_address(game.name)}")
    return "\n".join(lines)


STATE_WORDS = {
    AWAITING_HOST: "waiting for players",
    AWAITING_GAME: "setting up",
    PLAYING_GAME: "playing",
    CONCLUDED: "over",
}
"""The spec's lifecycle states (``PLAYING_GAME``) in a player's words; ``--json`` keeps the spec's."""


def state_text(game: Game) -> str:
    """``playing, round 2``, ``over after round 3``, or the lifecycle state alone, in words, before play."""
    words = STATE_WORDS.get(game.state, printable(game.state))
    if game.state == PLAYING_GAME:
        return f"{words}, round {game.round}"
    if game.state == CONCLUDED:
        return f"{words} after round {game.round}"
    return words


def seat_text(game: Game, seat: int, you: str | None, names: KeyNames) -> str:
    """A PLAYER line: the key, ``(you)``, ``host``, then where the player stands."""
    player = game.players[seat]
    who = key_label(player.key, names) + (" (you)" if you is not None and player.key == you else "")
    if seat == 0:
        who += ", host"
    points = f"{player.score} point" + ("" if player.score == 1 else "s")
    if game.state == CONCLUDED and game.results is not None:
        result = game.results[seat]
        return f"{who}: {OUTCOME_WORDS.get(result.outcome, result.outcome)}, {points}"
    if game.state == PLAYING_GAME:
        if player.throw is not None:
            step = f"revealed {player.throw}"
        elif player.commitment is not None:
            step = "committed" if turns.current_step(game) == turns.COMMIT else "committed, not revealed"
        else:
            step = "not committed"
        return f"{who}: {points}, {step}"
    return f"{who}: {'ready' if player.ready else 'not ready'}"


def next_text(game: Game, you: str | None = None, names: KeyNames = NO_NAMES, now: float | None = None) -> str:
    """What the game waits for, said to the reader, with the command for their own step and the claim's time."""
    if game.state == CONCLUDED:
        return "nothing: the game is over"
    now = time.time() if now is None else now
    if game.state == AWAITING_HOST:
        return "anyone may join: the first player to join hosts the game"
    clauses = []
    steps = turns.next_steps(game)
    for action in (turns.READY, turns.COMMIT, turns.REVEAL):
        players = [step.player for step in steps if step.action == action and step.player is not None]
        if not players:
            continue
        who = " and ".join(player_name(player, you, names) for player in players)
        round_part = f" in round {game.round}" if game.state == PLAYING_GAME else ""
        clause = f"{who} must {ACTION_WORDS[action]}{round_part}"
        if action == turns.READY:
            clause += f" for {describe_settings(game.settings)}"
        if you in players:
            clause += f" ({HINTS[action].format(name=shell_word(game.name))})"
        clauses.append(clause)
    if any(step.action == turns.JOIN for step in steps):
        clauses.append("a second player may join")
    claim = turns.claim(game)
    if claim is not None:
        clauses.append(claim_text(claim, you, names, now))
    return "; ".join(clauses)


def claim_text(claim: turns.Claim, you: str | None, names: KeyNames, now: float) -> str:
    """When the player held up may be claimed against: ``you may claim the game from ... (in 42 s)``."""
    claimant = player_name(claim.claimant, you, names)
    if claim.at is None:
        return (
            f"no time-out is running (the network kept no BlockInfo when this phase began), so {claimant} cannot claim"
        )
    if claim.at <= now:
        return f"{claimant} may claim the game now (since {moment(claim.at)})"
    return f"{claimant} may claim the game from {moment(claim.at)} (in {duration(claim.at - now)})"


def round_text(game: Game, number: int, you: str | None = None, names: KeyNames = NO_NAMES) -> str:
    """A completed round: ``alice rock, bob scissors: alice won the round``."""
    throws = game.history[number - 1]
    players = [player_name(player.key, you, names) for player in game.players]
    shown = f"{players[0]} {throws[0]}, {players[1]} {throws[1]}"
    winner = round_winner(throws)
    if winner is None:
        return f"{shown}: a tie"
    return f"{shown}: {players[winner]} won the round"


def score_text(game: Game, you: str | None = None, names: KeyNames = NO_NAMES, rounds: int | None = None) -> str:
    """``alice 1, bob 0``: the scores after ``rounds`` completed rounds (default: all of them)."""
    scores = scores_from(game.history if rounds is None else game.history[:rounds])
    pairs = zip(game.players, scores, strict=True)
    return ", ".join(f"{player_name(player.key, you, names)} {score}" for player, score in pairs)


def moment(timestamp: float) -> str:
    """A chain time (BlockInfo, Unix seconds) as people read it, in UTC: ``2026-01-05 14:30:05 UTC``."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


def say(line: str) -> str:
    """A line for people, escaped once more as a whole: it quotes names and keys (a second pass changes nothing)."""
    return printable(line, escape_backslashes=False)
