"""The protocol's ``move`` and ``outcome`` messages as ACA-Py agent messages, under both identifiers.

The seed names the protocol ``did:sov:SLfEi9esrjzybysFxQZbfq;spec/tictactoe/1.0``; Aries RFC
0348 moved protocols to ``https://didcomm.org/``. Both are registered, to the same classes,
and a message keeps the ``@type`` it arrived with, so a game is answered in the spelling its
other player chose. Fields are taken as they come (``fields.Raw``): checking them is the
player state machine's job (:mod:`xo_aries.player`), which answers a bad one with the
protocol's problem codes instead of ACA-Py's generic parse error.
"""

from __future__ import annotations

from typing import Final

from acapy_agent.messaging.agent_message import AgentMessage, AgentMessageSchema
from marshmallow import EXCLUDE, fields, post_dump

from xo_client.aries import DIDCOMM_PROTOCOL, MOVE, OUTCOME, PROTOCOL

#: The two spellings of the protocol, the seed's first: a game we start uses the seed's.
PROTOCOLS: Final = (PROTOCOL, DIDCOMM_PROTOCOL)
HANDLERS: Final = "xo_aries.handlers"
#: Fields the protocol makes optional; absent, they are left out rather than sent as null.
OPTIONAL_FIELDS: Final = ("me", "moves", "comment")


class Move(AgentMessage):
    """``move``: ``me`` (the sender's mark), ``moves`` (every move so far, ``X:B2``), ``comment``."""

    class Meta:
        """The handler and schema; ``_type`` picks the protocol spelling."""

        handler_class = f"{HANDLERS}.MoveHandler"
        message_type = f"{DIDCOMM_PROTOCOL}/{MOVE}"
        schema_class = "MoveSchema"

    def __init__(self, *, me: object = None, moves: object = None, comment: object = None, **kwargs: object) -> None:
        """A move message; ``_type`` (from ACA-Py's keyword arguments) chooses the protocol's spelling."""
        super().__init__(**kwargs)
        self.me = me
        self.moves = moves
        self.comment = comment


class MoveSchema(AgentMessageSchema):
    """``move`` fields, unvalidated: :mod:`xo_aries.player` checks them and answers with problem codes."""

    class Meta:
        """Unknown fields (other decorators) are dropped."""

        model_class = Move
        unknown = EXCLUDE

    me = fields.Raw(required=False, allow_none=True)
    moves = fields.Raw(required=False, allow_none=True)
    comment = fields.Raw(required=False, allow_none=True)


class Outcome(AgentMessage):
    """``outcome``: ``winner`` (``X``, ``O``, ``none`` for a draw, null if abandoned); ``me``, ``moves`` optional."""

    class Meta:
        """The handler and schema; ``_type`` picks the protocol spelling."""

        handler_class = f"{HANDLERS}.OutcomeHandler"
        message_type = f"{DIDCOMM_PROTOCOL}/{OUTCOME}"
        schema_class = "OutcomeSchema"

    def __init__(
        self,
        *,
        winner: object = None,
        me: object = None,
        moves: object = None,
        comment: object = None,
        **kwargs: object,
    ) -> None:
        """An outcome message; ``winner`` None is JSON null, an abandoned game."""
        super().__init__(**kwargs)
        self.winner = winner
        self.me = me
        self.moves = moves
        self.comment = comment


class OutcomeSchema(AgentMessageSchema):
    """``outcome`` fields; ``winner`` is required by the protocol and may be null, so null is kept."""

    class Meta:
        """Null is a value here (an abandoned game), so none is skipped; absent optional fields are."""

        model_class = Outcome
        unknown = EXCLUDE
        skip_values = ()

    winner = fields.Raw(required=False, allow_none=True, load_default=None)
    me = fields.Raw(required=False, allow_none=True)
    moves = fields.Raw(required=False, allow_none=True)
    comment = fields.Raw(required=False, allow_none=True)

    @post_dump
    def drop_absent(self, data: dict, **_: object) -> dict:
        """Leave out the optional fields that are not set (``winner`` stays, null or not)."""
        return {key: value for key, value in data.items() if key not in OPTIONAL_FIELDS or value is not None}


#: Every message type of the protocol, in both spellings, for ACA-Py's protocol registry.
MESSAGE_TYPES: Final = {
    f"{protocol}/{name}": f"xo_aries.messages.{cls.__name__}"
    for protocol in PROTOCOLS
    for name, cls in ((MOVE, Move), (OUTCOME, Outcome))
}


def protocol_of(message: AgentMessage) -> str:
    """The protocol spelling a message arrived with (or was made with)."""
    message_type = str(message._type)
    return next((protocol for protocol in PROTOCOLS if message_type.startswith(f"{protocol}/")), DIDCOMM_PROTOCOL)
