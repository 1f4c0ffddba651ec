"""A batch id shortened as the commands print it (``67ab4f0c1d2e3f40...``, ``67ab4f...68f9``), found on the chain.

The REST API looks a batch up only by its full id (``/batch_statuses``), so a shortened one is matched
against the committed batches, read from the newest block back, since a lookup is most often of a recent
move. Sixteen hex digits or more (what ``waiting for batch ...`` prints) are taken at their first match:
two batch ids sharing 64 bits is beyond chance. Fewer are taken only once the whole chain shows that they
name one batch. A batch still pending, or refused, is in no block: only its full id finds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from client_core.errors import InvalidInput
from xo_core.text import quoted

if TYPE_CHECKING:
    from client_core.rest import RestClient

SHORTENED: Final = re.compile(r"(?P<prefix>[0-9a-fA-F]*)(?:\.\.\.(?P<suffix>[0-9a-fA-F]*))?")
ID_DIGITS: Final = 128
MIN_DIGITS: Final = 6
"""The fewest hex digits a shortened id may have: fewer would name half the chain."""
UNIQUE_DIGITS: Final = 16
"""From this many digits on, the first batch that matches is the one meant."""
NOT_AN_ID: Final = (
    "a batch id is 128 hex characters, as printed by the command that submitted it, or its first "
    f"{MIN_DIGITS} or more (with its last ones after '...', as some lines print it)"
)


@dataclass(frozen=True)
class ShortBatchId:
    """The digits a shortened id keeps: its first ones, and its last ones when it was cut in the middle."""

    prefix: str
    suffix: str
    text: str
    """What was typed, for messages."""

    @classmethod
    def parse(cls, text: str) -> ShortBatchId:
        """``text`` as a shortened id; :class:`InvalidInput` saying what a batch id is when it is none."""
        match = SHORTENED.fullmatch(text)
        if match is None:
            raise InvalidInput(f"{quoted(text, 40)} is not a batch id: {NOT_AN_ID}")
        prefix, suffix = match["prefix"].lower(), (match["suffix"] or "").lower()
        if not MIN_DIGITS <= len(prefix) + len(suffix) <= ID_DIGITS or not prefix:
            raise InvalidInput(f"{quoted(text, 40)} is not a batch id: {NOT_AN_ID}")
        return cls(prefix, suffix, text)

    @property
    def digits(self) -> int:
        return len(self.prefix) + len(self.suffix)

    def matches(self, batch_id: str) -> bool:
        return len(batch_id) >= self.digits and batch_id.startswith(self.prefix) and batch_id.endswith(self.suffix)

    def find(self, client: RestClient) -> str:
        """The full id of the one committed batch this names; :class:`InvalidInput` if none or several do."""
        found: list[str] = []
        for block in client.listed_blocks():
            found += [batch.batch_id for batch in block.batches if self.matches(batch.batch_id)]
            if len(found) > 1 or (found and self.digits >= UNIQUE_DIGITS):
                break
        shown = quoted(self.text, 40)
        if not found:
            raise InvalidInput(
                f"no committed batch has the id {shown}: a batch still pending, or refused, is found only by its "
                "full id (128 hex characters), which the command that submitted it printed"
            )
        if len(found) > 1:
            named = ", ".join(f"{batch_id[:UNIQUE_DIGITS]}..." for batch_id in found[:2])
            raise InvalidInput(f"{shown} names more than one committed batch ({named}): give more of its digits")
        return found[0]
