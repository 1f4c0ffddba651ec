"""Tournament payloads: each op round-trips, and a malformed one is refused saying what is wrong."""

import pytest

from chips_tp.payload import InvalidPayload, encode_payload, parse_payload
from chips_tp.tournament_ops import Advance, Create, Enter, Leave, Result, Start
from xo_core import canonical

CREATE = Create("spring", "xo", "swiss", 3, 10, (2, 8), 60, 180, (60, 30, 10))
RPS_CREATE = Create("autumn", "rps", "knockout", 0, 10, (2, 8), 60, 180, (100,), first_to=3)


@pytest.mark.parametrize(
    "op",
    [CREATE, RPS_CREATE, Enter("spring", 10), Leave("spring"), Start("spring"), Result("spring", 2, 5),
     Advance("spring")],
)  # fmt: skip
def test_every_tournament_op_round_trips(op):
    assert parse_payload(encode_payload(op)) == op


def fields(**changed: object) -> bytes:
    value = canonical.decode(encode_payload(CREATE), "a payload")
    assert isinstance(value, dict)
    value.update(changed)
    return canonical.encode(value)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (fields(name="a\x1bb"), "create: 'name': a tournament's name is 1 to 64 printable characters, not 'a\\x1bb'"),
        (fields(name=""), "create: 'name': a tournament's name is 1 to 64 printable characters, not ''"),
        (fields(players=[2]), "create: 'players' must list 2 numbers, the fewest and the most"),
        (fields(players=[1, 8]), "create: the fewest players must be a whole number from 2 to 256, not 1"),
        (fields(prizes=[3] * 33), "create: 'prizes' has 33 items; at most 32 are allowed"),
        (fields(format="arena"), "create: 'format' must be swiss or knockout, not 'arena'"),
        (fields(first_to=26), "create: 'first_to' must be a whole number of round wins from 0 to 25, not 26"),
        (fields(first_to=None), "create: 'first_to' must be a whole number of round wins from 0 to 25, not null"),
        (fields(round_seconds=2), "create: 'round_seconds' must be a whole number of seconds from 3 to 2592000, not 2"),
        (canonical.encode({"op": "result", "board": 0, "round": 0, "tournament": "s"}),
         "result: 'round' must be a whole number from 1 to 64, not 0"),
        (canonical.encode({"op": "enter", "buy_in": 0, "tournament": "s"}),
         "enter: 'buy_in' must be a whole number of chips from 1 to 18446744073709551615, not 0"),
    ],
)  # fmt: skip
def test_a_malformed_tournament_payload_says_what_is_wrong(payload, message):
    with pytest.raises(InvalidPayload) as refused:
        parse_payload(payload)
    assert str(refused.value) == message
