"""The handlers a processor serves: what to register with the validator and who applies a transaction.

Handlers follow the SDK's ``TransactionHandler`` interface (``family_name``,
``family_versions``, ``namespaces``, ``apply``); nothing here knows any family.
"""

from collections.abc import Sequence
from typing import Protocol

from tp_runtime.context import Context
from xo_core.protobuf.processor_pb2 import TpProcessRequest, TpRegisterRequest

PROTOCOL_VERSION = 1  # the first version with header styles; validators older than it ignore the field


class Handler(Protocol):
    """The SDK's ``TransactionHandler`` as the runtime uses it, so that any SDK-style handler fits.

    A structural type rather than the SDK's base class: a handler need not import the SDK.
    """

    @property
    def family_name(self) -> str:
        """The transaction family served, e.g. ``xo``."""

    @property
    def family_versions(self) -> Sequence[str]:
        """Every version of the family served; each is registered separately."""

    @property
    def namespaces(self) -> Sequence[str]:
        """The state address prefixes the family reads and writes."""

    def apply(self, transaction: TpProcessRequest, context: Context) -> None:
        """Apply one transaction; raise the SDK's ``InvalidTransaction`` or ``InternalError`` to refuse it."""


class Handlers:
    """(family name, version) -> handler, in the order handlers were added."""

    def __init__(self) -> None:
        self._by_family: dict[tuple[str, str], Handler] = {}

    def add(self, handler: Handler) -> None:
        """Serve every version ``handler`` lists; a family version served twice is a programming error."""
        versions = list(handler.family_versions)
        if not versions:
            raise ValueError(f"handler for family {handler.family_name!r} lists no family versions")
        for version in versions:
            key = (handler.family_name, version)
            if key in self._by_family:
                raise ValueError(f"two handlers for family {key[0]!r} version {key[1]!r}")
            self._by_family[key] = handler

    def __bool__(self) -> bool:
        return bool(self._by_family)

    def find(self, family_name: str, family_version: str) -> Handler | None:
        """The handler for a transaction's family and version; ``None`` if this processor serves neither."""
        return self._by_family.get((family_name, family_version))

    def register_requests(self, max_occupancy: int) -> list[TpRegisterRequest]:
        """One registration per family version, asking for fully parsed transaction headers."""
        return [
            TpRegisterRequest(
                family=family,
                version=version,
                namespaces=list(handler.namespaces),
                max_occupancy=max_occupancy,
                protocol_version=PROTOCOL_VERSION,
                request_header_style=TpRegisterRequest.EXPANDED,
            )
            for (family, version), handler in self._by_family.items()
        ]

    def versions(self) -> list[str]:
        """The family version of every (family, version) served, in the order they were added."""
        return [version for _, version in self._by_family]

    def describe(self) -> str:
        """``xo 1.0, intkey 1.0`` for log lines."""
        return ", ".join(f"{family} {version}" for family, version in self._by_family)
