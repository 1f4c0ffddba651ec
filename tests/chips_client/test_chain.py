"""A POST lost to a connection reset: the same signed batch is sent again only while the REST API does not know it."""

from __future__ import annotations

import pytest

from chips_client import chain as chain_module
from chips_client import transactions as tx
from chips_client.chain import RestChain
from client_core.answers import BatchStatus
from client_core.errors import Rejected, Unavailable
from tests.chips_client.test_match import ALICE, terms
from xo_core.protobuf.batch_pb2 import BatchList

RESET = Unavailable("the REST API at http://127.0.0.1:8008 closed the connection ([Errno 104] Connection reset)")


class Resetting:
    """A REST API that resets the first ``resets`` POSTs; ``arrived`` says whether a reset POST reached it anyway."""

    def __init__(self, resets: int, arrived: bool) -> None:
        self.resets, self.arrived = resets, arrived
        self.posted: list[bytes] = []
        self.known: set[str] = set()

    def submit_batches(self, batch_list: bytes) -> None:
        self.posted.append(batch_list)
        (batch,) = BatchList.FromString(batch_list).batches
        if batch.header_signature in self.known:
            raise Rejected(f"the REST API refused the batch: batch {batch.header_signature} is already pending")
        if len(self.posted) <= self.resets:
            if self.arrived:
                self.known.add(batch.header_signature)
            raise RESET
        self.known.add(batch.header_signature)

    def batch_status(self, batch_id: str, wait: int | None = None) -> BatchStatus:
        return BatchStatus("COMMITTED" if batch_id in self.known else "UNKNOWN", [])


@pytest.fixture(autouse=True)
def no_pause(monkeypatch):
    monkeypatch.setattr(chain_module, "POST_RETRY_SECONDS", 0.0)


def opening(client: Resetting) -> str:
    fixed = terms("xo").fixed
    return RestChain(client, ALICE, wait_seconds=5).submit_all([tx.open_channel(ALICE, fixed)], "the open")


def test_an_open_lost_to_a_reset_is_posted_again_the_same_batch_and_commits_once():
    client = Resetting(resets=2, arrived=False)
    batch_id = opening(client)
    assert len(client.posted) == 3 and len(set(client.posted)) == 1  # the same signed bytes each time
    assert client.known == {batch_id}


def test_an_open_whose_reset_post_arrived_all_the_same_is_waited_for_not_sent_twice():
    client = Resetting(resets=1, arrived=True)
    batch_id = opening(client)
    assert len(client.posted) == 1 and client.known == {batch_id}


def test_a_rest_api_that_resets_every_post_is_said_after_the_last_attempt():
    client = Resetting(resets=99, arrived=False)
    with pytest.raises(Unavailable, match="closed the connection"):
        opening(client)
    assert len(client.posted) == chain_module.POST_ATTEMPTS and not client.known
