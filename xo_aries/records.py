"""A game as ACA-Py keeps it: one wallet record per game, named by its thread id.

The record's ``state`` is the player's protocol state (``my-move``, ``their-move``, ``wrap-up``,
``done``), so ACA-Py's record events, and with them the webhooks (topic ``tictactoe``) and the
admin websocket, report every change a controller needs to follow. The record holds the
moves, not the board: the board, the turn and the result are always recomputed from the moves
by :mod:`xo_aries.player` (and so by the XO rules), never stored twice.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from acapy_agent.messaging.models.base_record import BaseRecord, BaseRecordSchema
from marshmallow import EXCLUDE, fields

from xo_aries.player import Player
from xo_client.aries import parse_move

RECORD_TYPE: Final = "xo_tictactoe_game"
TOPIC: Final = "tictactoe"


class GameRecord(BaseRecord):
    """One game with one connection: my mark, the moves, the protocol state, problems sent and received."""

    class Meta:
        """The schema that serializes a game for the admin API and the webhooks."""

        schema_class = "GameRecordSchema"

    RECORD_ID_NAME: ClassVar[str] = "thread_id"
    RECORD_TYPE: ClassVar[str] = RECORD_TYPE
    RECORD_TOPIC: ClassVar[str] = TOPIC
    TAG_NAMES: ClassVar[set[str]] = {"state", "connection_id"}

    def __init__(
        self,
        *,
        thread_id: str | None = None,
        connection_id: str | None = None,
        state: str | None = None,
        me: str = "X",
        moves: list[str] | None = None,
        winner: str | None = None,
        abandoned: bool = False,
        protocol: str = "",
        sent: int = 0,
        problems: list[dict[str, Any]] | None = None,
        ledger: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A game record; ``thread_id`` is the record's id, ``sent`` counts my messages (``sender_order``)."""
        super().__init__(thread_id, state, **kwargs)
        self.connection_id = connection_id
        self.me = me
        self.moves = list(moves or [])
        self.winner = winner
        self.abandoned = abandoned
        self.protocol = protocol
        self.sent = sent
        self.problems = list(problems or [])
        self.ledger = dict(ledger or {})

    @property
    def thread_id(self) -> str:
        """The game's thread id: the ``@id`` of its first ``move``."""
        return self._id

    @property
    def record_value(self) -> dict[str, Any]:
        """What is stored beside the tags."""
        return {
            "me": self.me,
            "moves": self.moves,
            "winner": self.winner,
            "abandoned": self.abandoned,
            "protocol": self.protocol,
            "sent": self.sent,
            "problems": self.problems,
            "ledger": self.ledger,
        }

    @property
    def player(self) -> Player:
        """The game as the state machine sees it."""
        moves = tuple(move for move in map(parse_move, self.moves) if move is not None)
        return Player(me=self.me, moves=moves, state=self.state, winner=self.winner, abandoned=self.abandoned)

    def update(self, player: Player) -> None:
        """Take the state machine's new view of the game."""
        self.state = player.state
        self.moves = player.notation()
        self.winner = player.winner
        self.abandoned = player.abandoned

    @property
    def board(self) -> str:
        """The board, row by row from A1 (``-`` empty), as the XO state spells it."""
        return self.player.board

    @property
    def turn(self) -> str | None:
        """The mark to move, or None once the game is over."""
        return self.player.turn

    @property
    def rows(self) -> list[str]:
        """The board as three rows, top (row 1) first, for people reading the JSON."""
        board = self.board
        return [board[index : index + 3] for index in range(0, 9, 3)]


class GameRecordSchema(BaseRecordSchema):
    """A game as the admin routes and the webhooks show it."""

    class Meta:
        """Dumped only: games are made by the routes and the handlers, never loaded from a request.

        Null is shown (a game without a winner yet, a finished game's turn), not left out.
        """

        model_class = GameRecord
        unknown = EXCLUDE
        skip_values = ()

    thread_id = fields.Str(metadata={"description": "the game's thread id (the first move's @id)"})
    connection_id = fields.Str(metadata={"description": "the connection the game is played over"})
    me = fields.Str(metadata={"description": "my mark, X or O"})
    moves = fields.List(fields.Str(), metadata={"description": 'the moves in play order, e.g. "X:B2"'})
    winner = fields.Str(allow_none=True, metadata={"description": "X, O, none (a draw), or null"})
    abandoned = fields.Bool(metadata={"description": "an outcome with a null winner ended the game"})
    protocol = fields.Str(metadata={"description": "the protocol identifier the game's messages use"})
    sent = fields.Int(metadata={"description": "how many messages I sent in the thread"})
    problems = fields.List(fields.Dict(), metadata={"description": "problem-reports sent and received"})
    ledger = fields.Dict(metadata={"description": "the game on the Sawtooth ledger, when anchored"})
    board = fields.Str(dump_only=True, metadata={"description": "nine cells A1 B1 C1 A2 ... C3: -, X or O"})
    rows = fields.List(fields.Str(), dump_only=True, metadata={"description": "the board's three rows"})
    turn = fields.Str(dump_only=True, allow_none=True, metadata={"description": "the mark to move, or null"})
