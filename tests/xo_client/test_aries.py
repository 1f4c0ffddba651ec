"""XO games as Aries Tic Tac Toe 1.0 threads: export, check against the XO rules, and the moves to replay."""

import copy
import itertools
import json
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xo_client.aries import (
    ALREADY_OCCUPIED,
    BAD_MESSAGE,
    BAD_MOVE,
    MOVE_TYPE,
    NOT_YOUR_TURN,
    OUTCOME_TYPE,
    PROBLEM_CODES,
    InvalidThread,
    Placement,
    Problem,
    check_thread,
    moves_of,
    parse_move,
    played,
    to_thread,
)
from xo_tp import rules

# X: B2, O: A1, X: A2, O: B1, X: C2 -- X completes the middle row.
X_WINS = [Placement("X", 5), Placement("O", 1), Placement("X", 4), Placement("O", 2), Placement("X", 6)]
DRAW = [Placement(mark, space) for mark, space in zip("XOXOXOXOX", [1, 2, 3, 5, 4, 7, 6, 9, 8], strict=True)]
RFC = "did:sov:SLfEi9esrjzybysFxQZbfq;spec/tictactoe/1.0"
THID = "518be002-de8e-456e-b3d5-8fe472477a86"


def numbered_ids():
    counter = itertools.count()
    return lambda: f"msg-{next(counter):04d}"


def thread_of(moves, **options):
    return to_thread(moves, new_id=numbered_ids(), **options)


def test_a_won_game_is_one_move_message_per_move_then_the_outcome():
    assert thread_of(X_WINS[:2]) == [
        {"@type": f"{RFC}/move", "@id": "msg-0000", "me": "X", "moves": ["X:B2"]},
        {
            "@type": f"{RFC}/move",
            "@id": "msg-0001",
            "~thread": {"thid": "msg-0000", "sender_order": 0},
            "me": "O",
            "moves": ["X:B2", "O:A1"],
        },
    ]
    thread = thread_of(X_WINS)
    assert [message["@type"] for message in thread] == [MOVE_TYPE] * 5 + [OUTCOME_TYPE]
    assert [len(message["moves"]) for message in thread] == [1, 2, 3, 4, 5, 5]
    # sender_order counts each sender's own messages; the loser (O) acknowledges with the outcome.
    assert [(message["me"], message.get("~thread", {}).get("sender_order")) for message in thread] == [
        ("X", None), ("O", 0), ("X", 1), ("O", 1), ("X", 2), ("O", 2),
    ]  # fmt: skip
    assert thread[-1] == {
        "@type": f"{RFC}/outcome",
        "@id": "msg-0005",
        "~thread": {"thid": "msg-0000", "sender_order": 2},
        "me": "O",
        "moves": ["X:B2", "O:A1", "X:A2", "O:B1", "X:C2"],
        "winner": "X",
    }


def test_outcomes_name_the_winner_none_for_a_draw_and_null_for_an_abandoned_game():
    assert thread_of(DRAW)[-1]["winner"] == "none"
    assert thread_of(X_WINS[:3], abandoned=True)[-1]["winner"] is None
    assert thread_of(X_WINS, abandoned=True)[-1]["winner"] == "X"  # deleted after it ended: still won
    assert thread_of(X_WINS[:3])[-1]["@type"] == MOVE_TYPE  # still being played: no outcome yet


def test_a_game_abandoned_before_any_move_is_a_lone_outcome_and_an_untouched_one_is_empty():
    assert thread_of([], abandoned=True) == [{"@type": OUTCOME_TYPE, "@id": "msg-0000", "winner": None}]
    assert thread_of([]) == []
    assert check_thread([]) is None
    assert check_thread(thread_of([], abandoned=True)) is None


