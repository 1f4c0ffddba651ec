"""``chips tournament create|join|leave|list|show|play``: tournaments for a prize pool the chain holds.

Each verb resolves its flags once, here, into a typed value (a
:class:`chips_tp.tournament_ops.Create`, a name), and hands it to the client library:
:mod:`chips_client.tournament_transactions` builds what is sent,
:mod:`chips_client.tournaments` reads and ranks, :mod:`chips_client.tournament_play`
takes part, playing each match with the channel's match loop (:class:`chips_client.match.Match`).
"""

from __future__ import annotations

import argparse
import json
import time

from chips_cli import context
from chips_cli.tournament_arguments import DEFAULT_FIRST_TO
from chips_client import tournament_transactions as ttx
from chips_client.asking import Chooser, Immediate
from chips_client.computer import Computer
from chips_client.match import Match, NotPlayable
from chips_client.messages import client_id
from chips_client.store import ChannelTerms
from chips_client.tournament_play import NoSuchTournament, TournamentPlay
from chips_client.tournament_view import tournament_json
from chips_client.tournaments import TournamentReader, table
from chips_tp.channel import XO, channel_id
from chips_tp.tournament import SWISS, Tournament, match_fixed, match_games, played
from chips_tp.tournament_ops import Create
from client_core.broker import BrokerSession
from client_core.caller import Caller
from client_core.errors import InvalidInput
from client_core.keys import KeyNames, key_label
from client_core.runner import sigterm_interrupts
from xo_core.text import counted, printable, quoted


def tournament(args: argparse.Namespace) -> int:
    """Run the verb of ``chips tournament``."""
    return {"create": create, "join": join, "leave": leave, "list": list_tournaments, "show": show,
            "play": play}[args.verb](args)  # fmt: skip


def create(args: argparse.Namespace) -> int:
    """``chips tournament create NAME ...``: the organiser's terms, on the chain."""
    if args.style == "knockout" and args.rounds is not None:
        raise InvalidInput("a knockout's rounds follow from its field: leave out --rounds")
    if args.style == SWISS and args.rounds is None:
        raise InvalidInput("a swiss needs --rounds R")
    if args.game == XO and args.first_to is not None:
        raise InvalidInput("an xo match is one game: --first-to is for rps")
    first_to = 0 if args.game == XO else args.first_to or DEFAULT_FIRST_TO
    op = Create(args.name, args.game, args.style, args.rounds or 0, args.buy_in, args.players, args.join_for,
                args.round_for, args.prizes, first_to)  # fmt: skip
    caller = Caller.of(args)
    signer = context.signer(caller.who)
    with context.chain(caller.where, signer, args.wait) as chain:
        chain.submit(ttx.create(signer, op), "the create")
        made = _found(TournamentReader(chain.client), op.name)
    if args.format == "json":
        print(json.dumps(tournament_json(made, caller.who.key_names())))
    else:
        print(f"created tournament {quoted(op.name, None)}: {_terms(made)}; players join with 'chips tournament join "
              f"{printable(op.name)}' until {_clock(made.join_until)}")  # fmt: skip
    return 0


def join(args: argparse.Namespace) -> int:
    """``chips tournament join NAME``: the buy-in paid into the pool."""
    caller = Caller.of(args)
    signer = context.signer(caller.who)
    with context.chain(caller.where, signer, args.wait) as chain:
        reader = TournamentReader(chain.client)
        found = _found(reader, args.name)
        chain.submit(ttx.enter(signer, found.name, found.buy_in), "the join")
        now = _found(reader, args.name)
    if args.format == "json":
        print(json.dumps(tournament_json(now, caller.who.key_names())))
    else:
        print(
            f"you joined tournament {quoted(now.name, None)}, paying {now.buy_in} chips: {len(now.players)} of "
            f"{now.max_players} players, pool {now.pool}; it starts at {_clock(now.join_until)} or when full"
        )
    return 0


def leave(args: argparse.Namespace) -> int:
    """``chips tournament leave NAME``: out before the start, the buy-in back."""
    caller = Caller.of(args)
    signer = context.signer(caller.who)
    with context.chain(caller.where, signer, args.wait) as chain:
        found = _found(TournamentReader(chain.client), args.name)
        chain.submit(ttx.leave(signer, found.name), "the leave")
    print(f"you left tournament {quoted(found.name, None)}: {found.buy_in} chips back")
    return 0


def list_tournaments(args: argparse.Namespace) -> int:
    """``chips tournament list``: every tournament."""
    caller = Caller.of(args)
    with context.chain(caller.where, None, None) as chain:
        found = TournamentReader(chain.client).tournaments()
    names = caller.who.key_names()
    if args.format == "json":
        print(json.dumps([tournament_json(t, names) for t in found]))
        return 0
    if not found:
        print("no tournaments on the chain: 'chips tournament create' makes one")
    for t in found:
        print(f"{quoted(t.name)}: {_terms(t)}; {_status(t)}")
    return 0


