"""The messages the plugin speaks, as ACA-Py agent messages: ``move``, ``outcome`` and ``problem-report``.

The seed names the protocol ``did:sov:SLfEi9esrjzybysFxQZbfq;spec/tictactoe/1.0``; Aries RFC
0348 moved protocols to ``https://didcomm.org/``. Both are registered, to the same classes,
and a message keeps the ``@type`` it arrived with, so a game is answered in the spelling its
other player chose. Fields are taken as they come (``fields.Raw``): checking them is the
player state machine's job (:mod:`xo_aries.player`), which answers a bad one with the
protocol's problem codes instead of ACA-Py's generic parse error.

``problem-report`` is the general one (``notification/1.0``), as the seed says, not a type of the
protocol's own. ACA-Py's class drops unknown fields and requires ``description.code``, so it can
neither carry the seed's ``explain.@l10n`` nor accept a report in the seed's form only; ours
adds both forms (:mod:`xo_aries.problem_fields`) and is registered in its place. It keeps
ACA-Py's handler, which announces every report as ``acapy::problem_report``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from acapy_agent.messaging.agent_message import AgentMessage, AgentMessageSchema
from acapy_agent.protocols.didcomm_prefix import DIDCommPrefix
from acapy_agent.protocols.problem_report.v1_0 import message as acapy_problem_report
from acapy_agent.protocols.problem_report.v1_0.message_types import PROBLEM_REPORT
from marshmallow import EXCLUDE, fields, post_dump, pre_load

from xo_aries.player import NO_WINNER_FIELD
from xo_aries.problem_fields import DESCRIPTION, EXPLAIN, EXPLAIN_L10N, report_fields, with_description
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
    """``outcome`` fields; ``winner`` is required by the protocol and may be null, so null is kept (and a missing
    ``winner`` is read as :data:`~xo_aries.player.NO_WINNER_FIELD`, which the game refuses)."""

    class Meta:
        """Null is a value here (an abandoned game), so none is skipped; absent optional fields are."""

        model_class = Outcome
        unknown = EXCLUDE
        skip_values = ()

    winner = fields.Raw(required=False, allow_none=True, load_default=NO_WINNER_FIELD)
    me = fields.Raw(required=False, allow_none=True)
    moves = fields.Raw(required=False, allow_none=True)
    comment = fields.Raw(required=False, allow_none=True)

    @post_dump
    def drop_absent(self, data: dict, **_: object) -> dict:
        """Leave out the optional fields that are not set (``winner`` stays, null or not)."""
        return {key: value for key, value in data.items() if key not in OPTIONAL_FIELDS or value is not None}


class ProblemReport(acapy_problem_report.ProblemReport):
    """The general ``problem-report`` with the seed's ``explain`` and ``explain.@l10n`` beside RFC 0035's fields."""

    class Meta:
        """ACA-Py's own handler and message type; our schema."""

        handler_class = acapy_problem_report.HANDLER_CLASS
        message_type = PROBLEM_REPORT
        schema_class = "ProblemReportSchema"

    def __init__(self, *, explain: object = None, explain_l10n: object = None, **kwargs: Any) -> None:
        """A report; ``explain`` is the human text, ``explain_l10n`` its field decorator (``code``)."""
        super().__init__(**kwargs)
        self.explain = explain
        self.explain_l10n = explain_l10n


class ProblemReportSchema(acapy_problem_report.ProblemReportSchema):
    """ACA-Py's schema plus the seed's fields; a report in the seed's form only gets its ``description``."""

    class Meta:
        """Unknown fields are dropped, as ACA-Py's are."""

        model_class = ProblemReport
        unknown = EXCLUDE

    explain = fields.Raw(required=False, allow_none=True, metadata={"description": "the seed's human text"})
    explain_l10n = fields.Raw(
        data_key=EXPLAIN_L10N, required=False, allow_none=True, metadata={"description": "the seed's catalog code"}
    )

    @pre_load
    def describe_seed_form(self, data: object, **_: object) -> object:
        """Before ACA-Py's check that ``description.code`` is there: fill it from ``explain.@l10n.code``."""
        return with_description(data) if isinstance(data, Mapping) else data


def problem_report(protocol: str, code: str, explanation: str) -> ProblemReport:
    """A report of ``code`` in both forms; the seed's prefix for a game in the seed's spelling (``protocol``)."""
    prefix = DIDCommPrefix.OLD if protocol == PROTOCOL else DIDCommPrefix.NEW
    both = report_fields(code, explanation)
    return ProblemReport(
        _type=prefix.qualify(PROBLEM_REPORT),
        description=both[DESCRIPTION],
        explain=both[EXPLAIN],
        explain_l10n=both[EXPLAIN_L10N],
    )


#: Every message type of the protocol, in both spellings, for ACA-Py's protocol registry.
MESSAGE_TYPES: Final = {
    f"{protocol}/{name}": f"xo_aries.messages.{cls.__name__}"
    for protocol in PROTOCOLS
    for name, cls in ((MOVE, Move), (OUTCOME, Outcome))
}
#: The general problem-report, under both prefixes, to our class instead of ACA-Py's (a superset of it).
PROBLEM_REPORT_TYPES: Final = DIDCommPrefix.qualify_all({PROBLEM_REPORT: f"xo_aries.messages.{ProblemReport.__name__}"})


def protocol_of(message: AgentMessage) -> str:
    """The protocol spelling a message arrived with (or was made with)."""
    message_type = str(message._type)
    return next((protocol for protocol in PROTOCOLS if message_type.startswith(f"{protocol}/")), DIDCOMM_PROTOCOL)
