"""The broker names of a channel: the client id a player connects with cannot be computed from public facts."""

from __future__ import annotations

from chips_client.messages import client_id
from xo_core.signing import Signer

ALICE = Signer.from_hex("11" * 32)
BOB = Signer.from_hex("22" * 32)
CHANNEL = bytes.fromhex("ab" * 32)


def test_a_client_id_is_stable_per_player_and_channel_and_differs_between_them() -> None:
    assert client_id(ALICE, CHANNEL) == client_id(Signer.from_hex("11" * 32), CHANNEL)  # a restart finds it again
    ids = {client_id(ALICE, CHANNEL), client_id(BOB, CHANNEL), client_id(ALICE, bytes.fromhex("cd" * 32))}
    assert len(ids) == 3


def test_a_client_id_holds_nothing_public_and_enough_secret() -> None:
    found = client_id(ALICE, CHANNEL)
    assert found.startswith("xo-chips-") and len(found) == len("xo-chips-") + 32
    secret = found.removeprefix("xo-chips-")
    int(secret, 16)  # 128 bits of an HMAC, in hex
    public = ALICE.public_key + CHANNEL.hex()
    assert not any(secret[i : i + 6] in public for i in range(len(secret) - 5)), (found, public)
