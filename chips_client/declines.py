"""An offerer's word to an accepter that it will not join their channel: so the accepter cancels at once.

A house that cannot fund another match, or that is too busy to start one well, says so
to the accepter rather than leave them waiting out ``--join-timeout`` with their deposit
held. The word is signed by the offerer, for that channel and for this purpose alone
(``chips/1.0 decline``), and sent on a topic of the accepter's for that channel; the
accepter believes only a decline its offerer signed, so nobody else on the broker can
make them give up an accept (and all a decline leads to is the accepter's own cancel,
which returns their deposit).
"""

from __future__ import annotations

from typing import Final

from chips_client.messages import TOPIC_ROOT
from chips_tp.channel import SIGNATURE_BYTES
from chips_tp.hashes import sign, signed_by
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.signing import Signer

DECLINE_PURPOSE: Final = "chips/1.0 decline"
#: Where declines are sent: one topic per channel and accepter below it.
DECLINE_ROOT: Final = f"{TOPIC_ROOT}/declined"
#: The reason is a line for a person; anything longer is cut.
MAX_REASON: Final = 200
MAX_DECLINE_BYTES: Final = 512


def decline_topic(channel_id: bytes, accepter: str) -> str:
    """``xo/chips/declined/<channel id hex>/<accepter>``: where the accepter of a channel hears it was declined."""
    return f"{DECLINE_ROOT}/{channel_id.hex()}/{accepter}"


def _message(channel_id: bytes, reason: str) -> bytes:
    return canonical.encode([DECLINE_PURPOSE, channel_id, reason])


def make_decline(signer: Signer, channel_id: bytes, reason: str) -> bytes:
    """The offerer's signed decline of the accept that opened ``channel_id``, saying why."""
    reason = reason[:MAX_REASON]
    return canonical.encode({"channel": channel_id, "reason": reason,
                             "signature": sign(signer, _message(channel_id, reason))})  # fmt: skip


def read_decline(data: bytes, channel_id: bytes, offerer: str) -> str:
    """The reason in a decline of ``channel_id`` signed by ``offerer``; :class:`Malformed` for anything else."""
    if len(data) > MAX_DECLINE_BYTES:
        raise Malformed(f"a decline of {len(data)} bytes is over the {MAX_DECLINE_BYTES} one needs")
    value = canonical.decode(data, "the decline")
    fields = canonical.fields(value, "a decline", ("channel", "reason", "signature"))
    canonical.check_canonical(value, data, "the decline")
    reason, signature = fields["reason"], canonical.byte_string(fields["signature"], "the signature", SIGNATURE_BYTES)
    if fields["channel"] != channel_id:
        raise Malformed("the decline is of another channel")
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise Malformed(f"'reason' must be text of at most {MAX_REASON} characters")
    if not signed_by(offerer, signature, _message(channel_id, reason)):
        raise Malformed("the decline is not signed by the offerer")
    return reason
