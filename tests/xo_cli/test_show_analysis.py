"""xo show --analyze: who has a line, the legal moves, and how perfect play ends the game, for people and as JSON."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ALICE = "02" + "a" * 64
BOB = "03" + "b" * 64


def analyzed(fake, run, board, state, *flags):
    fake.put_game("g1", board=board, state=state, p1=ALICE, p2=BOB)
    code, out, err = run("show", "g1", "--analyze", *flags, "--url", fake.url)
    assert (code, err) == (0, "")
    return out


def analysis_text(out):
    """The lines after the board: the card ends with the board's last row."""
    return out.split("  3   ", 1)[1].split("\n", 2)[2].splitlines()


def test_the_empty_board_is_a_draw_whatever_x_opens_with(fake, run):
    out = analyzed(fake, run, "---------", "P1-NEXT")
    assert out.startswith("GAME     : g1\n")
    assert analysis_text(out) == [
        "With perfect play: a draw. Every legal move keeps the draw",
        "Legal moves: 1 (A1), 2 (B1), 3 (C1), 4 (A2), 5 (B2), 6 (C2), 7 (A3), 8 (B3), 9 (C3)",
        "Lines: none",
    ]


def test_a_forced_win_names_the_quickest_win_first_in_both_notations(fake, run):
    out = analyzed(fake, run, "XO--X-O--", "P1-NEXT")
    assert analysis_text(out) == [
        "With perfect play: X wins. Best moves: 9 (C3), 4 (A2), 6 (C2)",
        "Legal moves: 3 (C1), 4 (A2), 6 (C2), 8 (B3), 9 (C3)",
        "Lines: none",
    ]


def test_the_only_move_that_holds_the_draw_is_named_as_such(fake, run):
    out = analyzed(fake, run, "XO--X-O--", "P2-NEXT")
    assert analysis_text(out)[0] == "With perfect play: a draw. Best moves: 9 (C3); any other loses"


def test_a_lost_position_lists_the_losers_moves_slowest_loss_first(fake, run):
    # X holds two open lines (A1-B1-C1 and A1-A2-A3); O can block only one.
    out = analyzed(fake, run, "X---O-X-X", "P2-NEXT")
    verdict = analysis_text(out)[0]
    assert verdict.startswith("With perfect play: X wins, whatever O plays. O's moves, slowest loss first: ")


def test_a_finished_game_says_its_result_and_that_no_move_is_left(fake, run):
    out = analyzed(fake, run, "XXXOO----", "P1-WIN")
    assert analysis_text(out) == ["The game is over: X won.", "Legal moves: none", "Lines: X has a line"]
    tie = analyzed(fake, run, "XOXXOOOXX", "TIE")
    assert analysis_text(tie)[0] == "The game is over: a draw (the board is full, nobody won)."


def test_a_foreign_board_where_both_marks_have_a_line_says_so(fake, run):
    out = analyzed(fake, run, "XXXOOO---", "P1-NEXT")
    lines = analysis_text(out)
    assert lines[2] == (
        "Lines: both X and O have a line, which no game played by the rules can reach "
        "(this state was written by some other processor)"
    )
    assert lines[1] == "Legal moves: 7 (A3), 8 (B3), 9 (C3)"


def test_a_full_board_whose_state_still_names_a_mover_has_no_move_left(fake, run):
    out = analyzed(fake, run, "XOXXOOOXX", "P1-NEXT")
    assert analysis_text(out)[:2] == ["No move is left, as the board is full: a draw.", "Legal moves: none"]


@pytest.mark.parametrize(
    ("board", "state", "analysis"),
    [
        ("---------", "P1-NEXT", {"winners": [], "legal_moves": list(range(1, 10)), "outcome": "draw"}),
        ("XO--X-O--", "P1-NEXT", {"legal_moves": [3, 4, 6, 8, 9], "outcome": "X", "best_moves": [9, 4, 6]}),
        ("XXXOO----", "P1-WIN", {"winners": ["X"], "legal_moves": [], "outcome": "X", "best_moves": []}),
        ("XXXOOO---", "P1-NEXT", {"winners": ["X", "O"], "legal_moves": [7, 8, 9], "outcome": "draw"}),
    ],
)
def test_json_carries_the_game_and_the_analysis_under_its_documented_keys(fake, run, board, state, analysis):
    document = json.loads(analyzed(fake, run, board, state, "--json"))
    assert (document["name"], document["board"], document["state"]) == ("g1", board, state)
    assert set(document["analysis"]) == {"winners", "legal_moves", "outcome", "best_moves"}
    assert document["analysis"] | analysis == document["analysis"]


def test_show_without_analyze_prints_no_analysis_and_json_has_no_analysis_key(fake, run):
    fake.put_game("g1", board="XO--X-O--", state="P1-NEXT", p1=ALICE, p2=BOB)
    code, out, _ = run("show", "g1", "--url", fake.url)
    assert code == 0
    assert out.rstrip().endswith("3   O | 8 | 9")
    assert "analysis" not in json.loads(run("show", "g1", "--json", "--url", fake.url)[1])


@pytest.mark.parametrize(("flags", "loaded"), [([], False), (["--analyze"], True)])
def test_the_solver_is_loaded_only_for_analyze(fake, flags, loaded):
    fake.put_game("g1", board="XO--X-O--", state="P1-NEXT", p1=ALICE, p2=BOB)
    probe = (
        "import sys\n"
        "from xo_cli.main import main\n"
        f"code = main({['show', 'g1', *flags, '--url', fake.url]!r})\n"
        "print(code, 'xo_tp.solver' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert done.stderr.strip() == f"0 {loaded}"


def test_the_reference_example_is_what_xo_prints(fake, run):
    reference = (Path(__file__).parents[2] / "docs" / "xo-command.md").read_text(encoding="utf-8")
    example = reference.split("$ xo show g1 --analyze --username alice\n", 1)[1].split("```", 1)[0]
    out = analyzed(fake, run, "XO--X-O--", "P1-NEXT")
    assert analysis_text(out) == example.splitlines()[-3:]
    assert out.split("\n\n")[1] == example.split("\n\n")[1]  # the board
