"""A name's committed moves replayed into its games: one per create, each move's resulting board and state."""

from xo_client.timeline import CommittedMove, replay

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64


def moves(*spec):
    """``(signer, action, space)`` per block, numbered from 1."""
    return [
        CommittedMove(number, f"{number:0128x}", f"{number:0128x}"[::-1], signer, action, space)
        for number, (signer, action, space) in enumerate(spec, start=1)
    ]


def test_a_game_replays_to_its_boards_and_states():
    [game], problems = replay("g1", moves((ALICE, "create", None), (ALICE, "take", 5), (BOB, "take", 1)))
    assert problems == []
    assert [(step.mark, step.game.board, step.game.state) for step in game.steps] == [
        (None, "---------", "P1-NEXT"),
        ("X", "----X----", "P2-NEXT"),
        ("O", "O---X----", "P1-NEXT"),
    ]
    assert (game.number, game.deleted, game.last.player2) == (1, False, BOB)


def test_a_name_deleted_and_created_again_has_one_game_per_create():
    games, _ = replay(
        "g1",
        moves(
            (ALICE, "create", None), (ALICE, "take", 5), (BOB, "delete", None), (BOB, "create", None), (BOB, "take", 9)
        ),
    )
    first, second = games
    assert (first.number, first.deleted, [step.move.block_num for step in first.steps]) == (1, True, [1, 2, 3])
    assert first.steps[-1].game is None and first.last.board == "----X----"
    assert (second.number, second.deleted, second.last.board, second.last.player1) == (2, False, "--------X", BOB)


def test_a_move_the_rules_refuse_is_reported_and_left_out():
    [game], problems = replay("g1", moves((ALICE, "create", None), (ALICE, "take", 5), (BOB, "take", 5)))
    assert [step.move.block_num for step in game.steps] == [1, 2]
    [problem] = problems
    assert problem.startswith("the take in block 3 (transaction ")
    assert problem.endswith("does not replay under the XO rules (game 'g1': space 5 is already taken); left out")


def test_moves_before_any_create_are_reported():
    games, problems = replay("g1", moves((ALICE, "take", 5), (ALICE, "delete", None)))
    assert games == []
    assert len(problems) == 2
