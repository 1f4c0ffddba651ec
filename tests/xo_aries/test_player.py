"""The player state machine of Tic Tac Toe 1.0 over the XO rules (pure: runs on every Python)."""

from __future__ import annotations

from xo_aries.player import (
    DONE,
    MY_MOVE,
    NO_WINNER_FIELD,
    THEIR_MOVE,
    WRAP_UP,
    Player,
    Refusal,
    invited,
    opened,
    outcome_winner,
    own_move,
    own_outcome,
    received_move,
    received_outcome,
)


class refused:
    """``with refused("bad-move"):`` expects a Refusal with that code."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, _traceback) -> bool:
        assert isinstance(error, Refusal), f"expected a {self.code} refusal, got {error!r}"
        assert error.code == self.code, f"expected {self.code}, got {error.code}: {error.explanation}"
        return True


def test_x_opens_with_a_move_and_o_starts_by_inviting_x():
    x = opened("X", "B2")
    assert (x.state, x.notation(), x.board, x.turn) == (THEIR_MOVE, ["X:B2"], "----X----", "O")
    o = opened("O")
    assert (o.state, o.moves) == (THEIR_MOVE, ())
    with refused("bad-move"):
        opened("X")
    with refused("not-your-turn"):
        opened("O", "A1")
    with refused("bad-message"):
        opened("Z", "A1")


def test_the_invited_side_gets_the_other_mark_and_the_move_if_any():
    assert invited("O", []) == Player(me="X", state=MY_MOVE)
    after = invited("X", ["X:B2"])
    assert (after.me, after.state, after.notation()) == ("O", MY_MOVE, ["X:B2"])
    with refused("not-your-turn"):
        invited("X", [])  # X inviting O to open: O never opens in XO
    with refused("not-your-turn"):
        invited("O", ["O:A1"])


def test_moves_alternate_and_a_received_move_must_add_exactly_one_of_the_senders():
    x = opened("X", "B2")
    x = received_move(x, "O", ["O:A1", "X:B2"])  # the order inside moves does not matter
    assert (x.state, x.notation()) == (MY_MOVE, ["X:B2", "O:A1"])
    for moves, code in (
        (["X:B2"], "bad-move"),  # adds nothing
        (["X:B2", "O:A1", "O:C3"], "not-your-turn"),  # O again: it is X's move
        (["O:A1"], "bad-move"),  # leaves out X:B2
        (["X:B2", "O:A1", "x:z9"], "bad-move"),  # not notation
        (["X:B2", "O:A1"] * 100, "bad-move"),  # more moves than cells
    ):
        with refused(code):
            received_move(x, "O", moves)
    x = own_move(x, "C3")
    with refused("already-occupied"):
        received_move(x, "O", ["X:B2", "O:A1", "X:C3", "O:B2"])
    with refused("bad-move"):
        received_move(x, "O", ["X:B2", "O:A1", "X:C3", "X:C1"])  # an X from O
    with refused("bad-message"):
        received_move(x, "X", ["X:B2", "O:A1", "X:C3", "X:C1"])  # me is my own mark
    with refused("bad-message"):
        received_move(x, "O", "X:B2")


def test_my_own_illegal_moves_are_refused_before_anything_is_sent():
    x = opened("X", "B2")
    with refused("not-your-turn"):
        own_move(x, "A1")
    x = received_move(x, "O", ["X:B2", "O:A1"])
    with refused("already-occupied"):
        own_move(x, "A1")
    for cell in ("D1", "A4", "", 5, None, "B22"):
        with refused("bad-move"):
            own_move(x, cell)
    assert own_move(x, "b1").notation()[-1] == "X:B1"


def test_a_winning_move_ends_in_done_for_the_mover_and_wrap_up_then_done_for_the_other():
    x, o = opened("X", "A1"), invited("X", ["X:A1"])
    for mover, cell in (("O", "A2"), ("X", "B1"), ("O", "B2"), ("X", "C1")):
        if mover == "X":
            x = own_move(x, cell)
            o = received_move(o, "X", x.notation())
        else:
            o = own_move(o, cell)
            x = received_move(x, "O", o.notation())
    assert (x.state, x.winner, x.turn) == (DONE, "X", None)
    assert (o.state, o.winner) == (WRAP_UP, "X")
    o = own_outcome(o)
    assert (o.state, outcome_winner(o)) == (DONE, "X")
    assert received_outcome(x, "X").state == DONE
    with refused("bad-message"):
        received_outcome(x, "O")
    with refused("bad-move"):
        received_move(o, "X", [*x.notation(), "X:C3"])


def test_a_draw_names_winner_none():
    x = opened("X", "A1")
    o = invited("X", ["X:A1"])
    cells = ["B2", "C3", "B1", "B3", "A3", "A2", "C2", "C1"]
    for index, cell in enumerate(cells):
        if index % 2 == 0:
            o = own_move(o, cell)
            x = received_move(x, "O", o.notation())
        else:
            x = own_move(x, cell)
            o = received_move(o, "X", x.notation())
    assert x.winner == "none" and x.board.count("-") == 0
    assert outcome_winner(own_outcome(o)) == "none"


def test_abandoning_is_an_outcome_with_a_null_winner_from_either_side():
    x = opened("X", "B2")
    gone = own_outcome(x)
    assert (gone.state, gone.abandoned, outcome_winner(gone), gone.turn) == (DONE, True, None, None)
    with refused("bad-move"):
        own_outcome(gone)
    theirs = received_outcome(invited("X", ["X:B2"]), None)
    assert (theirs.state, theirs.abandoned) == (DONE, True)
    with refused("bad-move"):
        received_move(theirs, "X", ["X:B2", "X:A1"])
    with refused("bad-message"):
        received_outcome(x, "X")  # a winner for an unfinished game


def test_an_outcome_without_its_winner_field_is_a_bad_message_not_an_abandonment():
    unfinished = invited("X", ["X:B2"])
    with refused("bad-message"):
        received_outcome(unfinished, NO_WINNER_FIELD)
    assert received_outcome(unfinished, None).abandoned, "an explicit null still abandons"
