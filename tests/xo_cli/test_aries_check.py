"""xo aries check FILE|-: a thread's verdict on stdout and in the exit status; files that are not threads are errors."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from xo_cli.thread_files import MAX_THREAD_BYTES
from xo_client.aries import MOVE_TYPE, Placement, to_thread

XO = Path(sys.executable).parent / "xo"
# X: B2, O: A1, X: A2, O: B1, X: C2 -- X completes the middle row.
X_WINS = [Placement("X", 5), Placement("O", 1), Placement("X", 4), Placement("O", 2), Placement("X", 6)]


def write(tmp_path, thread, name="game.json"):
    path = tmp_path / name
    path.write_text(thread if isinstance(thread, str) else json.dumps(thread), encoding="utf-8")
    return path


@pytest.fixture
def stdin(monkeypatch):
    """``stdin(data)`` makes standard input hold ``data`` (bytes), as a pipe would."""

    def feed(data):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))

    return feed


@pytest.mark.parametrize(
    ("moves", "options", "verdict"),
    [
        (X_WINS, {}, "valid: 5 moves, X won"),
        (X_WINS[:3], {"abandoned": True}, "valid: 3 moves, abandoned unfinished"),
        (X_WINS[:2], {}, "valid: 2 moves, X to play"),
        (X_WINS[:1], {}, "valid: 1 move, O to play"),
        ([], {}, "valid: no move yet, X to play"),
    ],
)
def test_a_valid_thread_exits_0_and_says_how_its_game_stands(tmp_path, run, moves, options, verdict):
    path = write(tmp_path, to_thread(moves, **options))
    assert run("aries", "check", path) == (0, f"{path}: {verdict}\n", "")


def test_opening_with_o_is_not_your_turn(tmp_path, run):
    thread = to_thread(X_WINS[:1])
    thread[0] |= {"me": "O", "moves": ["O:B2"]}
    path = write(tmp_path, thread)
    assert run("aries", "check", path) == (1, f"{path}[0]: not-your-turn: O moved (O:B2) when it was X's turn\n", "")


def test_a_taken_cell_is_already_occupied_at_the_message_that_takes_it(tmp_path, run):
    thread = to_thread(X_WINS)
    thread[3]["moves"][3] = "O:B2"
    path = write(tmp_path, thread)
    assert run("aries", "check", path) == (1, f"{path}[3]: already-occupied: O:B2: cell B2 is already occupied\n", "")


def test_a_move_off_the_board_is_a_bad_move(tmp_path, run):
    thread = to_thread(X_WINS[:2])
    thread[1]["moves"][1] = "O:D4"
    path = write(tmp_path, thread)
    code, out, err = run("aries", "check", path)
    assert (code, err) == (1, "")
    assert out == f'{path}[1]: bad-move: move "O:D4" makes no sense; expected a string like "X:A1" or "O:C3"\n'


@pytest.mark.parametrize(
    ("thread", "where", "explanation"),
    [
        ({"moves": []}, "", "a thread is a JSON array of messages, not an object"),
        ([{"@type": "did:example;spec/chess/1.0/move", "@id": "abcdefgh"}], "[0]", "@type \"did:example;spec/chess"),
    ],
)
def test_what_does_not_fit_a_thread_at_all_is_a_bad_message(tmp_path, run, thread, where, explanation):
    path = write(tmp_path, thread)
    code, out, _ = run("aries", "check", path)
    assert code == 1
    assert out.startswith(f"{path}{where}: bad-message: {explanation}")


def test_json_gives_the_problem_exactly_and_nulls_for_the_game(tmp_path, run):
    thread = to_thread(X_WINS)
    thread[3]["moves"][3] = "O:B2"
    path = write(tmp_path, thread)
    code, out, _ = run("aries", "check", path, "--json")
    assert code == 1
    assert json.loads(out) == {
        "source": str(path),
        "valid": False,
        "problem": {"code": "already-occupied", "index": 3, "explanation": "O:B2: cell B2 is already occupied"},
        "moves": None,
        "state": None,
        "abandoned": None,
    }


def test_json_of_a_valid_thread_gives_its_moves_in_play_order_and_the_xo_state(tmp_path, run):
    code, out, _ = run("aries", "check", write(tmp_path, to_thread(X_WINS)), "--json")
    assert code == 0
    document = json.loads(out)
    assert (document["valid"], document["problem"]) == (True, None)
    assert document["moves"] == ["X:B2", "O:A1", "X:A2", "O:B1", "X:C2"]
    assert (document["state"], document["abandoned"]) == ("P1-WIN", False)


def test_dash_reads_the_thread_from_standard_input(run, stdin):
    stdin(json.dumps(to_thread(X_WINS)).encode())
    assert run("aries", "check", "-") == (0, "stdin: valid: 5 moves, X won\n", "")
    thread = to_thread(X_WINS)
    thread[2]["me"] = "O"
    stdin(json.dumps(thread).encode())
    code, out, _ = run("aries", "check", "-")
    assert (code, out) == (1, "stdin[2]: not-your-turn: O moved (X:A2) when it was X's turn\n")


def test_a_byte_order_mark_before_the_json_is_accepted(tmp_path, run):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(to_thread(X_WINS)).encode())
    assert run("aries", "check", path)[0] == 0


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b'[{"@type": ', "is not JSON: Expecting value at line 1, column 12"),
        (b"[1,\n2,,]", "is not JSON: Expecting value at line 2, column 3"),
        (b"\xff\xfe[]", "is not UTF-8 text (byte 0)"),
        (b"[" * 100_000 + b"]" * 100_000, "nests its JSON too deeply to be a thread"),
        (b" " * MAX_THREAD_BYTES + b"[]", f"is larger than {MAX_THREAD_BYTES} bytes"),
    ],
)
def test_a_file_that_is_not_a_json_thread_is_one_error_line(tmp_path, run, stdin, data, error):
    path = tmp_path / "thread.json"
    path.write_bytes(data)
    code, out, err = run("aries", "check", path)
    assert (code, out) == (1, "")
    assert err.startswith(f"xo: error: '{path}' {error}")
    assert err.count("\n") == 1
    stdin(data)
    assert run("aries", "check", "-")[2].startswith(f"xo: error: standard input {error}")


def test_a_file_at_the_size_limit_is_still_read(tmp_path, run):
    thread = json.dumps(to_thread(X_WINS)).encode()
    path = tmp_path / "padded.json"
    path.write_bytes(thread + b" " * (MAX_THREAD_BYTES - len(thread)))
    assert run("aries", "check", path)[0] == 0


def test_a_missing_file_or_a_directory_is_an_error_naming_it(tmp_path, run):
    missing = tmp_path / "nope.json"
    assert run("aries", "check", missing) == (1, "", f"xo: error: cannot read '{missing}': No such file or directory\n")
    assert run("aries", "check", tmp_path) == (1, "", f"xo: error: cannot read '{tmp_path}': Is a directory\n")


def test_a_hostile_file_name_and_hostile_values_reach_the_terminal_escaped(tmp_path, run):
    thread = to_thread(X_WINS[:2])
    thread[1]["moves"][1] = "\x1b[2J\u202e"
    path = write(tmp_path, thread, name="evil\x1b[31m\n.json")
    code, out, _ = run("aries", "check", path)
    assert code == 1
    assert not set(out) & {"\x1b", "\u202e"}
    assert out.count("\n") == 1
    assert out.startswith(f"{tmp_path}/evil\\x1b[31m\\x0a.json[1]: bad-move: move \"\\u001b[2J\\u202e\"")


def test_the_installed_command_reads_a_pipe(tmp_path):
    thread = to_thread(X_WINS)
    thread[4]["@type"] = MOVE_TYPE.replace("did:sov", "ddid:sov")  # the RFC's own typo in move-4.json
    command = [str(XO), "aries", "check", "-"]
    done = subprocess.run(command, input=json.dumps(thread), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stdout.startswith("stdin[4]: bad-message: @type \"ddid:sov:")


def test_the_reference_example_thread_checks_as_the_reference_says(tmp_path, run):
    reference = (Path(__file__).parents[2] / "docs" / "xo-command.md").read_text(encoding="utf-8")
    example = reference.split("in which X took B2 and O took A1", 1)[1]
    thread = example.split("```json\n", 1)[1].split("```", 1)[0]
    path = write(tmp_path, thread)
    said = example.split("$ xo aries check game.json\n", 1)[1].splitlines()[0]
    assert run("aries", "check", path) == (0, said.replace("game.json", str(path)) + "\n", "")