def test_ids_are_fresh_uuids_by_default():
    thread = to_thread(DRAW)
    ids = [message["@id"] for message in thread]
    assert len(set(ids)) == len(ids) == 10
    assert all(uuid.UUID(message_id).version == 4 for message_id in ids)
    assert all(message["~thread"]["thid"] == ids[0] for message in thread[1:])


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ([Placement("O", 5)], "out of turn"),
        ([Placement("X", 5), Placement("O", 5)], "already taken"),
        ([*X_WINS, Placement("O", 9)], "out of turn"),
    ],
)
def test_moves_the_rules_refuse_are_not_exported(moves, message):
    with pytest.raises(ValueError, match=message):
        to_thread(moves)


def test_the_protocols_own_example_thread_is_a_valid_xo_game():
    # move-1.json .. move-4.json of RFC 0003's tictactoe protocol (move-4's "@type" there reads
    # "ddid:sov:..." -- a typo the check would refuse; see test_a_malformed_envelope_is_a_bad_message).
    thread = [
        {"@type": f"{RFC}/move", "@id": THID, "me": "X", "moves": ["X:B2"], "comment": "Let's play tic-tac-toe."},
        {"@type": f"{RFC}/move", "~thread": {"thid": THID, "sender_order": 0}, "moves": ["X:B2", "O:A1"], "me": "O"},
        {"@type": f"{RFC}/move", "~thread": {"thid": THID, "sender_order": 1}, "moves": ["X:B2", "O:A1", "X:A2"], "me": "X"},  # noqa: E501
        {"@type": f"{RFC}/move", "~thread": {"thid": THID, "sender_order": 1}, "moves": ["X:B2", "O:A1", "X:A2", "O:B1"], "me": "O"},  # noqa: E501
    ]  # fmt: skip
    assert check_thread(thread) is None
    assert moves_of(thread) == [Placement("X", 5), Placement("O", 1), Placement("X", 4), Placement("O", 2)]


def test_the_order_inside_moves_does_not_matter_only_which_move_a_message_adds():
    thread = thread_of(X_WINS)
    for message in thread:
        message["moves"].reverse()
    assert check_thread(thread) is None
    assert moves_of(thread) == X_WINS


def test_the_notation_may_be_lower_case_and_the_didcomm_org_prefix_is_accepted():
    thread = thread_of(X_WINS[:2])
    thread[1]["moves"] = ["x:b2", "o:a1"]
    thread[1]["me"] = "o"
    thread[0]["@type"] = "https://didcomm.org/tictactoe/1.0/move"
    assert moves_of(thread) == X_WINS[:2]


def test_an_invitation_from_o_lets_x_open():
    thread = [
        {"@type": MOVE_TYPE, "@id": "invite-01", "me": "O", "comment": "Your move."},
        {"@type": MOVE_TYPE, "~thread": {"thid": "invite-01", "sender_order": 0}, "me": "X", "moves": ["X:C3"]},
        {"@type": MOVE_TYPE, "~thread": {"thid": "invite-01", "sender_order": 1}, "me": "O", "moves": ["X:C3", "O:B2"]},
    ]
    assert moves_of(thread) == [Placement("X", 9), Placement("O", 5)]


def problem(thread):
    found = check_thread(thread)
    assert isinstance(found, Problem)
    return found


def test_o_moving_first_is_not_its_turn():
    thread = thread_of(X_WINS[:1])
    thread[0]["me"], thread[0]["moves"] = "O", ["O:B2"]
    assert problem(thread) == Problem(NOT_YOUR_TURN, 0, "O moved (O:B2) when it was X's turn")


def test_x_moving_twice_is_not_its_turn():
    thread = thread_of(X_WINS[:3])  # X: B2, O: A1, X: A2
    thread.append({"@type": MOVE_TYPE, "~thread": {"thid": "msg-0000", "sender_order": 2}, "me": "X",
                   "moves": ["X:B2", "O:A1", "X:A2", "X:C3"]})  # fmt: skip
    assert problem(thread) == Problem(NOT_YOUR_TURN, 3, "X moved (X:C3) when it was O's turn")


