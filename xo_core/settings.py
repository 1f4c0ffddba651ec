"""Where Sawtooth's settings family keeps an on-chain setting, and how its value is read.

The settings family (namespace ``000000``) stores a setting such as
``chips.issuers`` at ``000000`` followed by four 16-hex-character parts: the first
16 characters of the SHA-256 of each of the key's first three dot-separated parts
and of the rest (missing parts count as empty text). The data there is a ``Setting``
protobuf (:mod:`xo_core.protobuf.setting_pb2`) whose entries hold key and value; more
than one entry only when keys collide at an address.
"""

import hashlib
from typing import Final

from google.protobuf.message import DecodeError

from xo_core.protobuf.setting_pb2 import Setting

NAMESPACE: Final = "000000"
_KEY_PARTS: Final = 4
_PART_LENGTH: Final = 16


class CorruptSetting(ValueError):
    """Data at a setting's address that is not a ``Setting`` message."""


def setting_address(key: str) -> str:
    """The 70-hex-character address at which the settings family stores ``key``."""
    parts = key.split(".", _KEY_PARTS - 1)
    parts += [""] * (_KEY_PARTS - len(parts))
    return NAMESPACE + "".join(hashlib.sha256(part.encode("utf-8")).hexdigest()[:_PART_LENGTH] for part in parts)


def setting_value(data: bytes, key: str) -> str | None:
    """The value of ``key`` in ``data`` (the bytes at its address), or None when the setting is not set."""
    if not data:
        return None
    setting = Setting()
    try:
        setting.ParseFromString(data)
    except DecodeError:
        raise CorruptSetting(f"the data at {setting_address(key)} is not a Setting message") from None
    return next((entry.value for entry in setting.entries if entry.key == key), None)


def encode_setting(entries: dict[str, str]) -> bytes:
    """The ``Setting`` message of ``entries``, sorted by key, as the settings family writes it."""
    return Setting(entries=[Setting.Entry(key=key, value=entries[key]) for key in sorted(entries)]).SerializeToString()


def listed(value: str | None) -> list[str]:
    """The items of a comma-separated setting value (as Sawtooth's own list settings are read), spaces trimmed."""
    return [] if value is None else [item.strip() for item in value.split(",") if item.strip()]
