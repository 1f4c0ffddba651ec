"""Which transaction families (and versions) a ledger accepts, and the ``FAMILY:VERSION`` lists that name them.

A Sawtooth network limits what it executes with the on-chain setting
``sawtooth.validator.transaction_families``; this ledger has no on-chain settings,
so its configuration holds the list instead. A batch holding a transaction of any
other family or version would only wait for a processor that never comes, holding
back every batch that shares an address with it, so it is refused at submission
(REST: 400, code 30), and one recorded before the list changed ends INVALID when
the ledger starts.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

Family = tuple[str, str]
"""(family name, family version), as a transaction header names them."""

_NAME = re.compile(r"[^\s,:]+")


class UnacceptedFamily(ValueError):
    """A submitted transaction's family or version is not one the ledger accepts (REST: 400, code 30)."""


def parse_families(text: str) -> tuple[Family, ...]:
    """``"xo:1.0,intkey:1.0"`` as ``(("xo", "1.0"), ("intkey", "1.0"))``; empty entries are skipped.

    Raises ValueError naming the first entry that is not FAMILY:VERSION.
    """
    families = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        family, _, version = entry.partition(":")
        if not (_NAME.fullmatch(family) and _NAME.fullmatch(version)):
            raise ValueError(f"{entry!r} is not FAMILY:VERSION (e.g. intkey:1.0)")
        families.append((family, version))
    return tuple(families)


def describe_families(families: Iterable[Family]) -> str:
    """``"intkey 1.0, xo 1.0"``: the families in a stable order, for messages and the banner."""
    return ", ".join(f"{family} {version}" for family, version in sorted(families)) or "none"


def refusal(family: str, version: str, accepted: Collection[Family] | None) -> str | None:
    """Why a transaction of ``family`` ``version`` is refused, or None when ``accepted`` (None: any) has it."""
    if accepted is None or (family, version) in accepted:
        return None
    accepts = describe_families(accepted)
    return f"transaction family {family} {version} is not accepted by this ledger (it accepts {accepts})"
