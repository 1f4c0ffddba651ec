"""``POST /xo-devnet/faucet``: chips for a new key from the devnet's issuer, within limits it states."""

from __future__ import annotations

import pytest

from tests.xo_devnet.rest.threaded_devnet import ThreadedDevnet
from xo_core.signing import Signer
from xo_devnet.ledger import LedgerConfig
from xo_devnet.rest.keys import FAUCET as FAUCET_KEY

FAUCET = "/xo-devnet/faucet"


def test_a_new_key_gets_chips_until_its_hourly_limit_then_a_429_says_when_to_ask_again(api):
    key = Signer.generate().public_key
    first = api.post_json(FAUCET, {"public_key": key})
    assert first.status == 200, first.body
    granted = first.json["data"]
    assert (granted["public_key"], granted["amount"], granted["balance"]) == (key, 500, 500)
    assert granted["limits"] == {"per_key_per_hour": 1000, "all_keys_per_hour": 100000}
    over = api.post_json(FAUCET, {"public_key": key, "amount": 501})
    assert (over.status, over.error_code) == (429, 101)
    message = over.json["error"]["message"]
    assert "this key had its 1000 chips for this hour" in message and "ask again in " in message
    rest = api.post_json(FAUCET, {"public_key": key, "amount": 500})
    assert rest.status == 200 and rest.json["data"]["balance"] == 1000
    other = api.post_json(FAUCET, {"public_key": Signer.generate().public_key, "amount": 1})
    assert other.status == 200 and other.json["data"]["balance"] == 1  # the limit is each key's


@pytest.mark.parametrize(
    ("body", "content_type", "said"),
    [
        (b'{"public_key": "02ab"}', "application/json", "'public_key' must be a player's public key"),
        (b"[]", "application/json", "must be an object"),
        (b"not json", "application/json", "not JSON"),
        (b'{"public_key": "KEY", "amount": 0}', "application/json", "from 1 to 1000"),
        (b'{"public_key": "KEY", "amount": true}', "application/json", "from 1 to 1000"),
        (b'{"public_key": "KEY", "amount": "5"}', "application/json", "from 1 to 1000"),
        (b'{"public_key": "KEY", "amount": 1001}', "application/json", "from 1 to 1000"),
        (b'{"public_key": "KEY", "to": "x"}', "application/json", "must be an object with"),
        (b'{"public_key": "KEY"}', "text/plain", "Content-Type"),
    ],
)  # fmt: skip
def test_a_malformed_request_is_a_400_saying_what_is_wrong_and_issues_nothing(api, body, content_type, said):
    key = Signer.generate().public_key
    answer = api.post(FAUCET, body.replace(b"KEY", key.encode()), content_type)
    assert (answer.status, answer.error_code) == (400, 100)
    assert said in answer.json["error"]["message"]


def test_a_devnet_that_cannot_issue_says_why_and_counts_nothing_against_the_limit(api_for):
    devnet = ThreadedDevnet(LedgerConfig(None, component_endpoint="tcp://127.0.0.1:0")).start()
    try:
        api = api_for(devnet.server.url, allow_server_errors=True)
        key = Signer.generate().public_key
        none = api.post_json(FAUCET, {"public_key": key})
        assert (none.status, none.error_code) == (503, 102)
        assert "this devnet has no issuer key (chips-issuer in its key directory)" in none.json["error"]["message"]
        faucet = devnet.server.runner.app[FAUCET_KEY]
        faucet.issuer = Signer.generate()  # a key this chain's chips.issuers does not list
        stranger = api.post_json(FAUCET, {"public_key": key, "amount": 1000})
        assert (stranger.status, stranger.error_code) == (503, 102)
        assert "only the keys in the setting chips.issuers may issue chips" in stranger.json["error"]["message"]
        assert list(faucet.book.given) == []  # refused before anything was counted or signed
    finally:
        devnet.stop()
