"""One listing of the chain answers every match of a house; a submission makes the next read fresh."""

from __future__ import annotations

from chips_client.channels import address_of, nonce_of
from chips_client.shared_chain import MatchChain, SharedChain
from chips_tp.channel import Fixed, channel_id
from chips_tp.state import Channel


def channel(name: str, status: str = "running") -> Channel:
    fixed = Fixed(("02" + "a" * 64, "03" + "b" * 64), "xo", 10, (50, 50), 600, nonce_of(name, 1))
    return Channel(channel_id(fixed), fixed, status, (True, True), 100, 0, None, None, None)


class CountingChain:
    def __init__(self, records: list[Channel]) -> None:
        self.records, self.listings, self.submitted = records, 0, []

    def channels(self) -> list[Channel]:
        self.listings += 1
        return list(self.records)

    def submit(self, transaction: object, what: str) -> None:
        self.submitted.append(what)


def test_a_hundred_reads_within_the_interval_cost_one_listing() -> None:
    now = [0.0]
    chain = CountingChain([channel(f"c{n}") for n in range(100)])
    shared = SharedChain(chain, every=0.5, clock=lambda: now[0])
    for record in chain.records:
        assert shared.channel(address_of(record.fixed)) == record
    assert chain.listings == 1
    now[0] = 0.6
    assert shared.channel(address_of(chain.records[0].fixed)) == chain.records[0]
    assert chain.listings == 2


def test_a_channel_not_listed_is_none_and_a_submission_makes_the_next_read_fresh() -> None:
    now = [0.0]
    chain = CountingChain([])
    shared = SharedChain(chain, every=10.0, clock=lambda: now[0])
    opened = channel("new")
    assert shared.channel(address_of(opened.fixed)) is None
    chain.records.append(opened)
    own = CountingChain([])
    MatchChain(shared, own).submit(object(), "the join")  # type: ignore[arg-type]
    assert own.submitted == ["the join"] and chain.submitted == []
    assert shared.channel(address_of(opened.fixed)) == opened
    assert chain.listings == 2
