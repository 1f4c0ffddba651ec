"""What ``chips`` and the page say to a person about a channel: players by name, times by the clock. Pure, no I/O.

The chain and the specification speak in keys, participant numbers, position names
(``XPlaying``) and Unix times; a player reads names ("you", ``alice``, or a short key
for a stranger), local clock times with the seconds left, and the board drawn as
``xo play`` draws it. Every name a player chose (a key's name) is escaped here with
:func:`xo_core.text.printable`, so a line built from these is safe to print.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import datetime, tzinfo
from typing import NamedTuple

from chips_client.channels import OnChain, rounds_of
from chips_client.moves import match_over, xo_board, xo_mark
from chips_tp import rps_app, xo_app
from chips_tp.channel import RPS, XO, Fixed, mover
from chips_tp.channel_state import State
from chips_tp.state import CLOSED, FUNDING
from chips_tp.state import Channel as Record
from client_core.keys import NO_NAMES, KeyNames
from xo_client.notation import board_lines, grid_name
from xo_core.text import duration, printable, quoted, short_key

YOU = "you"
"""How the reader is named: every line is said to one player."""


def player(key: str, you: str | None = None, names: KeyNames = NO_NAMES) -> str:
    """``key`` as the reader knows it: "you", the key's name in the key directory, or a short key (``02ab12...``)."""
    if you is not None and key == you:
        return YOU
    name = names.name(key)
    return printable(name if name is not None else short_key(key))


def possessive(subject: str) -> str:
    """``your`` or ``alice's``."""
    return "your" if subject == YOU else f"{subject}'s"


def verb(subject: str, plural: str, singular: str) -> str:
    """``subject`` with its verb agreeing: "you lead", "alice leads"."""
    return f"{subject} {plural if subject == YOU else singular}"


def clock_time(moment: float, now: float, zone: tzinfo | None = None) -> str:
    """``moment`` (a Unix time) as a local clock time, ``04:31:07 UTC``; with the date when it is not ``now``'s day.

    ``zone`` is the reader's time zone (the machine's when None); the zone's name is
    shown, so the time is never mistaken for another zone's.
    """
    when = _local(moment, zone)
    shown = when.strftime("%H:%M:%S")
    if when.date() != _local(now, zone).date():
        shown = when.strftime("%Y-%m-%d ") + shown
    zone_name = when.strftime("%Z")
    return f"{shown} {zone_name}" if zone_name else shown


def _local(moment: float, zone: tzinfo | None) -> datetime:
    return datetime.fromtimestamp(moment, zone) if zone is not None else datetime.fromtimestamp(moment).astimezone()


def clock_times(text: str, moments: Iterable[int], now: float, zone: tzinfo | None = None) -> str:
    """``text`` (the validator's words, say) with each of ``moments`` it quotes as a Unix time said as a clock time."""
    for moment in moments:
        text = re.sub(rf"\b{moment}\b", clock_time(moment, now, zone), text)
    return text


def seconds_left(deadline: float, now: float) -> int:
    """Whole seconds until ``deadline`` (rounded up, so 0 only once it has come), never below 0."""
    return max(0, math.ceil(deadline - now))


def deadline_text(deadline: float, now: float, zone: tzinfo | None = None) -> str:
    """A deadline as a person reads it: ``04:31:07 UTC (42 s left)``, or ``(passed 3 s ago)`` once it has."""
    shown = clock_time(deadline, now, zone)
    if deadline > now:
        return f"{shown} ({duration(seconds_left(deadline, now))} left)"
    return f"{shown} (passed {duration(math.floor(now - deadline))} ago)"


def grid(board: str) -> str:
    """The board (nine of ``X``, ``O``, ``-``) drawn as ``xo play`` draws it: lettered columns, numbered rows, and
    each empty space showing the number that takes it."""
    return "\n".join(board_lines(board))


def xo_prompt(board: str, mark: str) -> str:
    """What ``chips play`` shows when the player is to place ``mark``: the grid, then the question."""
    return f"{grid(board)}\nyour {mark} (1-9): "


class Game(NamedTuple):
    """A finished xo game or rps round, as a person reads it, and its facts for ``--json``."""

    number: int
    winner: int | None
    """The participant who won it, None for a draw or a tie."""
    board: str | None
    """The final board (xo), None at rps."""
    throws: tuple[str, str] | None
    """Each participant's throw (rps), None at xo."""
    balances: tuple[int, int]
    text: str


