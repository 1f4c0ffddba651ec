"""Choosing the next batches and the order constraints between running ones."""

from tests.xo_devnet.harness import address, batch_of, kv_batch, kv_txn
from xo_devnet.scheduler import PendingBatch, Planner, Selection, select_batches

A, B, C = address("a"), address("b"), address("c")


def pending(batch) -> PendingBatch:
    return PendingBatch.parse(batch)


def selection(queue, available=(), served=("kv",), limit=100) -> Selection:
    return select_batches(
        queue,
        available=lambda txn_id: txn_id in available,
        served=lambda family, version: family in served and version == "1.0",
        limit=limit,
    )


def select(queue, available=(), served=("kv",), limit=100) -> list[PendingBatch]:
    """The batches chosen to run now."""
    return selection(queue, available, served, limit).chosen


def plan(batches):
    """The waits and validity requirements of batches added to a fresh planner under keys 0, 1, ..."""
    planner = Planner()
    constraints = [planner.add(key, batch) for key, batch in enumerate(batches)]
    return [c.waits_for for c in constraints], [c.requires_valid for c in constraints]


def test_batches_of_unserved_families_wait_and_keep_their_place():
    other = pending(batch_of(kv_txn(family="other", set={A: "1"})))
    mine = pending(kv_batch(set={B: "1"}))
    assert select([other, mine]) == [mine]
    assert selection([other, mine]).unserved == [other]
    assert select([other, mine], served=("kv", "other")) == [other, mine]


def test_a_batch_waiting_for_a_processor_holds_back_later_batches_that_conflict_with_it():
    waiting = pending(batch_of(kv_txn(family="other", set={A: "first"})))
    writes_a = pending(kv_batch(set={A: "second"}))
    reads_a = pending(batch_of(kv_txn(inputs=[A], outputs=[C], set={C: "1"})))
    behind_held = pending(batch_of(kv_txn(inputs=[C], outputs=[C], set={C: "2"})))
    unrelated = pending(kv_batch(set={B: "1"}))
    chosen = selection([waiting, writes_a, reads_a, behind_held, unrelated])
    assert (chosen.chosen, chosen.unserved, chosen.missing) == ([unrelated], [waiting], [])
    namespace_wide = pending(batch_of(kv_txn(inputs=["00"], outputs=["00"], set={B: "1"})))
    assert select([waiting, namespace_wide, unrelated]) == []


def test_a_batch_waiting_for_a_dependency_holds_nothing_back():
    dependency = kv_txn(set={A: "1"})
    dependent = pending(batch_of(kv_txn(require=A, set={B: "1"}, dependencies=[dependency.header_signature])))
    provider = pending(batch_of(dependency))
    chosen = selection([dependent, provider])
    assert chosen.chosen == [provider]
    assert chosen.missing == [(dependent, dependency.header_signature)]


def test_a_dependency_must_be_available_or_earlier_in_the_selection():
    first = kv_txn(set={A: "1"})
    second = pending(batch_of(kv_txn(set={B: "1"}, dependencies=[first.header_signature])))
    assert select([second]) == []
    assert select([second], available={first.header_signature}) == [second]
    first_batch = pending(batch_of(first))
    assert select([first_batch, second]) == [first_batch, second]
    inside = pending(batch_of(first, kv_txn(set={C: "1"}, dependencies=[first.header_signature])))
    assert select([inside]) == [inside]
    backwards = pending(batch_of(kv_txn(set={C: "1"}, dependencies=[first.header_signature]), first))
    assert selection([backwards]).missing == [(backwards, first.header_signature)]


def test_the_selection_is_bounded():
    queue = [pending(kv_batch(set={address(n): "1"})) for n in range(5)]
    assert select(queue, limit=3) == queue[:3]
    assert select(queue, limit=0) == []


def test_independent_batches_wait_for_nothing():
    waits, _ = plan([pending(kv_batch(set={A: "1"})), pending(kv_batch(set={B: "1"}))])
    assert waits == [(), ()]


def test_readers_wait_for_writers_and_writers_for_readers():
    batches = [
        pending(kv_batch(set={A: "1"})),  # 0 writes A
        pending(kv_batch(require=A, set={B: "1"})),  # 1 reads+writes A (declared), writes B
        pending(batch_of(kv_txn(inputs=[A], outputs=[C], set={C: "1"}))),  # 2 reads A only
        pending(batch_of(kv_txn(inputs=[C], outputs=[C], set={C: "2"}))),  # 3 reads and writes C
        pending(batch_of(kv_txn(inputs=[], outputs=[A], set={A: "3"}))),  # 4 writes A
    ]
    waits, _ = plan(batches)
    assert waits == [(), (0,), (1,), (2,), (1, 2)]


def test_a_namespace_wide_batch_is_a_barrier():
    batches = [
        pending(kv_batch(set={A: "1"})),
        pending(batch_of(kv_txn(inputs=["00"], outputs=["00"], set={B: "1"}))),
        pending(kv_batch(set={C: "1"})),
    ]
    waits, _ = plan(batches)
    assert waits == [(), (0,), (1,)]


def test_explicit_dependencies_on_a_running_batch_must_be_valid_first():
    first = kv_txn(set={A: "1"})
    waits, requires_valid = plan(
        [pending(batch_of(first)), pending(batch_of(kv_txn(set={B: "1"}, dependencies=[first.header_signature])))]
    )
    assert waits == [(), (0,)]
    assert requires_valid == [(), (0,)]


def test_forgotten_batches_are_waited_for_by_nobody_and_their_transactions_are_not_running():
    planner = Planner()
    first = pending(kv_batch(set={A: "1"}))
    reader = pending(batch_of(kv_txn(inputs=[B], outputs=[C], set={C: "1"})))
    barrier = pending(batch_of(kv_txn(inputs=["00"], outputs=["00"], set={B: "1"})))
    planner.add(0, first)
    planner.add(1, reader)
    assert first.txn_ids[0] in planner
    planner.forget({0})
    assert first.txn_ids[0] not in planner
    assert planner.add(2, pending(kv_batch(set={A: "2"}))).waits_for == ()
    assert planner.add(3, pending(kv_batch(set={B: "2"}))).waits_for == (1,)
    planner.add(4, barrier)
    planner.forget({1, 2, 3, 4})
    assert planner.add(5, pending(kv_batch(set={C: "3"}))).waits_for == ()
