"""One listing of the chain answers every match of a house; a submission makes the next read fresh."""

from __future__ import annotations

import threading
import time

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


def test_a_channel_not_listed_is_none_and_a_submission_makes_the_submitters_next_read_fresh() -> None:
    now = [0.0]
    chain = CountingChain([])
    shared = SharedChain(chain, every=10.0, clock=lambda: now[0])
    opened = channel("new")
    assert shared.channel(address_of(opened.fixed)) is None
    chain.records.append(opened)
    own = CountingChain([])
    match = MatchChain(shared, own)
    match.submit(object(), "the join")  # type: ignore[arg-type]
    assert own.submitted == ["the join"] and chain.submitted == []
    assert shared.channel(address_of(opened.fixed)) is None and chain.listings == 1  # others poll as before
    assert match.channel(address_of(opened.fixed)) == opened  # the submitter reads what it committed
    assert chain.listings == 2


class HeldChain(CountingChain):
    """A listing that waits until the test lets it finish."""

    def __init__(self, records: list[Channel]) -> None:
        super().__init__(records)
        self.entered, self.release = threading.Event(), threading.Event()

    def channels(self) -> list[Channel]:
        self.entered.set()
        assert self.release.wait(5)
        return super().channels()


def test_a_burst_of_commits_during_a_listing_costs_one_more_listing_for_all_of_them() -> None:
    """A house joined a hundred accepts while a listing was in flight: each match needs a listing that shows its
    join, and the one listing that starts after them all serves them all (before: a listing for most of them)."""
    chain = HeldChain([channel(f"c{n}") for n in range(100)])
    chain.release.set()
    shared = SharedChain(chain, every=10.0)
    shared.channels()
    chain.release.clear()
    in_flight = threading.Thread(target=shared.channels, args=(shared.stale(),))
    in_flight.start()
    assert chain.entered.wait(5)
    committed = threading.Semaphore(0)
    found: list[bool] = []

    def start(record: Channel) -> None:
        joined = shared.stale()
        committed.release()
        found.append(shared.channel(address_of(record.fixed), joined) == record)

    threads = [threading.Thread(target=start, args=(record,)) for record in chain.records]
    for thread in threads:
        thread.start()
    assert all(committed.acquire(timeout=5) for _ in threads)  # no commit waits for the listing in flight
    chain.release.set()
    for thread in [in_flight, *threads]:
        thread.join(5)
    assert found == [True] * 100
    assert chain.listings == 3  # the first, the one in flight, and one for the hundred


def test_a_poller_is_served_the_last_listing_while_one_is_in_flight_and_a_committer_waits_for_it() -> None:
    now = [0.0]
    first = channel("first")
    chain = CountingChain([first])
    shared = SharedChain(chain, every=0.5, clock=lambda: now[0])
    shared.channels()
    held = HeldChain([first, channel("second")])
    shared.chain, now[0] = held, 1.0  # the last listing is old: the next read lists again
    slow = threading.Thread(target=shared.channels)
    slow.start()
    assert held.entered.wait(5)
    started = time.monotonic()
    assert shared.channels() == [first]  # not held up by the listing in flight
    assert time.monotonic() - started < 1
    mine = shared.stale()
    assert shared.channels() == [first]  # another match's commit holds up no poller either
    committed: list[list[Channel]] = []
    waiter = threading.Thread(target=lambda: committed.append(shared.channels(mine)))
    waiter.start()
    waiter.join(0.2)
    assert waiter.is_alive()  # it committed: it waits for a listing that started after that
    held.release.set()
    slow.join(5)
    waiter.join(5)
    assert committed == [held.records] and held.listings == 2
