"""``POST /xo-devnet/faucet``: chips for a key, issued from the devnet's issuer within the limits of
:mod:`xo_devnet.faucet`. Ours: Sawtooth's REST API has no such route, and a real network answers it 404, which is how
``chips faucet`` tells a network whose chips come from its issuers alone.

The body is ``{"public_key": KEY, "amount": N}`` (``amount`` optional); the answer, once the
issue committed, ``{"data": {"public_key", "amount", "balance", "batch_id", "limits"}}``.
A request the limits refuse is a 429 with a Sawtooth-style error body saying which limit
and when asking again works; the issue is checked against the chain's rules before it is
signed, so a devnet whose issuer is not (or no longer) an issuer says so instead of
submitting.
"""

from __future__ import annotations

import json

from aiohttp import web

from chips_client import checks
from chips_client.channels import account_of, issuers_of
from chips_client.faucet import DEFAULT_AMOUNT, PER_KEY_PER_HOUR
from chips_client.transactions import issue
from chips_tp.family import ISSUERS_ADDRESS, account_address
from chips_tp.state import Account
from xo_core.batches import make_batch
from xo_core.public_keys import key_problem
from xo_devnet.faucet import OverLimit
from xo_devnet.ledger import DuplicateBatch, Ledger, QueueFull, UnacceptedFamily
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.keys import FAUCET, LEDGER
from xo_devnet.rest.queries import bounded_body, declared_media_type
from xo_devnet.rest.responses import json_response

COMMIT_WAIT_SECONDS = 30.0
"""How long the route waits for the issue to commit (a devnet commits within a block interval)."""
MAX_KEY_CHARACTERS = 200


async def post_faucet(request: web.Request) -> web.Response:
    """Issue chips to the key the body names: 200 with its new balance once committed, else an error body."""
    key, amount = await _asked(request)
    faucet, ledger = request.app[FAUCET], request.app[LEDGER]
    if faucet.issuer is None:
        raise ApiError(102, "this devnet has no issuer key (chips-issuer in its key directory)")
    issuer = faucet.issuer.public_key
    issuers = issuers_of(_read(ledger, ISSUERS_ADDRESS))
    if problem := checks.issue_refusal(_account(ledger, key), issuer, key, amount, issuers):
        raise ApiError(102, problem)
    now = faucet.clock()
    try:
        faucet.book.reserve(key, amount, now)
    except OverLimit as over:
        raise ApiError(101, over.message) from None
    batch = make_batch(faucet.issuer, [issue(faucet.issuer, key, amount)])
    try:
        await ledger.submit([batch])
        (status,) = await ledger.wait_for_batches([batch.header_signature], COMMIT_WAIT_SECONDS)
    except (QueueFull, DuplicateBatch, UnacceptedFamily) as error:
        faucet.book.release(key, amount, now)
        raise ApiError(102, f"the ledger did not take the issue: {error}") from None
    if status.status != "COMMITTED":
        faucet.book.release(key, amount, now)
        reasons = "; ".join(info.message for info in status.invalid_transactions) or status.status.lower()
        raise ApiError(102, f"the issue was not committed: {reasons}")
    account = _account(ledger, key)
    return json_response({"data": {
        "public_key": key, "amount": amount, "balance": 0 if account is None else account.balance,
        "batch_id": batch.header_signature,
        "limits": {"per_key_per_hour": faucet.book.per_key, "all_keys_per_hour": faucet.book.all_keys},
    }})  # fmt: skip


async def _asked(request: web.Request) -> tuple[str, int]:
    """The key and the amount the body asks for; error 100 saying what is wrong with it."""
    if declared_media_type(request) != "application/json":
        raise ApiError(100, "the body must be JSON, with a 'Content-Type' header of 'application/json'.")
    body = await bounded_body(request, 100, "the body is too large.")
    try:
        asked = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError(100, "the body is not JSON.") from None
    if not isinstance(asked, dict) or set(asked) - {"public_key", "amount"}:
        raise ApiError(100, "the body must be an object with 'public_key' and, if wanted, 'amount'.")
    key, amount = asked.get("public_key"), asked.get("amount", DEFAULT_AMOUNT)
    if not isinstance(key, str) or len(key) > MAX_KEY_CHARACTERS or (problem := key_problem(key)):
        raise ApiError(100, f"'public_key' must be a player's public key: it {problem or 'is not text'}.")
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= PER_KEY_PER_HOUR:
        raise ApiError(100, f"'amount' must be a whole number of chips from 1 to {PER_KEY_PER_HOUR}.")
    return key, amount


def _read(ledger: Ledger, address: str) -> bytes | None:
    """The bytes at ``address`` in the head's state."""
    root = ledger.state_root_of(ledger.chain_head().header_signature)
    return None if root is None else ledger.state_get(address, root)


def _account(ledger: Ledger, key: str) -> Account | None:
    """``key``'s account in the head's state (None: it has none)."""
    return account_of(_read(ledger, account_address(key)), key)