class Story:
    """A channel's match told to one reader, state by state: who moved, what it did to the balances and why,
    the game or round, and the score.

    Feed it every state in order (:meth:`tell` returns the line for it; :meth:`follow`
    only keeps count, for states already told). A gap (a turn skipped, as when the
    chain holds a newer state) is told as the position reached, without the move.
    """

    def __init__(self, fixed: Fixed, rounds: int, you: str | None = None, names: KeyNames = NO_NAMES) -> None:
        self.fixed, self.rounds, self.you, self.names = fixed, rounds, you, names
        self.previous: State | None = None
        self.games: list[Game] = []
        self.explained = False
        self.game_start: tuple[int, int] | None = None
        """The balances when the xo game in play began (None until a game's start is seen)."""

    # -- names ------------------------------------------------------------------------------------------------
    def who(self, index: int) -> str:
        """Participant ``index`` as the reader knows them."""
        return player(self.fixed.participants[index], self.you, self.names)

    def balances(self, balances: tuple[int, int]) -> str:
        """Both balances by name, the reader's first: ``you 60, bob 40``."""
        order = (0, 1)
        if self.you == self.fixed.participants[1]:
            order = (1, 0)
        return ", ".join(f"{self.who(i)} {balances[i]}" for i in order)

    def numbered(self, number: int) -> str:
        """``game 2 of 3`` (``round`` at rps; without ``of`` when the match runs until a player cannot cover)."""
        noun = "round" if self.fixed.app == RPS else "game"
        return f"{noun} {number} of {self.rounds}" if self.rounds else f"{noun} {number}"

    def score(self) -> str:
        """The score so far, the leader first (``alice leads 2-1``, ``level at 1-1``); empty before any result."""
        if not self.games:
            return ""
        wins = [sum(game.winner == i for game in self.games) for i in (0, 1)]
        if wins[0] == wins[1]:
            return f"level at {wins[0]}-{wins[1]}"
        leader = 0 if wins[0] > wins[1] else 1
        return f"{verb(self.who(leader), 'lead', 'leads')} {wins[leader]}-{wins[1 - leader]}"

    def result(self) -> str:
        """The match's result in words, once it is over: who won it, by how many, or a draw."""
        wins = [sum(game.winner == i for game in self.games) for i in (0, 1)]
        if wins[0] == wins[1]:
            return f"the match is drawn {wins[0]}-{wins[1]}"
        winner = 0 if wins[0] > wins[1] else 1
        return f"{self.who(winner)} won the match {wins[winner]}-{wins[1 - winner]}"

    def ending(self, outcome: str) -> str:
        """What a match that ended with ``outcome`` ("concluded", "finalized") adds to the line saying so: the result
        of a concluded match, the score of one finalized mid-match, nothing when no game was played."""
        if not self.games:
            return ""
        return f"; {self.result()}" if outcome == "concluded" else f"; games played: {self.score()}"

    # -- feeding ----------------------------------------------------------------------------------------------
    def follow(self, states: Iterable[State]) -> None:
        """Take ``states`` in order without telling them (a history already shown, or read back from the store)."""
        for state in states:
            self.tell(state)

    def tell(self, state: State) -> str:
        """The line for ``state``, the next state of the channel: what its mover did, then the position reached."""
        before, self.previous = self.previous, state
        if before is not None and state.turn <= before.turn:
            self.previous = before
            return f"turn {before.turn}: {self.position(before)}"
        if state.final:
            return f"turn {state.turn}: {self.who(mover(state.turn))} proposed to close the channel on " \
                   f"{self.balances(state.balances)}: {self.result()}"  # fmt: skip
        step = None
        if before is not None and state.turn == before.turn + 1:
            step = self._xo_step(before, state) if self.fixed.app == XO else self._rps_step(before, state)
        else:
            self._count(state)
        where = self.position(state)
        return f"turn {state.turn}: {step}; {where}" if step else f"turn {state.turn}: {where}"

    def _count(self, state: State) -> Game | None:
        """Record the game or round ``state`` finishes, if it finishes one."""
        data = state.app
        if state.final:
            return None
        if isinstance(data, xo_app.XoData) and data.position in (xo_app.VICTORY, xo_app.DRAW):
            winner = mover(state.turn) if data.position == xo_app.VICTORY else None
            number = len(self.games) + 1
            ending = "a draw" if winner is None else f"{self.who(winner)} won"
            game = Game(number, winner, xo_board(data), None, state.balances, f"{self.numbered(number)}: {ending}")
        elif isinstance(data, rps_app.RpsData) and data.position == rps_app.REVEAL:
            if any(g.number == data.round for g in self.games):
                return None
            proposer = mover(state.turn)
            throws = [data.answer, data.answer]
            throws[proposer] = data.throw
            beaten = rps_app.round_winner((data.throw, data.answer))  # 0: the proposer's throw wins
            winner = None if beaten is None else proposer if beaten == 0 else 1 - proposer
            text = f"{self.numbered(data.round)}: {self.who(proposer)} threw {data.throw}, " \
                   f"{self.who(1 - proposer)} {data.answer}: " + \
                   ("a tie" if winner is None else f"{self.who(winner)} won")  # fmt: skip
            game = Game(data.round, winner, None, (str(throws[0]), str(throws[1])), state.balances, text)
        else:
            return None
        self.games.append(game)
        return game

    def _stake_note(self) -> str:
        if self.explained:
            return ""
        self.explained = True
        if self.fixed.app == XO:
            return (f" (at XO the game's stake of {self.fixed.stake} goes to whoever moved last, so a player who "
                    "stops answering loses it; a win keeps it, a draw gives it back)")  # fmt: skip
        return (f" (accepting a round takes the proposer's stake of {self.fixed.stake} until they reveal, so a "
                "proposer who never reveals loses it; the reveal pays it back with the round's result)")  # fmt: skip

    def _xo_step(self, before: State, state: State) -> str | None:
        old, new = before.app, state.app
        assert isinstance(old, xo_app.XoData) and isinstance(new, xo_app.XoData)
        who = self.who(mover(state.turn))
        if new.position == xo_app.PLAY_AGAIN_ME_FIRST:
            return f"{who} asked to play X in the next game"
        if new.position == xo_app.PLAY_AGAIN_ME_SECOND:
            return f"{who} agreed to a new game"
        placed = (new.crosses | new.noughts) & ~(old.crosses | old.noughts)
        if placed.bit_count() != 1:
            self._count(state)
            return None
        space = 10 - placed.bit_length()
        mark = "X" if new.crosses & placed else "O"
        took = f"{who} ({mark}) took space {space} ({grid_name(space)})"
        game = self._count(state)
        if game is not None and game.winner is not None:
            return f"{took} and won {self.numbered(game.number)}, keeping the stake ({self.balances(state.balances)})"
        if game is not None:
            return (f"{took}: {self.numbered(game.number)} is a draw, the stake goes back "
                    f"({self.balances(state.balances)})")  # fmt: skip
        if old.position == xo_app.PLAY_AGAIN_ME_SECOND:
            self.game_start = before.balances
        holds = verb(who, "hold", "holds")
        gained = ""
        if self.game_start is not None:
            gained = f", {state.balances[mover(state.turn)] - self.game_start[mover(state.turn)]:+d} in this game"
        return f"{took}; {holds} the stake now{gained}{self._stake_note()}: {self.balances(state.balances)}"

    def _rps_step(self, before: State, state: State) -> str | None:
        new = state.app
        assert isinstance(new, rps_app.RpsData)
        moved = mover(state.turn)
        who, other = self.who(moved), self.who(1 - moved)
        if new.position == rps_app.ROUND_PROPOSED:
            return f"{who} threw first in {self.numbered(new.round)}, hidden until {verb(other, 'throw', 'throws')}"
        if new.position == rps_app.ROUND_ACCEPTED:
            return (f"{who} threw {new.answer} and {'hold' if who == YOU else 'holds'} "
                    f"{possessive(other)} stake until {verb(other, 'reveal', 'reveals')}"
                    f"{self._stake_note()}: {self.balances(state.balances)}")  # fmt: skip
        if new.position == rps_app.REVEAL:
            game = self._count(state)
            if game is None:
                return None
            if game.winner is None:
                outcome = f"{self.numbered(game.number)} is a tie, the stake goes back"
            else:
                outcome = f"{self.who(game.winner)} won {self.numbered(game.number)}"
            return (f"{who} revealed {new.throw} against {possessive(other)} {new.answer}: {outcome} "
                    f"({self.balances(state.balances)})")  # fmt: skip
        if isinstance(before.app, rps_app.RpsData) and before.app.position == rps_app.ROUND_PROPOSED:
            return f"{who} declined {self.numbered(before.app.round)}"
        return f"{verb(who, 'are', 'is')} ready for the next round"

    # -- the position -----------------------------------------------------------------------------------------
    def position(self, state: State) -> str:
        """Where the match stands at ``state``, in words: ``game 2 of 3, bob (O) to move; alice leads 1-0``."""
        if state.final:
            return f"the match is over, closing on {self.balances(state.balances)}: {self.result()}"
        text = self._xo_position(state) if self.fixed.app == XO else self._rps_position(state)
        score = self.score()
        return f"{text}; {score}" if score else text

    def _over(self, state: State) -> bool:
        done = state.app.round if self.fixed.app == RPS else len(self.games)  # type: ignore[attr-defined]
        return match_over(state, self.fixed, done, self.rounds)

    def _xo_position(self, state: State) -> str:
        data = state.app
        assert isinstance(data, xo_app.XoData)
        nxt = mover(state.turn + 1)
        who = self.who(nxt)
        number = len(self.games) + 1
        if self._over(state):
            return f"the match is over: {who} to propose closing the channel"
        if data.position in (xo_app.VICTORY, xo_app.DRAW):
            return f"{self.numbered(len(self.games))} is over; {who} to ask for the next"
        if data.position == xo_app.PLAY_AGAIN_ME_FIRST:
            return f"{self.numbered(number)} next, {self.who(mover(state.turn))} to play X; {who} to agree"
        mark = xo_mark(data)
        return f"{self.numbered(number)}, {who} ({mark}) to move"

    def _rps_position(self, state: State) -> str:
        data = state.app
        assert isinstance(data, rps_app.RpsData)
        who = self.who(mover(state.turn + 1))
        if self._over(state):
            return f"the match is over: {who} to propose closing the channel"
        if data.position == rps_app.START:
            return f"{self.numbered(data.round + 1)} next, {who} to throw first"
        if data.position == rps_app.ROUND_PROPOSED:
            return f"{self.numbered(data.round)}, {who} to throw"
        if data.position == rps_app.ROUND_ACCEPTED:
            return f"{self.numbered(data.round)}, {who} to reveal"
        return f"{self.numbered(data.round)} is over; {who} to go on"

    # -- the chain --------------------------------------------------------------------------------------------
    def by(self, key: str) -> str:
        """The player whose key is ``key`` (a transaction's signer), as the reader knows them."""
        return player(key, self.you, self.names)

    def transaction(self, done: OnChain) -> str:
        """One committed transaction of the channel: ``block 7: bob joined, paying in his deposit (join)``."""
        who = self.by(done.signer)
        said = {
            "open": f"{who} opened the channel, paying in {possessive(who)} deposit",
            "join": f"{who} joined, paying in {possessive(who)} deposit",
            "challenge": f"{who} challenged",
            "checkpoint": f"{who} answered a challenge with a newer state",
            "respond": f"{who} answered a challenge with the next move",
            "conclude": f"{who} closed the channel by agreement",
            "finalize": f"{who} paid out an unanswered challenge",
            "cancel": f"{who} took the deposit back before anyone joined",
        }.get(done.op, f"{who} sent a transaction")
        return f"block {done.block}: {said} ({done.op})"

    def closing(self, done: list[OnChain]) -> str | None:
        """How the channel closed, from its transactions: by agreement, or finalized after whose challenge."""
        for index in range(len(done) - 1, -1, -1):
            op = done[index].op
            if op == "conclude":
                return "by agreement"
            if op == "cancel":
                return "cancelled before anyone joined"
            if op == "finalize":
                challenger = next((t.signer for t in reversed(done[:index]) if t.op == "challenge"), None)
                if challenger is None:
                    return "finalized"
                return f"finalized after {possessive(self.by(challenger))} challenge went unanswered"
        return None

    def status(self, record: Record, now: float, latest: State | None = None) -> str:
        """The chain's record in words: waiting for a deposit, running (where the match stands, from ``latest``, the
        newest state the reader holds, when it is newer than the chain's), challenged until when, or closed and paid."""
        if record.status == CLOSED:
            paid = record.payout or (0, 0)
            return f"closed, paid {self.balances(paid)}"
        if record.status == FUNDING:
            waiting = [i for i in (0, 1) if not record.funded[i]]
            return "waiting for " + " and ".join(f"{possessive(self.who(i))} deposit" for i in waiting)
        if record.challenge is not None:
            return (f"challenged by {self.by(record.challenge.challenger)} at turn {record.turn}, to be answered "
                    f"before {deadline_text(record.challenge.deadline, now)}")  # fmt: skip
        if latest is not None and latest.turn >= record.turn:
            return f"running: {self.position(latest)}"
        held = f" (the chain holds turn {record.turn})" if record.turn else ""
        return f"running, its moves played off chain{held}"


def channel_line(record: Record, name: str | None, you: str, names: KeyNames, now: float) -> str:
    """One line for a channel whose record changed (``chips watch``): its name (its id's first digits when the
    player's store has none), the game and the opponent, and the record in words."""
    story = Story(record.fixed, rounds_of(record.fixed), you, names)
    label = quoted(name, None) if name is not None else record.id.hex()[:8]
    opponent = story.who(1 - record.fixed.participants.index(you))
    return f"channel {label} ({record.fixed.app} with {opponent}): {story.status(record, now)}"