def test_a_taken_cell_is_already_occupied():
    thread = thread_of(X_WINS[:2])
    thread[1]["moves"] = ["X:B2", "O:B2"]
    assert problem(thread) == Problem(ALREADY_OCCUPIED, 1, "O:B2: cell B2 is already occupied")


@pytest.mark.parametrize("bad", ["X:D4", "X:B0", "X-B2", "X:B2 ", "XB2", "Z:A1", "", 5, None, ["X:B2"], {"X": "B2"}])
def test_a_move_outside_the_notation_is_a_bad_move(bad):
    thread = thread_of(X_WINS[:2])
    thread[1]["moves"] = ["X:B2", bad]
    found = problem(thread)
    assert (found.code, found.index) == (BAD_MOVE, 1)
    assert 'expected a string like "X:A1" or "O:C3"' in found.explanation


@pytest.mark.parametrize(
    ("moves", "explanation"),
    [
        (["X:B2", "O:A1", "O:C3"], "moves adds O:A1, O:C3; each move message adds exactly one"),
        (["X:B2"], "moves adds no move; each move message adds exactly one"),
        (["O:A1"], "moves leaves out X:B2, played in earlier messages"),
        (["X:C3", "O:A1"], "moves leaves out X:B2, played in earlier messages"),  # rewrites history
        (["X:B2", "X:A1"], "X:A1 places an X, but its sender plays O"),
        (["X:B2"] * 10, "moves lists 10 moves; a board has room for 9"),
    ],
)
def test_a_message_must_add_exactly_one_move_of_its_own_to_the_earlier_ones(moves, explanation):
    thread = thread_of(X_WINS[:2])
    thread[1]["moves"] = moves
    assert problem(thread) == Problem(BAD_MOVE, 1, explanation)


def test_a_move_after_the_game_ended_is_a_bad_move():
    thread = thread_of(X_WINS)[:-1]
    thread.append({"@type": MOVE_TYPE, "~thread": {"thid": "msg-0000", "sender_order": 2}, "me": "O",
                   "moves": [move.notation() for move in X_WINS] + ["O:C3"]})  # fmt: skip
    assert problem(thread) == Problem(BAD_MOVE, 5, "O:C3 comes after the end of the game (P1-WIN)")


@pytest.mark.parametrize(
    ("thread", "index", "explanation"),
    [
        ({"moves": []}, None, "a thread is a JSON array of messages, not an object"),
        ("[]", None, "a thread is a JSON array of messages, not a string"),
        (None, None, "a thread is a JSON array of messages, not null"),
        ([["X:B2"]], 0, "a message is a JSON object, not an array"),
        ([7], 0, "a message is a JSON object, not a number"),
    ],
)
def test_a_thread_is_an_array_of_objects(thread, index, explanation):
    assert check_thread(thread) == Problem(BAD_MESSAGE, index, explanation)


def mutated(moves, index, change):
    thread = thread_of(moves)
    change(thread[index])
    return thread


