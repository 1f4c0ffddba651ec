"""A decline is believed only when the offerer signed it, for that very channel."""

from __future__ import annotations

import pytest

from chips_client.declines import MAX_REASON, make_decline, read_decline
from xo_core.canonical import Malformed
from xo_core.signing import Signer

HOUSE, STRANGER = Signer.from_hex("22" * 32), Signer.from_hex("33" * 32)
CHANNEL, OTHER = b"\x01" * 32, b"\x02" * 32


def test_the_offerers_decline_of_the_channel_reads_as_its_reason_cut_to_a_line() -> None:
    assert read_decline(make_decline(HOUSE, CHANNEL, "busy"), CHANNEL, HOUSE.public_key) == "busy"
    assert len(read_decline(make_decline(HOUSE, CHANNEL, "x" * 1000), CHANNEL, HOUSE.public_key)) == MAX_REASON


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (make_decline(STRANGER, CHANNEL, "busy"), "not signed by the offerer"),
        (make_decline(HOUSE, OTHER, "busy"), "another channel"),
        (b"\xa0", "a decline"),
        (b"x" * 600, "over the 512"),
    ],
)
def test_anything_else_is_refused_saying_why(data: bytes, why: str) -> None:
    with pytest.raises(Malformed, match=why):
        read_decline(data, CHANNEL, HOUSE.public_key)
