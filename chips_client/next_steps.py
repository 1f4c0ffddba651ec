"""Where a channel stands for one player and what they do next, in words: for ``chips list`` and for a player who
leaves a match (Ctrl-C, SIGTERM) with chips still locked in it. Pure, no I/O.

A staked match left half-played is not lost (the store keeps every state), but its chips
stay locked and a challenge against an absent player is lost once its deadline passes:
so the player is told the channel's name, what is at stake, what is due by when (a clock
time), and the command that goes on with it, as ``xo play`` tells a player who leaves.
"""

from __future__ import annotations

from typing import NamedTuple

from chips_client.narration import Story, clock_time, deadline_text, duration, possessive
from chips_tp.channel import mover
from chips_tp.channel_state import State
from chips_tp.state import CLOSED, FUNDING
from chips_tp.state import Channel as Record
from xo_core.text import quoted


class Commands(NamedTuple):
    """The commands a player types for this channel, as they would type them (``chips play duel --username bob``)."""

    resume: str
    """The command that goes on with the match: ``chips play NAME`` (``chips bot NAME`` for the computer's side)."""
    channel_word: str
    """The channel's name as one shell word, and the flags that name the player (for ``join``, ``finalize``...)."""

    def of(self, verb: str) -> str:
        """``chips VERB NAME`` with the player's flags."""
        return f"chips {verb} {self.channel_word}"


def commands(name_word: str, player_flags: str = "", resume_verb: str = "play") -> Commands:
    """The commands for the channel whose name, as a shell word, is ``name_word``; ``player_flags`` (such as
    ``--username bob``) are added to each, so what is suggested runs as it is shown."""
    word = f"{name_word} {player_flags}".rstrip()
    return Commands(f"chips {resume_verb} {word}", word)


def next_step(story: Story, record: Record, latest: State | None, said: Commands, now: float) -> str:
    """What happens next in the channel, and what this player types for it: ``your move: chips play duel``."""
    me = story.fixed.participants.index(story.you) if story.you in story.fixed.participants else 0
    other = story.who(1 - me)
    if record.status == CLOSED:
        return "nothing: the chips are paid out"
    if record.status == FUNDING:
        if not record.funded[me]:
            return f"pay your deposit of {story.fixed.deposits[me]} chips in: {said.of('join')}"
        return f"{other} pays their deposit in, and the match begins"
    challenge = record.challenge
    if challenge is not None and challenge.challenger != story.you:
        return f"your answer on chain, by {deadline_text(challenge.deadline, now)}: {said.resume} (or chips watch " \
               "--defend answers it for you)"  # fmt: skip
    if challenge is not None:
        if challenge.deadline <= now:
            return f"the deadline passed unanswered: {said.of('finalize')} pays the channel out"
        return f"{other} answers by {clock_time(challenge.deadline, now)}, or {said.of('finalize')} pays the " \
               "channel out then"  # fmt: skip
    if latest is None:
        return f"go on with the match: {said.resume}"
    if latest.final:
        return f"closing the channel on the final state: {said.resume} finishes it"
    if mover(latest.turn + 1) == me:
        return f"your move: {said.resume}"
    return f"{possessive(other)} move ({said.resume} follows it; {said.of('challenge')} if {other} stays silent)"


def left_lines(story: Story, record: Record | None, latest: State | None, *, how: str, name: str, said: Commands,
               now: float) -> list[str]:  # fmt: skip
    """What a player who left the match in channel ``name`` (``how``: "Ctrl-C", "SIGTERM") is told: where it stands,
    the chips at stake, what is due by when, and the command that goes on with it.

    ``record`` is the chain's record read as the player left (None when the chain could not be read then),
    ``latest`` the newest state the player's store holds.
    """
    shown = quoted(name, None)
    if record is not None and record.status == CLOSED:
        return [f"you left ({how}): channel {shown} is {story.status(record, now)}"]
    me = story.fixed.participants.index(story.you) if story.you in story.fixed.participants else 0
    other = story.who(1 - me)
    if record is not None and record.status == FUNDING:
        return [
            f"you left ({how}): channel {shown} is {story.status(record, now)}; your deposit of "
            f"{story.fixed.deposits[me]} chips is locked in it",
            f"next: {next_step(story, record, latest, said, now)}",
        ]
    where = story.position(latest) if latest is not None else f"the chain holds turn {record.turn}" if record else ""
    lines = [
        f"you left ({how}): channel {shown} stays open on the chain, the match unfinished"
        + (f": {where}" if where else "")
    ]
    at_stake = f"at stake: your deposit of {story.fixed.deposits[me]} chips, locked in the channel until it closes"
    if latest is not None and latest.turn > 0:
        at_stake += f"; the latest state you hold pays {story.balances(latest.balances)}"
    lines.append(at_stake)
    challenge = None if record is None else record.challenge
    if challenge is not None and challenge.challenger != story.you:
        lines.append(
            f"due: {other} challenged you: your move must be on chain by "
            f"{deadline_text(challenge.deadline, now)}, or the chain pays out the state challenged with"
        )
    elif challenge is not None:
        lines.append(f"due: you challenged {other}, who must answer by {deadline_text(challenge.deadline, now)}; "
                     f"after that {said.of('finalize')} pays the channel out")  # fmt: skip
    else:
        seconds = story.fixed.duration
        lines.append(
            f"due: nothing yet; if {other} challenges you, your move must be on chain within "
            f"{duration(seconds)} (by {clock_time(now + seconds, now)} if the challenge came now)"
        )
    lines.append(f"to go on with it: {said.resume}  (chips watch --defend answers challenges meanwhile)")
    return lines
