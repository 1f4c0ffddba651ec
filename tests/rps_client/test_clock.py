"""The chain's clock as a client reads it through the REST API (here ``tests/fake_sawtooth.py``'s state)."""

import time

from client_core.rest import RestClient
from rps_client.clock import chain_time, claim_time
from tests.rps_tp.fakes import block_info_entries
from xo_core import block_info


def test_the_chain_s_time_is_the_newest_block_info_timestamp(fake):
    fake.state.update(block_info_entries(timestamp=1_700_000_000, block_num=41))
    client = RestClient(fake.url)
    assert chain_time(client) == 1_700_000_000
    # a claim lands in a later block: the local clock, ahead of that old timestamp, is the better guess
    assert abs(claim_time(client) - time.time()) < 5


def test_a_claim_is_judged_at_the_chain_s_time_when_it_is_ahead_of_the_local_clock(fake):
    ahead = int(time.time()) + 3600
    fake.state.update(block_info_entries(timestamp=ahead, block_num=2))
    assert claim_time(RestClient(fake.url)) == ahead


def test_a_network_without_block_info_has_no_time(fake):
    client = RestClient(fake.url)
    assert chain_time(client) is None
    assert claim_time(client) is None


def test_block_info_that_does_not_parse_is_a_warning_and_the_local_clock(fake, capsys):
    fake.state.update(block_info_entries(timestamp=5, block_num=7))
    fake.state[block_info.block_address(7)] = b"\xff not a BlockInfo"
    assert abs(chain_time(RestClient(fake.url)) - time.time()) < 5
    assert "BlockInfo cannot be read" in capsys.readouterr().err
