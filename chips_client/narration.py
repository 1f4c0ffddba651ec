"""What ``chips`` and the page say to a person about a channel: players by name, times by the clock. Pure, no I/O.

The chain and the specification speak in keys, participant numbers, position names
(``XPlaying``) and Unix times; a player reads names ("you", ``alice``, or a short key
for a stranger), local clock times with the seconds left, and the board drawn as
``xo play`` draws it. Every name a player chose (a key's name) is escaped here with
:func:`xo_core.text.printable`, so a line built from these is safe to print.
"""

from __future__ import annotations

import math
from datetime import datetime, tzinfo

from client_core.keys import NO_NAMES, KeyNames
from xo_client.notation import board_lines
from xo_core.text import printable, short_key

YOU = "you"
"""How the reader is named: every line is said to one player."""
MINUTE = 60


def player(key: str, you: str | None = None, names: KeyNames = NO_NAMES) -> str:
    """``key`` as the reader knows it: "you", the key's name in the key directory, or a short key (``02ab12...``)."""
    if you is not None and key == you:
        return YOU
    name = names.name(key)
    return printable(name if name is not None else short_key(key))


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


def seconds_left(deadline: float, now: float) -> int:
    """Whole seconds until ``deadline`` (rounded up, so 0 only once it has come), never below 0."""
    return max(0, math.ceil(deadline - now))


def duration(seconds: int) -> str:
    """A count of seconds for a person: ``42 s``, ``3 min 5 s`` (seconds always shown, for a countdown)."""
    if seconds < 2 * MINUTE:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, MINUTE)
    return f"{minutes} min {rest} s"


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