@pytest.mark.parametrize(
    ("index", "change", "explanation"),
    [
        (
            0,
            lambda m: m.update({"@type": "d" + RFC + "/move"}),
            '@type "ddid:sov:SLfEi9esrjzybysFxQZbfq;spec/tic"... is not',
        ),
        (0, lambda m: m.update({"@type": RFC + "/problem-report"}), "is not did:sov:"),
        (1, lambda m: m.pop("@type"), "@type null is not"),
        (0, lambda m: m.pop("@id"), "the first message needs an @id of 8 to 64"),
        (0, lambda m: m.update({"@id": "short"}), 'not "short"'),
        (0, lambda m: m.update({"@id": "has space in it"}), 'not "has space in it"'),
        (1, lambda m: m.update({"@id": 12345678}), "@id must be 8 to 64 letters, digits"),
        (1, lambda m: m.update({"@id": "msg-0000"}), '@id "msg-0000" is already used by an earlier message'),
        (1, lambda m: m.pop("~thread"), '~thread must be an object with thid "msg-0000", not null'),
        (1, lambda m: m.update({"~thread": "msg-0000"}), "~thread must be an object"),
        (1, lambda m: m["~thread"].update({"thid": "msg-9999"}), '~thread.thid "msg-9999" is not the thread\'s id'),
        (1, lambda m: m["~thread"].pop("thid"), "~thread.thid null is not the thread's id"),
        (0, lambda m: m.update({"~thread": {"thid": "elsewhere"}}), '~thread.thid "elsewhere" is not'),
        (2, lambda m: m["~thread"].update({"sender_order": 2}), "sender_order is 2, but its sender has sent 1 before"),
        (2, lambda m: m["~thread"].pop("sender_order"), "sender_order is 0, but its sender has sent 1 before"),
        (2, lambda m: m["~thread"].update({"sender_order": True}), "must be a whole number, not true"),
        (2, lambda m: m["~thread"].update({"sender_order": "1"}), 'must be a whole number, not "1"'),
        (2, lambda m: m["~thread"].update({"sender_order": -1}), "must be a whole number, not -1"),
        (1, lambda m: m.pop("me"), "me must be X or O, the sender's mark, not null"),
        (1, lambda m: m.update({"me": "Z"}), 'not "Z"'),
        (1, lambda m: m.update({"me": ["O"]}), "not an array"),
        (1, lambda m: m.update({"moves": "X:B2,O:A1"}), 'moves must be a JSON array of moves like "X:B2", not "X:B2'),
    ],
)
def test_a_malformed_envelope_is_a_bad_message(index, change, explanation):
    found = problem(mutated(X_WINS, index, change))
    assert (found.code, found.index) == (BAD_MESSAGE, index)
    assert explanation in found.explanation


@pytest.mark.parametrize(
    ("change", "explanation"),
    [
        (lambda m: m.update({"winner": "O"}), 'the outcome names winner "O", but the game ended with winner X'),
        (lambda m: m.update({"winner": None}), "the outcome names winner null, but the game ended with winner X"),
        (lambda m: m.update({"winner": "x"}), 'names winner "x"'),
        (lambda m: m.pop("winner"), "an outcome needs a winner: X, O, none (a draw) or null (abandoned)"),
        (lambda m: m.update({"moves": ["X:B2"]}), "the outcome's moves are not the 5 moves played"),
        (lambda m: m.update({"me": "Q"}), 'me must be X or O, the sender\'s mark, not "Q"'),
        (lambda m: m["~thread"].update({"sender_order": 3}), "sender_order is 3, but its sender has sent 2 before"),
    ],
)
def test_an_outcome_must_state_the_games_result(change, explanation):
    found = problem(mutated(X_WINS, 5, change))
    assert (found.code, found.index) == (BAD_MESSAGE, 5)
    assert explanation in found.explanation


def test_an_outcome_may_come_from_either_player_and_leave_out_me_and_moves():
    thread = thread_of(X_WINS)
    del thread[-1]["me"], thread[-1]["moves"]
    assert check_thread(thread) is None
    thread[-1]["~thread"]["sender_order"] = 3  # the winner's fourth message: also fine
    assert check_thread(thread) is None
    thread[-1]["~thread"]["sender_order"] = 4
    assert problem(thread).explanation == "~thread.sender_order is 4, but its sender has sent 2 or 3 before"


def test_an_unfinished_game_can_only_be_abandoned():
    thread = thread_of(X_WINS[:3], abandoned=True)
    assert check_thread(thread) is None
    thread[-1]["winner"] = "none"
    assert problem(thread) == Problem(
        BAD_MESSAGE, 3, 'the outcome names winner "none", but the game had not ended (winner null)'
    )


def test_nothing_follows_the_outcome():
    thread = thread_of(X_WINS[:3], abandoned=True)
    thread.append(thread_of(X_WINS[:4])[3])
    assert problem(thread) == Problem(BAD_MESSAGE, 4, "message 3 already sent the outcome; nothing follows it")


