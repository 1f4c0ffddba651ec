"""Asking a network for chips: xo-devnet's faucet (``POST /xo-devnet/faucet``), or, where there is none, the words
that say where chips come from on that network.

A new key holds no chips; on xo-devnet the faucet gives it some at once, within the limits it
states. A Sawtooth network has no such route (it answers 404): its chips come only from its
issuers, the keys its setting ``chips.issuers`` lists, so the player is told to ask one.
"""

from __future__ import annotations

import json
from typing import Final, NamedTuple

from client_core.answers import Response, sawtooth_error
from client_core.errors import InvalidInput, Unavailable
from client_core.rest import RestClient

PATH: Final = "/xo-devnet/faucet"
"""xo-devnet's route (ours: a Sawtooth REST API has none)."""
DEFAULT_AMOUNT: Final = 500
"""What the faucet gives when no amount is asked: enough for a few matches at the README's terms."""
PER_KEY_PER_HOUR: Final = 1000
"""The most chips one key gets from the faucet in any hour (also the most one request may ask for)."""
ALL_KEYS_PER_HOUR: Final = 100_000
"""The most chips the faucet gives all keys together in any hour: fresh keys by the thousand do not help."""
HOW_TO_GET_CHIPS: Final = "on xo-devnet 'chips faucet' gives a key chips; elsewhere ask the network's issuer"
"""What the messages that find a player short of chips add, so a newcomer knows where chips come from."""


def cannot_cover(free: int, deposit: int) -> str:
    """``your 0 free chips cannot cover a deposit of 50``, and where chips come from."""
    return f"your {free} free chips cannot cover a deposit of {deposit} ({HOW_TO_GET_CHIPS})"


class Granted(NamedTuple):
    """What the faucet gave: the chips, the key's balance after, the batch, and its limits as it states them."""

    public_key: str
    amount: int
    balance: int
    batch_id: str
    per_key_per_hour: int
    all_keys_per_hour: int


def ask(client: RestClient, public_key: str, amount: int | None) -> Granted:
    """Ask the faucet for ``amount`` chips (None: its default) for ``public_key``: what it gave, once committed, or an
    :class:`InvalidInput` saying why not (its limit, a network with no faucet and whom to ask there)."""
    document: dict[str, object] = {"public_key": public_key}
    if amount is not None:
        document["amount"] = amount
    response = client.post_json(PATH, document, answered=(429, 503))
    if response.status == 404:
        raise InvalidInput(no_faucet(public_key))
    if response.status != 200:
        error = sawtooth_error(response)
        said = error.get("message") if error is not None else None
        raise InvalidInput(f"the faucet gave nothing: {said or f'it answered HTTP {response.status}'}")
    return granted(response, client.base_url)


def granted(response: Response, base_url: str) -> Granted:
    """The faucet's answer read, or :class:`Unavailable` when it is not the answer the route documents."""
    try:
        data = json.loads(response.body)["data"]
        limits = data["limits"]
        return Granted(str(data["public_key"]), int(data["amount"]), int(data["balance"]), str(data["batch_id"]),
                       int(limits["per_key_per_hour"]), int(limits["all_keys_per_hour"]))  # fmt: skip
    except (ValueError, TypeError, KeyError) as error:
        raise Unavailable(f"the faucet at {base_url} answered something else than chips granted ({error})") from None


def no_faucet(public_key: str) -> str:
    """What a player on a network with no faucet is told: where chips come from there, and how to ask."""
    return ("this network has no faucet: its chips come from its issuers (the keys its setting chips.issuers lists); "
            f"ask its operator for chips, giving your public key {public_key}: an issuer sends them with "
            f"'chips issue {public_key} AMOUNT'")  # fmt: skip
