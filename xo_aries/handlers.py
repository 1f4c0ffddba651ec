"""ACA-Py's handlers for the protocol's messages: hand each to the game manager with its connection."""

from __future__ import annotations

from acapy_agent.messaging.base_handler import BaseHandler, BaseResponder, HandlerException, RequestContext

from xo_aries.manager import GameManager
from xo_aries.messages import Move, Outcome


def _connection_id(context: RequestContext) -> str:
    """Games are played over a connection; a message from outside one is refused before any game sees it."""
    if not context.connection_ready or context.connection_record is None:
        raise HandlerException("tictactoe messages need an established connection")
    return context.connection_record.connection_id


class MoveHandler(BaseHandler):
    """A ``move`` from the other agent."""

    async def handle(self, context: RequestContext, responder: BaseResponder) -> None:
        """Apply the move (or answer it with a problem-report)."""
        assert isinstance(context.message, Move)
        await GameManager(context.profile, responder.send).received_move(context.message, _connection_id(context))


class OutcomeHandler(BaseHandler):
    """An ``outcome`` from the other agent."""

    async def handle(self, context: RequestContext, responder: BaseResponder) -> None:
        """End the game (or answer the outcome with a problem-report)."""
        assert isinstance(context.message, Outcome)
        await GameManager(context.profile, responder.send).received_outcome(context.message, _connection_id(context))