def test_an_invitation_from_x_is_refused_because_x_moves_first_in_xo():
    thread = [{"@type": MOVE_TYPE, "@id": "invite-01", "me": "X"}]
    assert problem(thread) == Problem(
        BAD_MESSAGE, 0, "an invitation from X asks O to move first, but in XO X moves first"
    )


def test_moves_of_refuses_an_invalid_thread_with_its_problem():
    thread = thread_of(X_WINS[:2])
    thread[1]["moves"] = ["X:B2", "O:B2"]
    with pytest.raises(InvalidThread) as refused:
        moves_of(thread)
    assert refused.value.problem.code == ALREADY_OCCUPIED
    assert str(refused.value) == "O:B2: cell B2 is already occupied"


def test_explanations_quote_only_a_little_of_what_they_refuse():
    thread = thread_of(X_WINS[:2])
    thread[1]["moves"] = ["X:B2", "\x1b[31m" + "O" * 10_000]
    explanation = problem(thread).explanation
    assert len(explanation) < 150
    assert "\x1b" not in explanation  # escaped as JSON \u001b


def test_parse_move_reads_the_notation_and_nothing_else():
    assert parse_move("X:B2") == Placement("X", 5)
    assert parse_move("o:c3") == Placement("O", 9)
    assert [parse_move(text) for text in ["X:B2\n", "X\uff1aB2", "X:B\u0662", "X:b 2", None, 5]] == [None] * 6
    assert [Placement("X", space).notation() for space in (1, 3, 7, 9)] == ["X:A1", "X:C1", "X:A3", "X:C3"]


@st.composite
def legal_games(draw):
    """A game played by the rules from the empty board, stopped anywhere, maybe abandoned."""
    game, moves = played([]), []
    length = draw(st.integers(min_value=0, max_value=9))
    while len(moves) < length and game.state not in rules.FINISHED_STATES:
        mark = rules.mark_to_move(game.state)
        space = draw(st.sampled_from([i + 1 for i, cell in enumerate(game.board) if cell == rules.EMPTY]))
        moves.append(Placement(mark, space))
        game = played(moves)
    return moves, draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(legal_games())
def test_every_game_round_trips_through_its_thread_and_json(game):
    moves, abandoned = game
    thread = json.loads(json.dumps(to_thread(moves, abandoned=abandoned)))
    assert check_thread(thread) is None
    assert moves_of(thread) == moves


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
FIELDS = st.sampled_from(["@type", "@id", "~thread", "me", "moves", "winner", "comment"])


def check_never_crashes_and_valid_means_legal(thread):
    found = check_thread(thread)
    if found is None:
        assert played(moves_of(thread)).state in rules.GAME_STATES  # the rules accept every move
    else:
        assert found.code in PROBLEM_CODES
        assert found.index is None or 0 <= found.index < len(thread)
        assert found.explanation


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_any_json_value_is_checked_without_crashing(value):
    check_never_crashes_and_valid_means_legal(value)


@settings(max_examples=500, deadline=None)
@given(legal_games(), st.data())
def test_a_valid_thread_with_one_field_replaced_by_any_json_is_checked_without_crashing(game, data):
    thread = to_thread(game[0], abandoned=game[1], new_id=numbered_ids())
    if not thread:
        return
    message = data.draw(st.sampled_from(thread))
    field = data.draw(FIELDS)
    message[field] = data.draw(JSON | st.sampled_from(["X", "O", "X:A1", "O:C3", "msg-0000", None]))
    check_never_crashes_and_valid_means_legal(thread)


@settings(max_examples=300, deadline=None)
@given(legal_games(), st.data())
def test_a_valid_thread_with_a_message_dropped_or_repeated_is_refused_or_still_legal(game, data):
    thread = to_thread(game[0], abandoned=game[1], new_id=numbered_ids())
    if len(thread) < 2:
        return
    index = data.draw(st.integers(min_value=0, max_value=len(thread) - 1))
    if data.draw(st.booleans()):
        del thread[index]
    else:
        thread.insert(index, copy.deepcopy(thread[index]))
    check_never_crashes_and_valid_means_legal(thread)
