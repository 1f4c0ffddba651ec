"""The nine operations of the rps family, as checked values: what a payload asks for.

:mod:`rps_tp.payload` turns bytes into these (and back); :mod:`rps_tp.rules` applies
them. Each carries the game's name and exactly the fields its op needs; ``NAME`` is
the op as payloads and event types spell it. Every op but ``create`` acts on an
existing game and carries ``at``, the moment (round and phase) of that game it was
signed for: it counts then and only then.
"""

from dataclasses import dataclass
from typing import ClassVar, Final

from rps_tp.game import Moment, Settings


@dataclass(frozen=True, slots=True)
class Create:
    """Create a game; the signer joins it as host unless ``join`` is false.

    ``settings`` ``None`` means the defaults (:data:`rps_tp.game.DEFAULT_SETTINGS`).
    """

    NAME: ClassVar[str] = "create"
    name: str
    join: bool = True
    settings: Settings | None = None


@dataclass(frozen=True, slots=True)
class Join:
    """Take a seat: the first player to join a game becomes its host."""

    NAME: ClassVar[str] = "join"
    name: str
    at: Moment


@dataclass(frozen=True, slots=True)
class Setup:
    """The host changes the settings; every ready flag is cleared."""

    NAME: ClassVar[str] = "setup"
    name: str
    at: Moment
    settings: Settings


@dataclass(frozen=True, slots=True)
class Ready:
    """A player is ready to play with ``settings``, which must be the game's current ones."""

    NAME: ClassVar[str] = "ready"
    name: str
    at: Moment
    settings: Settings


@dataclass(frozen=True, slots=True)
class Commit:
    """Commit to a throw in the round ``at`` names without showing it: ``commitment`` is its salted hash."""

    NAME: ClassVar[str] = "commit"
    name: str
    at: Moment
    commitment: bytes


@dataclass(frozen=True, slots=True)
class Reveal:
    """Show the throw and salt committed to in the round ``at`` names."""

    NAME: ClassVar[str] = "reveal"
    name: str
    at: Moment
    throw: str
    salt: bytes


@dataclass(frozen=True, slots=True)
class Resign:
    """Give up a game in play: the opponent wins."""

    NAME: ClassVar[str] = "resign"
    name: str
    at: Moment


@dataclass(frozen=True, slots=True)
class Claim:
    """Win a game whose opponent has not committed or revealed within the time-out."""

    NAME: ClassVar[str] = "claim"
    name: str
    at: Moment


@dataclass(frozen=True, slots=True)
class Delete:
    """The host removes a game that is not being played."""

    NAME: ClassVar[str] = "delete"
    name: str
    at: Moment


#: The ops that act on an existing game, and so name the moment they were signed for.
OnGame = Join | Setup | Ready | Commit | Reveal | Resign | Claim | Delete
Op = Create | Join | Setup | Ready | Commit | Reveal | Resign | Claim | Delete

#: Every op class by its name, in the order the specification lists them.
OPS: Final[dict[str, type[Op]]] = {
    op.NAME: op for op in (Create, Join, Setup, Ready, Commit, Reveal, Resign, Claim, Delete)
}
