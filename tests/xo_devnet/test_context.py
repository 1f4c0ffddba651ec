"""A transaction's state context: what it may read and write, and what it sees."""

import pytest

from xo_core.protobuf.transaction_receipt_pb2 import StateChange
from xo_devnet.context import AuthorizationError, TxnContext, layered_reader

NS = "5b7349"
GAME = NS + "ab" * 32
OTHER = "00" + "cd" * 34


def committed(address: str) -> bytes | None:
    return {GAME: b"committed"}.get(address)


def test_reads_under_an_input_namespace_are_allowed():
    context = TxnContext([NS], [GAME], committed)
    assert context.get([GAME, NS + "00" * 32]) == [(GAME, b"committed"), (NS + "00" * 32, b"")]


@pytest.mark.parametrize("address", [OTHER, GAME.upper(), GAME[:-2], GAME + "00", "zz" * 35, ""])
def test_reads_outside_the_inputs_or_of_malformed_addresses_are_refused(address):
    with pytest.raises(AuthorizationError):
        TxnContext([NS], [NS], committed).get([address])


def test_writes_must_be_under_the_outputs_even_if_readable():
    context = TxnContext([NS, OTHER], [GAME], committed)
    with pytest.raises(AuthorizationError, match="outputs"):
        context.set([(OTHER, b"x")])
    with pytest.raises(AuthorizationError, match="outputs"):
        context.delete([OTHER])
    assert context.writes == {}


def test_writes_and_deletes_must_also_be_under_the_namespaces_the_processor_registered():
    context = TxnContext([NS, OTHER], [NS, OTHER], committed)
    context.restrict_writes(("00",), "kv", "1.0")
    context.set([(OTHER, b"mine")])
    with pytest.raises(AuthorizationError, match=r"namespaces kv 1\.0 registered \(00\)"):
        context.set([(GAME, b"not mine")])
    with pytest.raises(AuthorizationError, match=r"namespaces kv 1\.0 registered"):
        context.delete([GAME])
    assert context.get([GAME]) == [(GAME, b"committed")]
    assert context.writes == {OTHER: b"mine"}


@pytest.mark.parametrize(("namespace", "owner"), [("00b10c", "block_info"), ("000000", "sawtooth_settings")])
def test_the_ledgers_namespaces_are_written_by_their_own_family_only_whatever_a_processor_registered(namespace, owner):
    target = namespace + "0" * 64
    context = TxnContext([namespace], [namespace], committed)
    context.restrict_writes((namespace, "00"), "evil", "1.0")
    refusal = rf"namespace {namespace} belongs to the ledger \({owner}\); evil 1\.0 may not write it"
    with pytest.raises(AuthorizationError, match=refusal):
        context.set([(target, b"forged")])
    with pytest.raises(AuthorizationError, match="belongs to the ledger"):
        context.delete([target])
    assert context.writes == {}
    own = TxnContext([namespace], [namespace], committed)
    own.restrict_writes((namespace,), owner, "1.0")
    own.set([(target, b"its own")])
    assert own.writes == {target: b"its own"}


def test_a_processor_that_registered_no_namespace_may_write_nothing():
    context = TxnContext([NS], [NS], committed)
    context.restrict_writes((), "quiet", "1.0")
    with pytest.raises(AuthorizationError, match=r"registered \(none\)"):
        context.set([(GAME, b"x")])


def test_a_refused_request_writes_nothing_at_all():
    context = TxnContext([NS], [GAME], committed)
    with pytest.raises(AuthorizationError):
        context.set([(GAME, b"fine"), (OTHER, b"not fine")])
    assert context.writes == {}


def test_a_transaction_reads_its_own_writes_and_deletes():
    context = TxnContext([NS], [NS], committed)
    context.set([(GAME, b"mine")])
    assert context.get([GAME]) == [(GAME, b"mine")]
    context.delete([GAME])
    assert context.get([GAME]) == [(GAME, b"")]


def test_the_receipt_holds_final_writes_events_and_data():
    context = TxnContext([NS], [NS], committed)
    context.set([(GAME, b"1"), (NS + "11" * 32, b"2")])
    context.delete([NS + "11" * 32])
    context.data.append(b"note")
    receipt = context.receipt("txn-id")
    assert [(c.address, c.type, c.value) for c in receipt.state_changes] == [
        (GAME, StateChange.SET, b"1"),
        (NS + "11" * 32, StateChange.DELETE, b""),
    ]
    assert list(receipt.data) == [b"note"]
    assert receipt.transaction_id == "txn-id"


def test_layers_are_read_top_down_and_none_means_deleted():
    read = layered_reader(({GAME: None}, {GAME: b"block", OTHER: b"block"}), committed)
    assert read(GAME) is None
    assert read(OTHER) == b"block"
    assert layered_reader(({},), committed)(GAME) == b"committed"
