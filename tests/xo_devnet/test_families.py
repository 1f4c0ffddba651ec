"""Which transaction families a ledger accepts: others are refused at submission, and recorded ones end INVALID."""

import pytest

from tests.xo_devnet.harness import (
    NAMESPACE,
    address,
    batch_of,
    commit,
    connected,
    kv_batch,
    kv_txn,
    run,
    running_ledger,
)
from xo_devnet.families import UnacceptedFamily, describe_families, parse_families

A, B = address("a"), address("b")
KV = frozenset({("kv", "1.0")})


def test_a_family_list_is_family_colon_version_separated_by_commas():
    assert parse_families("xo:1.0, intkey:1.0,") == (("xo", "1.0"), ("intkey", "1.0"))
    assert parse_families("") == ()
    assert describe_families([("xo", "1.0"), ("intkey", "1.0")]) == "intkey 1.0, xo 1.0"


@pytest.mark.parametrize("text", ["xo", "xo:", ":1.0", "xo:1.0:2", "x o:1.0", "xo:1 .0"])
def test_a_malformed_family_list_is_refused_naming_the_entry(text):
    with pytest.raises(ValueError, match="FAMILY:VERSION"):
        parse_families(text)


def test_a_batch_of_a_family_or_version_the_ledger_does_not_accept_is_refused_at_submission():
    async def scenario():
        async with running_ledger(families=KV) as ledger, connected(ledger):
            for family, version in [("intkey", "1.0"), ("kv", "2.0")]:
                stranger = batch_of(kv_txn(family=family, version=version, inputs=[NAMESPACE], outputs=[NAMESPACE]))
                with pytest.raises(UnacceptedFamily, match=f"{family} {version}.*accepts kv 1.0"):
                    ledger.submit([stranger])
                assert ledger.batch_statuses([stranger.header_signature])[0].status == "UNKNOWN"
            fine, mixed = kv_batch(set={A: "1"}), batch_of(kv_txn(family="intkey", set={B: "1"}))
            with pytest.raises(UnacceptedFamily, match=mixed.transactions[0].header_signature[:16]):
                ledger.submit([fine, mixed])
            assert ledger.batch_statuses([fine.header_signature])[0].status == "UNKNOWN"
            assert await commit(ledger, fine) == ["COMMITTED"]

    run(scenario)


def test_without_a_family_list_a_ledger_accepts_every_family():
    async def scenario():
        async with running_ledger() as ledger:
            await ledger.submit([batch_of(kv_txn(family="anything", version="9", set={A: "1"}))])

    run(scenario)


def test_a_recorded_batch_of_a_family_no_longer_accepted_ends_invalid_on_restart_and_frees_the_rest(tmp_path):
    """The attack that froze XO: an intkey batch writing the whole namespace, accepted before families were checked."""
    stranger = batch_of(kv_txn(family="intkey", inputs=[NAMESPACE], outputs=[NAMESPACE]))
    behind = kv_batch(set={A: "after"})

    async def scenario():
        async with running_ledger(tmp_path) as ledger:
            await ledger.submit([stranger])
            await ledger.submit([behind])
        async with running_ledger(tmp_path, families=KV) as ledger, connected(ledger):
            ids = [stranger.header_signature, behind.header_signature]
            statuses = await ledger.wait_for_batches(ids, 20)
            assert [status.status for status in statuses] == ["INVALID", "COMMITTED"]
            [reason] = statuses[0].invalid_transactions
            assert reason.id == stranger.transactions[0].header_signature
            assert "intkey 1.0 is not accepted" in reason.message
        async with running_ledger(tmp_path, families=KV) as ledger:
            assert [status.status for status in ledger.batch_statuses(ids)] == ["INVALID", "COMMITTED"]

    run(scenario)
