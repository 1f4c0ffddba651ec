"""Choosing a block's batches and the order constraints between them."""

from tests.xo_devnet.harness import address, batch_of, kv_batch, kv_txn
from xo_devnet.scheduler import PendingBatch, plan_block, select_batches

A, B, C = address("a"), address("b"), address("c")


def pending(batch) -> PendingBatch:
    return PendingBatch.parse(batch)


def select(queue, committed=(), served=("kv",), limit=100):
    return select_batches(
        queue,
        txn_committed=lambda txn_id: txn_id in committed,
        served=lambda family, version: family in served and version == "1.0",
        limit=limit,
    )


def test_batches_of_unserved_families_wait_and_keep_their_place():
    other = pending(batch_of(kv_txn(family="other", set={A: "1"})))
    mine = pending(kv_batch(set={B: "1"}))
    assert select([other, mine]) == [mine]
    assert select([other, mine], served=("kv", "other")) == [other, mine]


def test_a_dependency_must_be_committed_or_earlier_in_the_block():
    first = kv_txn(set={A: "1"})
    second = pending(batch_of(kv_txn(set={B: "1"}, dependencies=[first.header_signature])))
    assert select([second]) == []
    assert select([second], committed={first.header_signature}) == [second]
    first_batch = pending(batch_of(first))
    assert select([first_batch, second]) == [first_batch, second]
    inside = pending(batch_of(first, kv_txn(set={C: "1"}, dependencies=[first.header_signature])))
    assert select([inside]) == [inside]


def test_a_dependency_later_in_the_queue_is_not_yet_satisfied():
    first = kv_txn(set={A: "1"})
    waiting = pending(batch_of(kv_txn(set={B: "1"}, dependencies=[first.header_signature])))
    later = pending(batch_of(first))
    assert select([waiting, later]) == [later]


def test_the_block_size_is_bounded():
    queue = [pending(kv_batch(set={address(n): "1"})) for n in range(5)]
    assert select(queue, limit=3) == queue[:3]


def test_independent_batches_wait_for_nothing():
    plan = plan_block([pending(kv_batch(set={A: "1"})), pending(kv_batch(set={B: "1"}))])
    assert plan.waits_for == [(), ()]


def test_readers_wait_for_writers_and_writers_for_readers():
    batches = [
        pending(kv_batch(set={A: "1"})),  # 0 writes A
        pending(kv_batch(require=A, set={B: "1"})),  # 1 reads+writes A (declared), writes B
        pending(batch_of(kv_txn(inputs=[A], outputs=[C], set={C: "1"}))),  # 2 reads A only
        pending(batch_of(kv_txn(inputs=[C], outputs=[C], set={C: "2"}))),  # 3 reads and writes C
        pending(batch_of(kv_txn(inputs=[], outputs=[A], set={A: "3"}))),  # 4 writes A
    ]
    plan = plan_block(batches)
    assert plan.waits_for == [(), (0,), (1,), (2,), (1, 2)]


def test_a_namespace_wide_batch_is_a_barrier():
    batches = [
        pending(kv_batch(set={A: "1"})),
        pending(batch_of(kv_txn(inputs=["00"], outputs=["00"], set={B: "1"}))),
        pending(kv_batch(set={C: "1"})),
    ]
    assert plan_block(batches).waits_for == [(), (0,), (1,)]


def test_explicit_dependencies_inside_a_block_must_be_valid_first():
    first = kv_txn(set={A: "1"})
    batches = [pending(batch_of(first)), pending(batch_of(kv_txn(set={B: "1"}, dependencies=[first.header_signature])))]
    plan = plan_block(batches)
    assert plan.waits_for == [(), (0,)]
    assert plan.requires_valid == [(), (0,)]
