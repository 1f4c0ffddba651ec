"""The faucet's book: each key's chips and all keys' within a rolling hour, and when asking again works."""

from __future__ import annotations

import pytest

from xo_devnet.faucet import FaucetBook, OverLimit


def test_a_key_gets_its_limit_in_any_hour_and_is_told_when_more_comes():
    book = FaucetBook(per_key=1000, all_keys=10_000, window=3600)
    book.reserve("alice", 600, now=0)
    book.reserve("alice", 400, now=100)
    with pytest.raises(OverLimit) as over:
        book.reserve("alice", 1, now=200)
    assert over.value.retry_after == 3400 and "ask again in 3400 s" in over.value.message
    with pytest.raises(OverLimit) as over:
        book.reserve("alice", 500, now=200)
    assert over.value.retry_after == 3400  # the first 600 leaving the window make room for 500
    book.reserve("alice", 600, now=3600)  # the first grant left the window
    book.reserve("bob", 1000, now=3600)  # each key has its own limit


def test_all_keys_together_are_limited_so_fresh_keys_do_not_help():
    book = FaucetBook(per_key=100, all_keys=250, window=60)
    book.reserve("k1", 100, now=0)
    book.reserve("k2", 100, now=1)
    with pytest.raises(OverLimit) as over:
        book.reserve("k3", 100, now=2)
    assert "to all keys together" in over.value.message and over.value.retry_after == 58
    book.reserve("k3", 50, now=2)


def test_an_issue_that_did_not_commit_is_not_counted_and_an_amount_over_the_limit_is_refused_outright():
    book = FaucetBook(per_key=100, all_keys=1000, window=60)
    book.reserve("k", 100, now=0)
    book.release("k", 100, now=0)
    book.reserve("k", 100, now=1)
    with pytest.raises(OverLimit, match="at most 100 chips a key in an hour"):
        FaucetBook(per_key=100).reserve("k", 101, now=0)
