"""The worked examples of ``docs/chips-family.md``, byte for byte: each is rebuilt here and must appear there.

Every ``cbor-diag`` and ``hex`` block in the specification must be one of these
examples, so a stale example fails as surely as a wrong one.
"""

import hashlib
import re
from pathlib import Path

import cbor2
import pytest

from chips_tp import rps_app
from chips_tp.channel import channel_id
from chips_tp.channel_state import decode_state
from chips_tp.family import (
    ISSUERS_ADDRESS,
    MIN_CHALLENGE_ADDRESS,
    NAMESPACE,
    account_address,
    channel_address,
    channel_addresses,
    open_addresses,
    tournament_address,
)  # fmt: skip
from chips_tp.hashes import signed_by
from chips_tp.payload import encode_payload, parse_payload
from chips_tp.tournament import match_games, match_nonce
from tests.chips_tp.examples import ALICE, BOB, CHANNEL_ID, FIXED, ISSUER, RAW, RPS_ID, TOURNAMENT, examples
from tests.rps_tp.diagnostic import diagnostic, squeezed
from xo_core.public_keys import is_curve_point
from xo_core.settings import setting_address

SPEC = Path(__file__).resolve().parents[2] / "docs" / "chips-family.md"
EXAMPLES = examples()


def blocks(kind: str) -> list[str]:
    """The contents of every fenced block of ``kind`` in the specification."""
    return re.findall(rf"^```{kind}\n(.*?)^```$", SPEC.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)


def hex_blocks() -> list[str]:
    return ["".join(block.split()) for block in blocks("hex")]


@pytest.mark.parametrize("title", list(EXAMPLES))
def test_the_example_is_in_the_specification_in_hex_and_diagnostic_notation(title):
    data = EXAMPLES[title]
    assert data.hex() in hex_blocks(), f"{title}: {data.hex()}"
    if title not in RAW:
        shown = squeezed(diagnostic(cbor2.loads(data)))
        assert shown in [squeezed(block) for block in blocks("cbor-diag")], f"{title}:\n{diagnostic(cbor2.loads(data))}"


def test_every_example_in_the_specification_is_checked_here():
    assert sorted(hex_blocks()) == sorted(data.hex() for data in EXAMPLES.values())
    assert len(blocks("cbor-diag")) == len(EXAMPLES) - len(RAW)


@pytest.mark.parametrize(
    "title", ["issue", "transfer", "open", "join", "challenge", "challenge of turn 0", "respond", "tournament create"]
)
def test_the_payload_examples_parse_back_to_themselves(title):
    assert encode_payload(parse_payload(EXAMPLES[title])) == EXAMPLES[title]


def test_the_hashes_and_signatures_are_what_they_say():
    assert EXAMPLES["channel id"] == hashlib.sha256(EXAMPLES["channel id preimage"]).digest() == channel_id(FIXED)
    for message, digest in [
        ("state message of turn 1", "hash to sign for turn 1"),
        ("challenge message of turn 1", "hash to sign for the challenge"),
    ]:
        assert hashlib.sha256(EXAMPLES[message]).digest() == EXAMPLES[digest]
        assert cbor2.loads(EXAMPLES[message])[1] == hashlib.sha256(EXAMPLES["state of turn 1"]).digest()
    signature = EXAMPLES["alice's signature of turn 1"]
    assert signed_by(ALICE.public_key, signature, EXAMPLES["state message of turn 1"])
    assert not signed_by(ALICE.public_key, signature, EXAMPLES["challenge message of turn 1"])
    assert not signed_by(BOB.public_key, signature, EXAMPLES["state message of turn 1"])


def test_the_addresses_in_the_specification():
    text = SPEC.read_text(encoding="utf-8")
    inputs, outputs = open_addresses(CHANNEL_ID, FIXED.participants)
    assert all(address in text for address in inputs + outputs)
    assert set(inputs) - set(channel_addresses(CHANNEL_ID, FIXED.participants)[0]) == {MIN_CHALLENGE_ADDRESS}
    assert NAMESPACE == hashlib.sha512(b"chips").hexdigest()[:6] == "7d3d52"
    shown = set(re.findall(r"\b(?:7d3d52|000000)[0-9a-f]{16,}\b", text))
    assert shown == {
        account_address(ALICE.public_key), account_address(BOB.public_key), channel_address(CHANNEL_ID),
        ISSUERS_ADDRESS, MIN_CHALLENGE_ADDRESS, tournament_address(TOURNAMENT.name),
    }  # fmt: skip
    assert setting_address("chips.min_challenge_seconds") == MIN_CHALLENGE_ADDRESS
    assert setting_address("chips.issuers") == ISSUERS_ADDRESS
    assert (
        "000000" + "".join(hashlib.sha256(part.encode()).hexdigest()[:16] for part in ("chips", "issuers", "", ""))
        == ISSUERS_ADDRESS
    )


def test_the_example_keys_are_those_of_private_keys_1_2_and_3():
    assert ALICE.public_key == "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
    assert BOB.public_key == "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
    assert ISSUER.public_key in SPEC.read_text(encoding="utf-8")


def test_the_rps_example_commits_to_rock_for_its_channel_round_and_proposer():
    assert EXAMPLES["rps commitment"] == hashlib.sha256(EXAMPLES["rps commitment preimage"]).digest()
    state = decode_state(EXAMPLES["rps state of turn 1"], rps_app.decode)
    assert (state.channel, state.turn, state.app.position, state.app.round) == (RPS_ID, 1, "RoundProposed", 1)
    assert state.app.commitment == EXAMPLES["rps commitment"]


def test_every_key_the_specification_shows_is_a_point_on_the_curve():
    keys = set(re.findall(r"\b0[23][0-9a-f]{64}\b", SPEC.read_text(encoding="utf-8")))
    assert {ALICE.public_key, BOB.public_key, ISSUER.public_key} <= keys
    assert [key for key in keys if not is_curve_point(key)] == []


def test_the_tournament_example_names_its_match_channel_nonce():
    digest = hashlib.sha256(EXAMPLES["tournament match nonce preimage"]).digest()
    nonce = int.from_bytes(digest[:7], "big") << 8 | 1
    games = match_games(TOURNAMENT.game, TOURNAMENT.first_to)
    assert nonce == match_nonce(TOURNAMENT.name, 1, 0, games) == 0xCCCB832E02849401
    text = SPEC.read_text(encoding="utf-8")
    assert f"`0x{nonce:016x}` ({nonce})" in text and digest.hex()[:14] in text
