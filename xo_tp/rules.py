"""The rules of XO (tic-tac-toe) as the XO specification states them: pure, no I/O.

Games are immutable values; a move returns a new game. Illegal moves raise
:class:`IllegalMove`, which *is* the SDK's ``InvalidTransaction`` so that the handler
can let it propagate and a validator records the message as the rejection reason.
"""

from typing import Final, NamedTuple

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from xo_core.text import game_label, short_key

EMPTY: Final = "-"
PLAYER_1_MARK: Final = "X"
PLAYER_2_MARK: Final = "O"
#: Every character a board is made of.
MARKS: Final = EMPTY + PLAYER_1_MARK + PLAYER_2_MARK
#: Spaces on a board, numbered 1 to 9 row by row.
BOARD_LENGTH: Final = 9
EMPTY_BOARD: Final = EMPTY * BOARD_LENGTH

P1_NEXT: Final = "P1-NEXT"
P2_NEXT: Final = "P2-NEXT"
P1_WIN: Final = "P1-WIN"
P2_WIN: Final = "P2-WIN"
TIE: Final = "TIE"
GAME_STATES: Final = frozenset((P1_NEXT, P2_NEXT, P1_WIN, P2_WIN, TIE))
FINISHED_STATES: Final = frozenset((P1_WIN, P2_WIN, TIE))

#: Index triples of every row, column and diagonal of the row-major 9-character board.
LINES: Final = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)  # fmt: skip


class IllegalMove(InvalidTransaction):
    """A move the rules forbid; the message says why in a player's words."""


class NotYourTurn(IllegalMove):
    """A move by a key other than the one seated for this turn; says whose turn it is, for clients to word."""

    def __init__(self, message: str, number: int, seat: str) -> None:
        super().__init__(message)
        self.number = number
        self.seat = seat


class Game(NamedTuple):
    """One game, field for field as the spec's state entry lists them.

    An empty player key means that seat is not taken yet.
    """

    name: str
    board: str
    state: str
    player1: str
    player2: str


def new_game(name: str) -> Game:
    """A game as ``create`` stores it: blank board, player 1 to move, no players yet."""
    return Game(name, EMPTY_BOARD, P1_NEXT, "", "")


def winners(board: str) -> frozenset[str]:
    """The marks that fill some row, column or diagonal; a line of empty spaces wins nothing."""
    return frozenset(
        board[a] for a, b, c in LINES if board[a] != EMPTY and board[a] == board[b] == board[c]
    )


def mark_to_move(state: str) -> str | None:
    """The mark the player to move places in ``state``: ``X`` for P1-NEXT, ``O`` for P2-NEXT, None once over.

    This is the mapping :func:`take` applies; callers that reason about turns (the board
    analysis, the Aries thread check) ask here rather than restate it.
    """
    if state in FINISHED_STATES:
        return None
    return PLAYER_1_MARK if state == P1_NEXT else PLAYER_2_MARK


def state_after_move(board: str, mover_state: str) -> str:
    """The game state once the player to move in ``mover_state`` has played, giving ``board``.

    The order matters and is the spec's: a sole winner first, then a full board is a tie
    (so a winning last move is a win, not a tie), otherwise the turn passes.  A board on
    which both marks have a line (impossible in play, possible in foreign state) is
    therefore a tie if full, else the turn passes.
    """
    won = winners(board)
    if won == {PLAYER_1_MARK}:
        return P1_WIN
    if won == {PLAYER_2_MARK}:
        return P2_WIN
    if EMPTY not in board:
        return TIE
    return P2_NEXT if mover_state == P1_NEXT else P1_NEXT


def take(game: Game, space: int, signer: str) -> Game:
    """Play ``space`` (1-9) in ``game`` for the player whose key is ``signer``.

    The checks run in the spec's order: a finished game, then whose turn it is, then
    the space.  Only a key other than the one seated for this turn is refused, and
    whoever moves fills the first empty seat (player 1's, else player 2's); so while
    player 2's seat is empty anyone -- player 1 included -- may make player 2's move.
    """
    if game.state in FINISHED_STATES:
        raise IllegalMove(f"{game_label(game.name)} is over ({game.state})")
    mark = mark_to_move(game.state)
    if mark == PLAYER_1_MARK:
        number, seat = 1, game.player1
    else:
        number, seat = 2, game.player2
    if seat and seat != signer:
        raise NotYourTurn(f"{game_label(game.name)}: it is player {number}'s turn ({short_key(seat)})", number, seat)
    if not 1 <= space <= BOARD_LENGTH:  # the payload parser never gives one; here 0 would wrap round to 9
        raise IllegalMove(f"{game_label(game.name)}: there is no space {space}; spaces are 1 to 9")
    index = space - 1
    if game.board[index] != EMPTY:
        raise IllegalMove(f"{game_label(game.name)}: space {space} is already taken")

    if not game.player1:
        player1, player2 = signer, game.player2
    elif not game.player2:
        player1, player2 = game.player1, signer
    else:
        player1, player2 = game.player1, game.player2
    board = game.board[:index] + mark + game.board[index + 1 :]
    return Game(game.name, board, state_after_move(board, game.state), player1, player2)
