"""The worked examples of ``docs/rps-family.md``, byte for byte: each is rebuilt here and must appear there.

Every ``cbor-diag`` and ``hex`` block in the specification must be one of these
examples, so a stale example fails as surely as a wrong one.
"""

import hashlib
import re
from pathlib import Path

import cbor2
import pytest

from rps_tp import rules
from rps_tp.commitment import commitment, preimage
from rps_tp.family import game_address, transaction_inputs, transaction_outputs
from rps_tp.game import Settings, moment_of
from rps_tp.ops import Commit, Create, Join, Ready, Resign, Reveal
from rps_tp.payload import encode_payload, parse_payload
from rps_tp.state import decode_bucket, encode_bucket
from tests.rps_tp.diagnostic import diagnostic, squeezed
from tests.rps_tp.moments import SETTING_UP, committing, revealing
from xo_core import block_info
from xo_core.signing import Signer

SPEC = Path(__file__).resolve().parents[2] / "docs" / "rps-family.md"
#: The public keys of the private keys 1 and 2: anyone can check them.
ALICE = Signer.from_hex("00" * 31 + "01").public_key
BOB = Signer.from_hex("00" * 31 + "02").public_key
SALT_ALICE = bytes(range(32))
SALT_BOB = bytes(range(32, 64))
SETTINGS = Settings(points=1, timeout=300)
NOW = 1_700_000_000


def examples() -> dict[str, bytes]:
    """Every example the specification shows, by title, as the bytes the processor reads or writes."""
    alice_commitment = commitment("g1", 1, ALICE, "rock", SALT_ALICE)
    bob_commitment = commitment("g1", 1, BOB, "scissors", SALT_BOB)
    game = rules.apply_op(None, Create("g1"), ALICE, None)
    assert game is not None and moment_of(game) == SETTING_UP
    game = rules.apply_op(game, Join("g1", SETTING_UP), BOB, None)
    game = rules.apply_op(game, Ready("g1", SETTING_UP, SETTINGS), ALICE, None)
    game = rules.apply_op(game, Ready("g1", SETTING_UP, SETTINGS), BOB, NOW)
    committed = rules.apply_op(game, Commit("g1", committing(1), alice_commitment), ALICE, NOW + 10)
    assert committed is not None
    game = rules.apply_op(committed, Commit("g1", committing(1), bob_commitment), BOB, NOW + 20)
    game = rules.apply_op(game, Reveal("g1", revealing(1), "rock", SALT_ALICE), ALICE, NOW + 30)
    concluded = rules.apply_op(game, Reveal("g1", revealing(1), "scissors", SALT_BOB), BOB, NOW + 40)
    assert concluded is not None
    return {
        "create": encode_payload(Create("g1")),
        "create without joining": encode_payload(Create("g1", join=False, settings=Settings(3, 120))),
        "join": encode_payload(Join("g1", SETTING_UP)),
        "resign before play": encode_payload(Resign("g1", SETTING_UP)),
        "ready": encode_payload(Ready("g1", SETTING_UP, SETTINGS)),
        "preimage": preimage("g1", 1, ALICE, "rock", SALT_ALICE),
        "commitment": alice_commitment,
        "commit": encode_payload(Commit("g1", committing(1), alice_commitment)),
        "reveal": encode_payload(Reveal("g1", revealing(1), "rock", SALT_ALICE)),
        "state after the first commitment": encode_bucket([committed]),
        "state of the concluded game": encode_bucket([concluded]),
    }


def blocks(kind: str) -> list[str]:
    """The contents of every fenced block of ``kind`` in the specification."""
    return re.findall(rf"^```{kind}\n(.*?)^```$", SPEC.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)


def hex_blocks() -> list[str]:
    return ["".join(block.split()) for block in blocks("hex")]


def value_of(data: bytes) -> object:
    """What the example's bytes hold; a commitment is a bare digest, not CBOR."""
    return data if len(data) == 32 and data == examples()["commitment"] else cbor2.loads(data)


@pytest.mark.parametrize("title", list(examples()))
def test_the_example_is_in_the_specification_in_hex_and_diagnostic_notation(title):
    data = examples()[title]
    assert data.hex() in hex_blocks(), f"{title}: {data.hex()}"
    if title != "commitment":
        assert squeezed(diagnostic(value_of(data))) in [squeezed(block) for block in blocks("cbor-diag")], (
            f"{title}:\n{diagnostic(value_of(data))}"
        )


def test_every_example_in_the_specification_is_checked_here():
    assert sorted(hex_blocks()) == sorted(data.hex() for data in examples().values())
    assert len(blocks("cbor-diag")) == len(examples()) - 1


def test_the_payload_examples_parse_and_the_state_examples_decode():
    for title in ("create", "create without joining", "join", "resign before play", "ready", "commit", "reveal"):
        assert encode_payload(parse_payload(examples()[title])) == examples()[title]
    for title in ("state after the first commitment", "state of the concluded game"):
        address = game_address("g1")
        assert encode_bucket(decode_bucket(address, examples()[title]).values()) == examples()[title]


def test_the_resign_signed_before_play_is_refused_then_and_once_play_has_started_as_the_specification_says():
    resign = parse_payload(examples()["resign before play"])
    lobby = rules.apply_op(rules.apply_op(None, Create("g1"), ALICE, None), Join("g1", SETTING_UP), BOB, None)
    playing = rules.apply_op(
        rules.apply_op(lobby, Ready("g1", SETTING_UP, SETTINGS), ALICE, NOW),
        Ready("g1", SETTING_UP, SETTINGS),
        BOB,
        NOW,
    )
    text = " ".join(SPEC.read_text(encoding="utf-8").split())
    for game in (lobby, playing):
        with pytest.raises(rules.IllegalMove) as raised:
            rules.apply_op(game, resign, BOB, NOW)
        assert f"`{raised.value}`" in text


def test_the_commitment_is_the_sha256_of_the_preimage():
    assert examples()["commitment"] == hashlib.sha256(examples()["preimage"]).digest()


def test_the_addresses_in_the_specification():
    text = SPEC.read_text(encoding="utf-8")
    assert all(address in text for address in transaction_inputs("mygame") + transaction_outputs("mygame"))
    shown = set(re.findall(r"\b(?:c56a0e|00b10c0[01])[0-9a-f]{16,}\b", text))
    assert shown == {game_address("mygame"), block_info.CONFIG_ADDRESS}


def test_the_example_keys_are_those_of_private_keys_1_and_2():
    assert ALICE == "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
    assert BOB == "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
