"""The nine operations of the rps family, as checked values: what a payload asks for.

:mod:`rps_tp.payload` turns bytes into these (and back); :mod:`rps_tp.rules` applies
them. Each carries the game's name and exactly the fields its op needs; ``NAME`` is
the op as payloads and event types spell it.
"""

from dataclasses import dataclass
from typing import ClassVar, Final

from rps_tp.game import Settings


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


@dataclass(frozen=True, slots=True)
class Setup:
    """The host changes the settings; every ready flag is cleared."""

    NAME: ClassVar[str] = "setup"
    name: str
    settings: Settings


@dataclass(frozen=True, slots=True)
class Ready:
    """A player is ready to play with ``settings``, which must be the game's current ones."""

    NAME: ClassVar[str] = "ready"
    name: str
    settings: Settings


@dataclass(frozen=True, slots=True)
class Commit:
    """Commit to a throw in ``round`` without showing it: ``commitment`` is its salted hash."""

    NAME: ClassVar[str] = "commit"
    name: str
    round: int
    commitment: bytes


@dataclass(frozen=True, slots=True)
class Reveal:
    """Show the throw and salt committed to in ``round``."""

    NAME: ClassVar[str] = "reveal"
    name: str
    round: int
    throw: str
    salt: bytes


@dataclass(frozen=True, slots=True)
class Resign:
    """Give up a game in play: the opponent wins."""

    NAME: ClassVar[str] = "resign"
    name: str


@dataclass(frozen=True, slots=True)
class Claim:
    """Win a game whose opponent has not committed or revealed within the time-out."""

    NAME: ClassVar[str] = "claim"
    name: str


@dataclass(frozen=True, slots=True)
class Delete:
    """The host removes a game that is not being played."""

    NAME: ClassVar[str] = "delete"
    name: str


Op = Create | Join | Setup | Ready | Commit | Reveal | Resign | Claim | Delete

#: Every op class by its name, in the order the specification lists them.
OPS: Final[dict[str, type[Op]]] = {
    op.NAME: op for op in (Create, Join, Setup, Ready, Commit, Reveal, Resign, Claim, Delete)
}