def show(args: argparse.Namespace) -> int:
    """``chips tournament show NAME``: status, players, pairings and results per round, standings, prizes paid."""
    caller = Caller.of(args)
    with context.chain(caller.where, None, None) as chain:
        found = _found(TournamentReader(chain.client), args.name)
    names = caller.who.key_names()
    if args.format == "json":
        print(json.dumps(tournament_json(found, names)))
    else:
        print("\n".join(_lines(found, names)))
    return 0


def play(args: argparse.Namespace) -> int:
    """``chips tournament play NAME [--bot LEVEL]``: take part to the end, with no director."""
    caller = Caller.of(args)
    signer = context.signer(caller.who)
    names = caller.who.key_names()
    chooser: Chooser
    if args.bot:
        chooser, stand_in = Immediate(Computer(args.bot)), None
    else:
        from chips_cli.terminal import PersonChooser  # noqa: PLC0415 - only a person's play needs the terminal

        chooser, stand_in = PersonChooser(), Computer("perfect")
    chained = context.chain(caller.where, signer, args.wait)
    with chained as chain, context.store(caller.who, signer.public_key) as stored:
        reader = TournamentReader(chain.client)

        def play_match(current: Tournament, board: int) -> bool:
            fixed = match_fixed(current, current.round, board)
            terms = ChannelTerms(
                f"{current.name} round {current.round} board {board}",
                fixed,
                match_games(current.game, current.first_to),
            )
            ident = client_id(signer, channel_id(fixed))
            match = Match(
                signer=signer, terms=terms, store=stored, chain=chain, chooser=chooser, say=say, names=names,
                connect=lambda on_message, on_reconnect: BrokerSession(args.broker, ident, on_message,
                                                                       on_reconnect=on_reconnect, say=say),
                patience=current.duration, stand_in=stand_in,
            )  # fmt: skip
            say(f"round {current.round}, board {board}: playing {match.opponent}")
            left = (current.round_ends or 0) - time.time()
            try:
                outcome = match.run(time_limit=max(left, 1.0) + 2.0)
            except (TimeoutError, NotPlayable) as error:
                say(f"round {current.round}, board {board}: {error}")
                return False
            say(f"round {current.round}, board {board}: the channel is {outcome}")
            return True

        player = TournamentPlay(name=args.name, signer=signer, reader=reader, submit=chain.submit,
                                play_match=play_match, say=say)  # fmt: skip
        try:
            with sigterm_interrupts():
                final = player.run()
        except NoSuchTournament as error:
            raise InvalidInput(str(error)) from None
    print("\n".join(_lines(final, names)), flush=True)
    say(f"{player.sent} tournament transactions sent by you")
    return 0


def say(line: str) -> None:
    """Print one line made safe for a terminal and flush it at once (a field of bots is watched live)."""
    print(printable(line, escape_backslashes=False), flush=True)


def _found(reader: TournamentReader, name: str) -> Tournament:
    found = reader.tournament(name)
    if found is None:
        raise InvalidInput(f"there is no tournament {quoted(name)}: 'chips tournament list' lists them")
    return found


def _clock(when: float | None) -> str:
    return "-" if when is None else time.strftime("%H:%M:%S", time.localtime(when))


def _terms(t: Tournament) -> str:
    rounds = f"swiss of {t.rounds} rounds" if t.format == SWISS else "knockout"
    prizes = "/".join(str(p) for p in t.prizes)
    game = t.game if t.game == XO else f"{t.game} first to {t.first_to} (at most {2 * t.first_to - 1} rounds a match)"
    return (f"{game} {rounds}, buy-in {t.buy_in}, {t.min_players}..{t.max_players} players, prizes {prizes} "
            f"percent, rounds of {t.round_seconds} s")  # fmt: skip


def _status(t: Tournament) -> str:
    if t.status == "joining":
        return f"joining until {_clock(t.join_until)}, {len(t.players)} in, pool {t.pool}"
    if t.status == "playing":
        return f"playing round {t.round} of {t.rounds} (until {_clock(t.round_ends)}), pool {t.pool}"
    return f"{t.status}, {len(t.players)} players"


def _lines(t: Tournament, names: KeyNames) -> list[str]:
    who = [key_label(key, names) for key in t.players]
    lines = [f"tournament {quoted(t.name, None)}: {_terms(t)}", _status(t)]
    for number, pairings in enumerate(t.pairings, start=1):
        lines.append(f"round {number}:")
        for board, p in enumerate(pairings):
            if played(p):
                result = p.result or "playing"
                lines.append(f"  board {board}: {who[p.white]} (white) - {who[p.black]} (black): {result}")  # type: ignore[index]
            elif p.white is not None:
                lines.append(f"  board {board}: {who[p.white]}: bye")
    if t.players:
        swiss = t.format == SWISS
        lines.append("standings:" if t.round else "players:")
        for place, line in enumerate(table(t), start=1):
            score = (f"{counted(line.points, 'point')}, Buchholz {line.buchholz}" if swiss
                     else f"{counted(line.points, 'round')} through")  # fmt: skip
            lines.append(f"  {place}. {who[line.player]}: {score}, {counted(line.wins, 'win')}")
    if t.payout:
        paid = ", ".join(f"{key_label(key, names)} {amount}" for key, amount in t.payout)
        lines.append(f"{'refunded' if t.status == 'cancelled' else 'paid'}: {paid}")
    return lines
