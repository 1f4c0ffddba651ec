"""Choosing the next batches and the order constraints between running ones."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.xo_devnet.harness import NAMESPACE, address, batch_of, kv_batch, kv_txn
from xo_devnet.scheduler import PendingBatch, Planner, Selection, select_batches

A, B, C = address("a"), address("b"), address("c")
CLOCK = "00b1" + "1" * 66
"""An address under the prefix ``00b1``, as BlockInfo's config is under ``00b10c``."""
OTHER = "ff" + "0" * 68
"""An address outside the kv namespace."""


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
    namespace_wide = pending(batch_of(kv_txn(inputs=[NAMESPACE], outputs=[NAMESPACE], set={B: "1"})))
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


def test_a_namespace_wide_writer_is_ordered_against_everything_under_its_namespace():
    batches = [
        pending(kv_batch(set={A: "1"})),
        pending(batch_of(kv_txn(inputs=[NAMESPACE], outputs=[NAMESPACE], set={B: "1"}))),
        pending(kv_batch(set={C: "1"})),
        pending(batch_of(kv_txn(inputs=[OTHER], outputs=[OTHER], set={OTHER: "1"}))),
    ]
    waits, _ = plan(batches)
    assert waits == [(), (0,), (1,), ()]


def test_readers_of_a_prefix_run_side_by_side_and_only_writers_under_it_order_them():
    """rps moves in two games both read BlockInfo's prefix; only a write under it comes between them."""
    clock = ["00b1", CLOCK]
    game_1 = pending(batch_of(kv_txn(inputs=[A, *clock], outputs=[A], set={A: "1"})))
    game_2 = pending(batch_of(kv_txn(inputs=[B, *clock], outputs=[B], set={B: "1"})))
    tick = pending(batch_of(kv_txn(inputs=[CLOCK], outputs=[CLOCK], set={CLOCK: "2"})))
    game_1_again = pending(batch_of(kv_txn(inputs=[A, *clock], outputs=[A], set={A: "2"})))
    elsewhere = pending(kv_batch(set={C: "1"}))
    waits, _ = plan([game_1, game_2, tick, game_1_again, elsewhere])
    assert waits == [(), (), (0, 1), (0, 2), ()]


def test_a_written_prefix_orders_readers_and_writers_under_it_both_ways():
    under = address("x")[:4]
    first_reader = pending(batch_of(kv_txn(inputs=[address("x")], outputs=[C], set={C: "1"})))
    prefix_writer = pending(batch_of(kv_txn(inputs=[], outputs=[under], set={address("x"): "1"})))
    later_reader = pending(batch_of(kv_txn(inputs=[under + "ab"], outputs=[B], set={B: "1"})))
    whole_namespace = pending(batch_of(kv_txn(inputs=[NAMESPACE], outputs=[OTHER], set={OTHER: "1"})))
    waits, _ = plan([first_reader, prefix_writer, later_reader, whole_namespace])
    # the namespace reader reads what each of them writes (C, the prefix, B), all under the kv namespace
    assert waits == [(), (0,), (1,), (0, 1, 2)]


def test_a_batch_held_back_for_a_processor_holds_back_only_what_overlaps_its_writes_or_writes_what_it_reads():
    clock = ["00b1", CLOCK]
    waiting = pending(batch_of(kv_txn(family="other", inputs=[A, *clock], outputs=[A], set={A: "1"})))
    reads_the_clock_too = pending(batch_of(kv_txn(inputs=[B, *clock], outputs=[B], set={B: "1"})))
    writes_the_clock = pending(batch_of(kv_txn(inputs=[], outputs=[CLOCK], set={CLOCK: "1"})))
    writes_under_the_prefix = pending(batch_of(kv_txn(inputs=[], outputs=["00b1" + "0" * 66], set={C: "1"})))
    chosen = select([waiting, reads_the_clock_too, writes_the_clock, writes_under_the_prefix])
    assert chosen == [reads_the_clock_too]


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
    namespace_wide = pending(batch_of(kv_txn(inputs=[NAMESPACE], outputs=[NAMESPACE], set={B: "1"})))
    planner.add(0, first)
    planner.add(1, reader)
    assert first.txn_ids[0] in planner
    planner.forget({0})
    assert first.txn_ids[0] not in planner
    assert planner.add(2, pending(kv_batch(set={A: "2"}))).waits_for == ()
    assert planner.add(3, pending(kv_batch(set={B: "2"}))).waits_for == (1,)
    assert planner.add(4, namespace_wide).waits_for == (1, 2, 3)
    planner.forget({1, 2, 3, 4})
    assert planner.add(5, pending(kv_batch(set={C: "3"}))).waits_for == ()


# Serial equivalence, for any mix of addresses and prefixes: whenever two batches conflict (one writes
# what the other reads or writes), the later one waits for the earlier one, directly or through others;
# and a batch waits directly only for batches it conflicts with, so batches that share nothing run at once.
def covers(declared: str, other: str) -> bool:
    shorter, longer = sorted((declared, other), key=len)
    return declared == other or (len(shorter) < 70 and longer.startswith(shorter))


def conflict(earlier: PendingBatch, later: PendingBatch) -> bool:
    def meet(ones, others):
        return any(covers(one, other) for one in ones for other in others)

    return (
        meet(earlier.writes, later.reads | later.writes)
        or meet(earlier.reads, later.writes)
    )


declared = st.sampled_from(["", "00", "00b1", CLOCK, A, B, C, OTHER, "ff"])
footprints = st.lists(
    st.tuples(st.lists(declared, max_size=3), st.lists(declared, max_size=2)), min_size=1, max_size=12
)


@settings(max_examples=150, deadline=None)
@given(footprints)
def test_the_planner_orders_every_conflicting_pair_and_nothing_else(footprints):
    batches = [pending(batch_of(kv_txn(inputs=reads, outputs=writes))) for reads, writes in footprints]
    waits, _ = plan(batches)
    reached: list[set[int]] = []
    for later, direct in enumerate(waits):
        reached.append(set(direct).union(*(reached[earlier] for earlier in direct)))
        for earlier in direct:
            assert conflict(batches[earlier], batches[later]), (earlier, later)
        for earlier in range(later):
            if conflict(batches[earlier], batches[later]):
                assert earlier in reached[later], (earlier, later)
