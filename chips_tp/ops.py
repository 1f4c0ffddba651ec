"""The chips operations as values (tournament ops: :mod:`chips_tp.tournament_ops`): what a payload asks for."""

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from chips_tp.tournament_ops import TOURNAMENT_OPS, TournamentOp


class SignedState(NamedTuple):
    """An off-chain state as sent on chain: its canonical bytes and each participant's signature, if any."""

    state: bytes
    signatures: tuple[bytes | None, bytes | None]


@dataclass(frozen=True, slots=True)
class Issue:
    """An issuer creates ``amount`` chips in the account of ``to``."""

    NAME: ClassVar[str] = "issue"
    to: str
    amount: int


@dataclass(frozen=True, slots=True)
class Transfer:
    """The signer moves ``amount`` chips of their own to ``to``."""

    NAME: ClassVar[str] = "transfer"
    to: str
    amount: int


@dataclass(frozen=True, slots=True)
class Open:
    """The signer opens a channel with ``opponent``, paying their deposit in; the id binds every field and the key."""

    NAME: ClassVar[str] = "open"
    opponent: str
    app: str
    stake: int
    deposits: tuple[int, int]
    duration: int
    nonce: int


@dataclass(frozen=True, slots=True)
class Join:
    """The opponent pays their deposit in, provided the channel holds exactly ``expected_held`` before: play starts."""

    NAME: ClassVar[str] = "join"
    channel: bytes
    expected_held: int


@dataclass(frozen=True, slots=True)
class Cancel:
    """A participant closes a channel its opponent has not joined, and the opener's deposit goes back."""

    NAME: ClassVar[str] = "cancel"
    channel: bytes


@dataclass(frozen=True, slots=True)
class Conclude:
    """A final state signed by both closes the channel and pays its balances."""

    NAME: ClassVar[str] = "conclude"
    channel: bytes
    state: SignedState


@dataclass(frozen=True, slots=True)
class Challenge:
    """A participant asks the chain to hold the other to a supported state; ``signature`` is the challenger's."""

    NAME: ClassVar[str] = "challenge"
    channel: bytes
    proof: tuple[SignedState, ...]
    signature: bytes


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A supported state with a higher turn than the chain's is recorded (and clears a challenge)."""

    NAME: ClassVar[str] = "checkpoint"
    channel: bytes
    proof: tuple[SignedState, ...]


@dataclass(frozen=True, slots=True)
class Respond:
    """The challenged player's next move, signed by them, clears the challenge."""

    NAME: ClassVar[str] = "respond"
    channel: bytes
    state: SignedState


@dataclass(frozen=True, slots=True)
class Finalize:
    """After an unanswered challenge's deadline, the challenged state's balances are paid out."""

    NAME: ClassVar[str] = "finalize"
    channel: bytes


Op = Issue | Transfer | Open | Join | Cancel | Conclude | Challenge | Checkpoint | Respond | Finalize | TournamentOp
OPS: dict[str, type[Op]] = {
    op.NAME: op
    for op in (Issue, Transfer, Open, Join, Cancel, Conclude, Challenge, Checkpoint, Respond, Finalize, *TOURNAMENT_OPS)
}
