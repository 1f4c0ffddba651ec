"""The pending queue's bookkeeping: arrival order, parked batches, dependency waits, and the room left to each kind."""

import pytest

from tests.xo_devnet.harness import address, batch_of, kv_batch, kv_txn
from xo_devnet.pending import PendingBatches, QueueFull
from xo_devnet.scheduler import PendingBatch
from xo_devnet.storage import Storage

MISSING = "cd" * 64


@pytest.fixture
def storage():
    opened = Storage.open(None)
    yield opened
    opened.close()


def batches(count: int) -> list[PendingBatch]:
    return [PendingBatch.parse(kv_batch(set={address(n): "1"})) for n in range(count)]


def depending_on(txn_id: str, name: str) -> PendingBatch:
    return PendingBatch.parse(batch_of(kv_txn(set={address(name): "1"}, dependencies=[txn_id])))


def ids(queue) -> list[str]:
    return [pending.batch_id for pending in queue]


def test_batches_that_became_unable_to_run_never_take_more_than_their_share_of_the_room_of_runnable_ones(storage):
    queue = PendingBatches(storage, capacity=10, waiting_capacity=2)
    first = batches(8)
    queue.admit(first, [False] * 8)
    for pending in first:  # their dependency ended INVALID: they now wait for it to arrive again
        queue.park(pending, MISSING, now=0.0)
    more = [PendingBatch.parse(kv_batch(set={address(f"m{n}"): "1"})) for n in range(9)]
    queue.admit(more[:8], [False] * 8)
    with pytest.raises(QueueFull, match="8 batches that cannot run yet"):
        queue.admit(more[8:], [True])
    with pytest.raises(QueueFull, match="16 batches are pending"):
        queue.admit(more[8:], [False])


def test_a_batch_that_can_run_is_accepted_while_the_waiting_share_is_full(storage):
    queue = PendingBatches(storage, capacity=4, waiting_capacity=2)
    queue.admit(batches(2), [True, True])
    runnable, waiting = (PendingBatch.parse(kv_batch(set={address(name): "1"})) for name in ("r", "w"))
    with pytest.raises(QueueFull, match="over the 2 places the queue keeps"):
        queue.admit([waiting], [True])
    queue.admit([runnable], [False])


def test_parked_and_deferred_batches_return_to_their_places_in_arrival_order(storage):
    queue = PendingBatches(storage, capacity=10, waiting_capacity=10)
    provider_txn = kv_txn(set={address("p"): "1"})
    first, second, third = batches(3)
    dependent = depending_on(provider_txn.header_signature, "d")
    provider = PendingBatch.parse(batch_of(provider_txn))
    queue.admit([first, dependent, second, third, provider], [False, True, False, False, False])
    queue.park(dependent, provider_txn.header_signature, now=5.0)
    assert ids(queue.queued()) == ids([first, second, third, provider])
    queue.take([first, provider])
    assert ids(queue.queued()) == ids([dependent, second, third])
    queue.requeue([first])
    assert ids(queue.queued()) == ids([first, dependent, second, third])


def test_a_parked_batch_expires_after_its_wait_unless_its_dependency_leaves_first(storage):
    queue = PendingBatches(storage, capacity=10, waiting_capacity=10)
    provider_txn = kv_txn(set={address("p"): "1"})
    provider = PendingBatch.parse(batch_of(provider_txn))
    on_provider, on_nothing = depending_on(provider_txn.header_signature, "a"), depending_on(MISSING, "b")
    queue.admit([provider, on_provider, on_nothing], [True, True, True])
    queue.park(on_provider, provider_txn.header_signature, now=1.0)
    queue.park(on_nothing, MISSING, now=2.0)
    assert queue.next_wait_start() == 1.0
    assert queue.expired(0.5) == []
    queue.decide([provider])  # it ended INVALID: what waited for it goes back to the queue, its wait over
    assert ids(queue.queued()) == ids([on_provider])
    assert queue.next_wait_start() == 2.0
    assert queue.expired(2.0) == [(on_nothing, MISSING)]
    assert queue.next_wait_start() is None
    assert queue.statuses([on_nothing.batch_id])[0].status == "PENDING"
