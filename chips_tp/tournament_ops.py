"""The six tournament operations as values: what a tournament payload asks for once it has been checked."""

from dataclasses import dataclass
from typing import ClassVar


@dataclass(frozen=True, slots=True)
class Create:
    """The signer creates the tournament ``name`` with these terms; ``players`` is (fewest, most)."""

    NAME: ClassVar[str] = "create"
    name: str
    game: str
    format: str
    rounds: int
    buy_in: int
    players: tuple[int, int]
    join_seconds: int
    round_seconds: int
    prizes: tuple[int, ...]
    #: rps: the round wins that take a match (first to N); xo: 0.
    first_to: int = 0


@dataclass(frozen=True, slots=True)
class Enter:
    """The signer enters ``tournament``, paying ``buy_in`` (which must be the tournament's) into its pool."""

    NAME: ClassVar[str] = "enter"
    tournament: str
    buy_in: int


@dataclass(frozen=True, slots=True)
class Leave:
    """The signer leaves ``tournament`` before it starts, and their buy-in goes back."""

    NAME: ClassVar[str] = "leave"
    tournament: str


@dataclass(frozen=True, slots=True)
class Start:
    """Anyone starts ``tournament`` once it is due: refunds if too few entered, else seeding and round 1."""

    NAME: ClassVar[str] = "start"
    tournament: str


@dataclass(frozen=True, slots=True)
class Result:
    """Anyone records the result of board ``board`` of round ``round`` from its closed channel."""

    NAME: ClassVar[str] = "result"
    tournament: str
    round: int
    board: int


@dataclass(frozen=True, slots=True)
class Advance:
    """Anyone advances ``tournament`` once its round is done or over: the next round, or the ranking and payout."""

    NAME: ClassVar[str] = "advance"
    tournament: str


TournamentOp = Create | Enter | Leave | Start | Result | Advance
TOURNAMENT_OPS: tuple[type[TournamentOp], ...] = (Create, Enter, Leave, Start, Result, Advance)
