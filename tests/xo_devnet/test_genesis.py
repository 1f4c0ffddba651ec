"""A new chain's genesis state: the chips issuers setting and the players' opening chips, in block 0's state."""

import asyncio

from chips_tp.family import ISSUERS_ADDRESS, MIN_CHALLENGE_ADDRESS, account_address
from chips_tp.state import decode_account
from xo_core.settings import setting_value
from xo_devnet.genesis import OPENING_CHIPS, genesis_state
from xo_devnet.ledger import Ledger, LedgerConfig

ISSUER = "02" + "33" * 32
PLAYERS = ["02" + "11" * 32, "03" + "22" * 32]


def test_the_genesis_state_names_the_issuer_and_credits_each_player():
    state = genesis_state(ISSUER, PLAYERS)
    assert setting_value(state[ISSUERS_ADDRESS], "chips.issuers") == ISSUER
    for player in PLAYERS:
        account = decode_account(account_address(player), state[account_address(player)], player)
        assert account is not None and account.balance == OPENING_CHIPS == 1000
    assert setting_value(state[MIN_CHALLENGE_ADDRESS], "chips.min_challenge_seconds") == "10"
    assert len(state) == 4


def test_the_genesis_sets_the_challenge_floor_it_is_given_and_names_no_issuer_without_a_key():
    state = genesis_state(None, PLAYERS, min_challenge=1)
    assert setting_value(state[MIN_CHALLENGE_ADDRESS], "chips.min_challenge_seconds") == "1"
    assert ISSUERS_ADDRESS not in state and len(state) == 3


def test_a_new_ledger_holds_its_genesis_state_in_block_0(tmp_path):
    async def genesis_entries(data_dir, genesis):
        config = LedgerConfig(data_dir=data_dir, component_endpoint="tcp://127.0.0.1:0", genesis_state=genesis)
        ledger = await Ledger.start(config)
        try:
            root = ledger.state_root_of(ledger.chain_head().header_signature)
            return {address: ledger.state_get(address, root) for address in genesis}
        finally:
            await ledger.stop()

    genesis = genesis_state(ISSUER, PLAYERS)
    assert asyncio.run(genesis_entries(tmp_path, genesis)) == genesis
    other = genesis_state("03" + "44" * 32, PLAYERS)
    kept = asyncio.run(genesis_entries(tmp_path, other))
    assert kept[ISSUERS_ADDRESS] == genesis[ISSUERS_ADDRESS], "a chain already started keeps its genesis"
