"""What `xo chain` says of an XO transaction: decoded with the family's own codec, the game name escaped."""

import pytest

from client_core.blocks import ChainTransaction
from xo_client.chain_words import words
from xo_tp.payload import encode_payload


def transaction(payload: bytes) -> ChainTransaction:
    return ChainTransaction("t" * 128, "xo", "1.0", "02" + "a" * 64, (), (), payload)


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (encode_payload("game1", "create"), "xo create game1"),
        (encode_payload("game1", "take", 5), "xo take game1 5"),
        (encode_payload("game1", "delete"), "xo delete game1"),
        (encode_payload("my game", "take", 1), "xo take 'my game' 1"),
        (encode_payload("g\x1b[2J", "create"), "xo create 'g\\x1b[2J'"),
    ],
)
def test_each_move_in_words(payload, said):
    assert words(transaction(payload), str) == said


def test_a_payload_the_codec_refuses_is_said_so_not_raised():
    said = words(transaction(b"g1,jump,5"), str)
    assert said.startswith("xo: a payload its codec refuses (") and "jump" in said
