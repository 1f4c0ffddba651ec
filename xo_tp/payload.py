"""An XO transaction payload (``<name>,<action>,<space>`` in UTF-8): a checked move from bytes, and back.

Every way a payload can be wrong is an :class:`InvalidPayload`, the SDK's
``InvalidTransaction``: it came from a player, so the player is told what to fix.
Nothing else ever escapes :func:`parse_payload`, whatever the bytes. Clients build
payloads with :func:`encode_payload`, as every family's ``payload.py`` does.
"""

from typing import Final, NamedTuple

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from xo_core.text import game_label, quoted

CREATE: Final = "create"
TAKE: Final = "take"
DELETE: Final = "delete"
ACTIONS: Final = frozenset((CREATE, TAKE, DELETE))

#: The only spellings of a space: the spec's "integer between 1-9", canonically written.
#: ``int()`` would also take ``" 5"``, ``"05"``, ``"+5"`` and Arabic-Indic digits; a dict lookup takes none of them.
SPACES: Final = {str(space): space for space in range(1, 10)}

FORMAT_HINT: Final = "an XO payload is '<name>,<action>,<space>', e.g. 'g1,take,5' or 'g1,create,'"


class InvalidPayload(InvalidTransaction):
    """A payload that is not a well-formed XO move."""


class Move(NamedTuple):
    """A checked payload. ``space`` is 1-9 for ``take`` and ``None`` otherwise."""

    name: str
    action: str
    space: int | None


def parse_payload(payload: bytes) -> Move:
    """Check ``payload`` against the spec and return the move it asks for.

    The space field of ``create`` and ``delete`` is ignored, whatever it holds, because
    the spec gives it meaning only for ``take``; the reference processor ignores it too.
    A take's space must be one of :data:`SPACES` exactly, the spec's "integer between
    1-9" as a client writes it: anything else (``' 5'``, ``'+5'``, ``'05'``, an
    Arabic-Indic five, all of which the reference processor's ``int()`` accepts) more
    likely comes from a broken client than from a player's intent, and is refused with a
    message rather than guessed at. So, as far as the payload goes, a reference chain's
    creates and deletes replay here whatever their space field holds, and its takes
    only if their space is written canonically.
    """
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidPayload(f"the payload is not UTF-8 text; {FORMAT_HINT}") from None
    fields = text.split(",")
    if len(fields) != 3:
        commas = len(fields) - 1
        raise InvalidPayload(f"the payload has {commas} comma{'' if commas == 1 else 's'}, not two; {FORMAT_HINT}")
    name, action, space_text = fields

    if not name:
        raise InvalidPayload("the game name is empty")
    if "|" in name:
        raise InvalidPayload(f"{game_label(name)}: a game name must not contain '|'")
    if action not in ACTIONS:
        if not action:
            raise InvalidPayload(f"{game_label(name)}: the action is missing; use create, take or delete")
        raise InvalidPayload(f"{game_label(name)}: unknown action {quoted(action)}; use create, take or delete")

    if action != TAKE:
        return Move(name, action, None)
    space = SPACES.get(space_text)
    if space is None:
        if not space_text:
            raise InvalidPayload(f"{game_label(name)}: take needs a space from 1 to 9")
        raise InvalidPayload(f"{game_label(name)}: space {quoted(space_text)} is not a whole number from 1 to 9")
    return Move(name, action, space)


def encode_payload(name: str, action: str, space: int | None = None) -> bytes:
    """Serialise a move as the spec's ``<name>,<action>,<space>`` UTF-8 string.

    ``create`` and ``delete`` carry an empty space field, as the reference
    clients send them.
    """
    return f"{name},{action},{'' if space is None else space}".encode()
