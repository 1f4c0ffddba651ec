"""What the banner says of each key's chips, read from state as the chips family wrote it."""

from chips_tp.family import ISSUERS_ADDRESS, ISSUERS_SETTING, account_address
from chips_tp.state import Account, encode_account
from xo_core.settings import encode_setting
from xo_devnet.genesis import genesis_state
from xo_devnet.key_chips import KeyChips, key_chips

ALICE, BOB, ISSUER, STRANGER = ("02" + digit * 64 for digit in "abcd")


def test_a_new_chain_shows_the_players_opening_chips_and_the_issuer():
    state = genesis_state(ISSUER, [ALICE, BOB])
    found = key_chips(state.get, [ALICE, BOB, ISSUER, STRANGER])
    assert found == {
        ALICE: KeyChips(1000, issuer=False),
        BOB: KeyChips(1000, issuer=False),
        ISSUER: KeyChips(None, issuer=True),
        STRANGER: KeyChips(None, issuer=False),
    }
    assert [chips.words() for chips in found.values()] == ["1,000 chips", "1,000 chips", "may issue chips", "no chips"]


def test_what_a_key_holds_now_is_shown_and_an_issuer_holding_chips_says_both():
    state = {
        ISSUERS_ADDRESS: encode_setting({ISSUERS_SETTING: f"{BOB}, {ISSUER}"}),
        account_address(ALICE): encode_account(Account(ALICE, 1)),
        account_address(BOB): encode_account(Account(BOB, 1250)),
    }
    found = key_chips(state.get, [ALICE, BOB])
    assert [found[ALICE].words(), found[BOB].words()] == ["1 chip", "1,250 chips, may issue chips"]


def test_corrupt_entries_count_as_nothing_rather_than_stopping_the_banner():
    state = {
        ISSUERS_ADDRESS: b"\xff not a setting",
        account_address(ALICE): b"\xff not cbor",
        account_address(BOB): encode_account(Account(ALICE, 5)),  # another key's account at bob's address
    }
    assert key_chips(state.get, [ALICE, BOB]) == {
        ALICE: KeyChips(None, issuer=False),
        BOB: KeyChips(None, issuer=False),
    }
