"""Nothing a player types can garble another player's terminal: names are escaped, cut and aligned in what xo prints.

Game names are chosen by whoever creates the game and shown to everyone who
lists games. Each test checks what the command really prints (xo run in-process,
its stdout and stderr as a terminal would receive them); JSON keeps the exact
name, since it is for programs, not terminals.
"""

import json
import re

import pytest

from xo_tp.family import game_address

ALICE = "02" + "a" * 64
BOB = "03" + "b" * 64
HOSTILE = {
    "escape": "\x1b[31mred",
    "newline": "two\nlines",
    "tab": "tab\there",
    "c1": "c1\x9b31m",
    "delete": "del\x7f",
    "bidi": "evil\u202egnp.exe",
}
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Every character a terminal could act on, except the newlines and tabs xo writes itself (checked separately)."""


def assert_safe(text):
    assert CONTROL.search(text) is None, repr(text)


@pytest.fixture
def hostile_games(fake):
    for name in HOSTILE.values():
        fake.put_game(name, board="X--------", state="P2-NEXT", p1=ALICE)
    fake.put_game("plain")
    return fake


def test_list_shows_every_hostile_name_escaped_one_row_each(hostile_games, run):
    code, out, err = run("list", "--url", hostile_games.url)
    assert (code, err) == (0, "")
    assert_safe(out)
    assert "\t" not in out
    lines = out.splitlines()
    assert len(lines) == 1 + len(HOSTILE) + 1
    assert "\\x1b[31mred" in out
    assert "two\\x0alines" in out
    assert "evil\\u202egnp.exe" in out
    widths = {len(line.split("X on A1")[0]) for line in lines[1:] if "X on A1" in line}
    assert len(widths) == 1, "the BOARD column starts at the same place on every row"


def test_list_json_keeps_the_exact_names(hostile_games, run):
    code, out, _ = run("list", "--json", "--url", hostile_games.url)
    assert code == 0
    assert {game["name"] for game in json.loads(out)} == {*HOSTILE.values(), "plain"}


def test_a_very_long_name_is_cut_in_the_table_but_not_in_json(fake, run):
    fake.put_game("L" * 10_000)
    fake.put_game("short")
    code, out, _ = run("list", "--url", fake.url)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) < 80
    assert "L" * 23 + "…" in out
    assert json.loads(run("list", "--json", "--url", fake.url)[1])[0]["name"] == "L" * 10_000


def test_wide_names_keep_the_columns_aligned_by_display_width(fake, run):
    fake.put_game("対局", board="X--------", state="P2-NEXT")
    fake.put_game("🎉🎉", board="X--------", state="P2-NEXT")
    fake.put_game("abcd", board="X--------", state="P2-NEXT")
    _, out, _ = run("list", "--url", fake.url)
    starts = set()
    for line in out.splitlines()[1:]:
        before = line.split("X on A1")[0]
        starts.add(sum(2 if ord(char) > 0x2E80 else 1 for char in before))
    assert len(starts) == 1


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_show_prints_the_name_escaped(fake, run, name):
    fake.put_game(name)
    code, out, _ = run("show", name, "--url", fake.url)
    assert code == 0
    assert_safe(out)
    assert "\t" not in out
    assert out.splitlines()[0].startswith("GAME     : ")
    assert len(out.splitlines()) == 12


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_success_and_error_lines_escape_the_name(fake, make_player, run, name):
    alice = make_player("alice")
    code, out, err = run("create", name, "--wait", "10", *alice.flags(fake.url))
    assert (code, err) == (0, "")
    assert out.count("\n") == 1
    assert_safe(out)
    code, out, err = run("create", name, *alice.flags(fake.url))
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert_safe(err)
    assert "already exists" in err


def test_an_unreadable_entry_is_warned_about_on_one_escaped_line(fake, run):
    fake.put_game("good")
    fake.state[game_address("bad")] = b"bad\x1b[2J\nname,---------,NOPE,,"
    code, _, err = run("list", "--url", fake.url)
    assert code == 0
    assert err.count("\n") == 1
    assert err.startswith("xo: warning: state at 5b7349")
    assert_safe(err)


def test_a_key_from_state_that_is_not_hex_is_escaped_too(fake, run):
    fake.put_game("g1", board="X--------", state="P2-NEXT", p1="\x1b]0;owned\x07")
    for command in (["list"], ["show", "g1"]):
        code, out, _ = run(*command, "--url", fake.url)
        assert code == 0
        assert_safe(out)


def test_text_a_server_chose_is_escaped_in_error_lines(fake, run):
    body = json.dumps({"error": {"code": 15, "title": "Not \x1b[31mReady", "message": "line\none\u202e"}}).encode()
    fake.answer_always(503, body)
    code, _, err = run("show", "g1", "--url", fake.url)
    assert code == 3
    assert err.count("\n") == 1
    assert_safe(err)
    assert "Not \\x1b[31mReady" in err
