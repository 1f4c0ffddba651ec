"""An offerer joins only its offers' accepts, within their counts, while open, and only what its chips cover."""

from __future__ import annotations

from chips_client import offers
from chips_client.offer_desk import Published, decide
from chips_client.offers import Terms
from chips_tp.channel import channel_id
from chips_tp.state import Channel
from xo_core.signing import Signer

NOW = 1_800_000_000
HOUSE = Signer.from_hex("22" * 32)
PLAYERS = [Signer.from_hex(f"{n:02x}" * 32) for n in range(0x31, 0x36)]


def accept(published: Published, player: Signer, k: int = 1, funded: tuple[bool, bool] = (True, False),
           status: str = "funding") -> Channel:  # fmt: skip
    fixed = offers.channel_fixed(published.signed.offer, player.public_key, k)
    return Channel(channel_id(fixed), fixed, status, funded, 50, 0, None, None, None)


def offer(count: int = 2, expires: int = NOW + 60) -> Published:
    return Published(offers.make_offer(HOUSE, Terms("xo", 10, 50, 1, 600), expires), count)


def test_accepts_within_the_count_are_joined_and_the_rest_refused_with_the_reason() -> None:
    house = offer(count=2)
    channels = [accept(house, player) for player in PLAYERS[:3]]
    decisions = decide([house], channels, balance=1000, now=NOW)
    assert [d.join for d in decisions] == [True, True, False]
    assert decisions[2].reason == "all 2 accepts were taken"
    assert house.joined == set()  # nothing recorded until a join commits


def test_a_join_recorded_counts_and_is_never_proposed_twice() -> None:
    house = offer(count=2)
    first, second = accept(house, PLAYERS[0]), accept(house, PLAYERS[1])
    house.joined.add(first.id)
    decisions = decide([house], [first, second], balance=1000, now=NOW)
    assert [(d.channel.id, d.join) for d in decisions] == [(second.id, True)]


def test_an_accept_the_offerers_chips_cannot_cover_is_not_joined() -> None:
    house = offer(count=5)
    channels = [accept(house, player) for player in PLAYERS[:3]]
    decisions = decide([house], channels, balance=120, now=NOW)
    assert [d.join for d in decisions] == [True, True, False]
    assert decisions[2].reason == "your 20 free chips cannot cover its 50 deposit"


def test_an_expired_offer_is_not_joined() -> None:
    house = offer(expires=NOW - 1)
    (decision,) = decide([house], [accept(house, PLAYERS[0])], balance=1000, now=NOW)
    assert not decision.join and decision.reason == "the offer had expired"


def test_only_funding_channels_with_the_accepters_deposit_in_and_not_the_offerers_are_considered() -> None:
    house = offer(count=5)
    channels = [
        accept(house, PLAYERS[0], funded=(False, False)),
        accept(house, PLAYERS[1], funded=(True, True), status="running"),
        accept(house, PLAYERS[2], status="closed"),
    ]
    assert decide([house], channels, balance=1000, now=NOW) == []


def test_a_channel_one_chip_off_the_offers_terms_is_never_joined() -> None:
    house = offer(count=5)
    channel = accept(house, PLAYERS[0])
    off_by_one = channel._replace(fixed=channel.fixed._replace(stake=11))
    assert decide([house], [off_by_one._replace(id=channel_id(off_by_one.fixed))], balance=1000, now=NOW) == []


def test_an_accept_beyond_the_count_by_its_number_is_not_the_offers() -> None:
    house = offer(count=2)
    assert decide([house], [accept(house, PLAYERS[0], k=3)], balance=1000, now=NOW) == []
