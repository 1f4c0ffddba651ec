"""Off-chain states: what the players of a channel sign turn by turn, and their canonical CBOR.

A state is the map ``{"app": ..., "turn": ..., "final": ..., "channel": ..., "balances":
[...]}``: the app's data (its own codec, :mod:`chips_tp.apps`), the turn number, whether
it closes the channel, the channel's id and what each participant would be paid.
"""

from collections.abc import Callable
from typing import Final, NamedTuple

from chips_tp.channel import ID_BYTES, MAX_AMOUNT, MAX_TURN
from xo_core import canonical
from xo_core.canonical import Malformed

#: The keys of a state map, in canonical order.
KEYS: Final = ("app", "turn", "final", "channel", "balances")


class State(NamedTuple):
    """One off-chain state; ``app`` is the app's own value (e.g. :class:`chips_tp.xo_app.XoData`)."""

    channel: bytes
    turn: int
    final: bool
    app: NamedTuple
    balances: tuple[int, int]


def encode_state(state: State, encode_app: Callable[[NamedTuple], dict[str, object]]) -> bytes:
    """The canonical CBOR of ``state``: the bytes whose hash is signed."""
    return canonical.encode(
        {
            "app": encode_app(state.app),
            "turn": state.turn,
            "final": state.final,
            "channel": state.channel,
            "balances": list(state.balances),
        }
    )


def decode_state(data: bytes, decode_app: Callable[[object], NamedTuple]) -> State:
    """The state in ``data``; :class:`Malformed` unless it is a canonical state of the app ``decode_app`` reads."""
    value = canonical.decode(data, "the state")
    fields = canonical.fields(value, "a state", KEYS)
    balances = canonical.array(fields["balances"], "'balances'", 2)
    if len(balances) != 2:
        raise Malformed(f"'balances' must list 2 amounts, not {len(balances)}")
    state = State(
        canonical.byte_string(fields["channel"], "'channel'", ID_BYTES),
        canonical.whole_number(fields["turn"], "'turn'", 0, MAX_TURN),
        canonical.flag(fields["final"], "'final'"),
        decode_app(fields["app"]),
        (amount(balances[0], "a balance"), amount(balances[1], "a balance")),
    )
    canonical.check_canonical(value, data, "the state")
    return state


def amount(value: object, what: str, low: int = 0) -> int:
    """``value`` if it is a whole number of chips from ``low`` to :data:`MAX_AMOUNT`."""
    return canonical.whole_number(value, what, low, MAX_AMOUNT, " of chips")
