"""Declarations found by overlap: the index answers exactly what comparing with every stored declaration would."""

from hypothesis import given, settings
from hypothesis import strategies as st

from xo_devnet.address_index import AddressIndex

FULL = 70


def overlap(one: str, other: str) -> bool:
    """Equal, or the shorter is a prefix (shorter than an address) of the longer: a full address covers only itself."""
    shorter, longer = sorted((one, other), key=len)
    return one == other or (len(shorter) < FULL and longer.startswith(shorter))


# Full addresses and prefixes over a few shared beginnings, so that many of them overlap.
heads = st.sampled_from(["", "00", "00b1", "00b10c", "5b73", "5b7349", "c5"])
tails = st.text("0a", min_size=0, max_size=3)
full_addresses = st.builds(lambda head, tail: (head + tail).ljust(FULL, "0"), heads, tails)
prefixes = st.builds(lambda head, tail: head + tail, heads, tails)
declarations = st.one_of(full_addresses, prefixes, st.just("0" * 72))
operations = st.lists(
    st.tuples(st.sampled_from(["add", "replace", "discard", "forget", "ask"]), declarations, st.integers(0, 5)),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(operations, st.lists(declarations, min_size=1, max_size=8))
def test_overlapping_finds_exactly_the_keys_of_the_overlapping_declarations(operations, questions):
    index: AddressIndex[int] = AddressIndex()
    model: dict[str, list[int]] = {}
    for operation, declaration, key in operations:
        if operation == "add":
            index.add(declaration, key)
            model.setdefault(declaration, []).append(key)
        elif operation == "replace":
            index.replace(declaration, key)
            model[declaration] = [key]
        elif operation == "discard":
            index.discard(declaration)
            model.pop(declaration, None)
        elif operation == "forget":
            index.forget({key})
            model = {found: kept for found, keys in model.items() if (kept := [k for k in keys if k != key])}
        else:
            questions = [*questions, declaration]  # asking builds tables that later changes must keep up to date
            set(index.overlapping(declaration))
    for question in questions:
        expected = {key for found, keys in model.items() if overlap(found, question) for key in keys}
        assert set(index.overlapping(question)) == expected
        assert index.overlaps(question) == bool(expected)
    assert bool(index) == bool(model)


def test_a_prefix_meets_the_addresses_under_it_and_the_prefixes_above_it_but_not_its_siblings():
    index: AddressIndex[str] = AddressIndex()
    index.add("00b10c01".ljust(FULL, "0"), "config")
    index.add("00b10c00", "blocks")
    index.add("00b10c0000".ljust(FULL, "1"), "block 17")
    index.add("5b7349", "xo")
    index.add("", "everything")

    assert set(index.overlapping("00b10c00")) == {"blocks", "block 17", "everything"}
    assert set(index.overlapping("00b10c")) == {"config", "blocks", "block 17", "everything"}
    assert set(index.overlapping("5b7349".ljust(FULL, "a"))) == {"xo", "everything"}
    index.discard("")
    assert not index.overlaps("c56a0e".ljust(FULL, "a"))


def test_keys_filed_under_the_same_declaration_stay_until_forgotten_or_replaced():
    index: AddressIndex[int] = AddressIndex()
    address = "ab" * 35
    index.add(address, 1)
    index.add(address, 2)
    assert sorted(index.overlapping(address)) == [1, 2]
    index.forget({1})
    assert list(index.overlapping(address)) == [2]
    index.replace(address, 3)
    assert list(index.overlapping(address)) == [3]
    index.forget({3})
    assert not index
