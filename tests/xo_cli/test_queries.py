"""xo list and xo show: every game across the REST API's pages, one game drawn for people or as JSON."""

import json

import pytest

from xo_tp.family import game_address

ALICE = "02" + "a" * 64
BOB = "03" + "b" * 64


def test_list_follows_paging_to_the_last_page_and_sorts_by_name(fake, run):
    names = [f"game-{index:02d}" for index in range(7)]
    for name in reversed(names):
        fake.put_game(name)
    fake.page_size = 3
    code, out, err = run("list", "--format", "json", "--url", fake.url)
    assert (code, err) == (0, "")
    assert [game["name"] for game in json.loads(out)] == names
    assert len(fake.gets("/state")) == 3


def test_list_uses_only_path_and_query_of_next_links_that_name_another_host(fake, run):
    for index in range(5):
        fake.put_game(f"g{index}")
    fake.page_size = 2
    fake.link_host = "rest-api.internal:8008"
    code, out, _ = run("list", "--json", "--url", fake.url)
    assert code == 0
    assert len(json.loads(out)) == 5


def test_list_json_objects_have_the_documented_fields(fake, run):
    fake.put_game("g1", board="X---O----", state="P1-NEXT", p1=ALICE, p2=BOB)
    code, out, _ = run("list", "--json", "--url", fake.url)
    assert code == 0
    assert json.loads(out) == [
        {
            "name": "g1",
            "board": "X---O----",
            "state": "P1-NEXT",
            "player1": ALICE,
            "player2": BOB,
            "address": game_address("g1"),
        }
    ]


def test_list_table_has_a_row_per_game_with_keys_shortened_as_in_refusals(fake, run):
    fake.put_game("g1", board="X---O----", state="P1-NEXT", p1=ALICE, p2=BOB)
    fake.put_game("second game")
    code, out, _ = run("list", "--url", fake.url)
    assert code == 0
    heading, first, second = out.splitlines()
    assert heading.split() == ["GAME", "X", "O", "BOARD", "STATE"]
    assert first.split() == ["g1", "02aaaa...", "03bbbb...", "X", "on", "A1,", "O", "on", "B2", "02aaaa...", "(X)",
                             "to", "move"]
    assert second.split() == ["second", "game", "empty", "board", "X", "to", "move", "(open", "seat)"]
    assert "NEXT" not in out and "----" not in out


def test_list_of_nothing(fake, run):
    assert run("list", "--url", fake.url)[1] == "No XO games yet.\n"
    assert json.loads(run("list", "--json", "--url", fake.url)[1]) == []


def test_list_skips_malformed_state_with_a_warning(fake, run):
    fake.put_game("good")
    fake.state["5b7349" + "1" * 64] = b"this is not a game"
    code, out, err = run("list", "--json", "--url", fake.url)
    assert code == 0
    assert [game["name"] for game in json.loads(out)] == ["good"]
    assert err.startswith("xo: warning: state at 5b7349111")


def test_list_shows_every_game_of_a_collision_bucket(fake, run):
    address = game_address("g1")
    fake.state[address] = b"g1,---------,P1-NEXT,,|other,X--------,P2-NEXT,02ab,"
    code, out, _ = run("list", "--json", "--url", fake.url)
    assert code == 0
    assert [(game["name"], game["address"]) for game in json.loads(out)] == [("g1", address), ("other", address)]


def test_show_draws_the_board_with_numbers_on_empty_spaces(fake, run):
    fake.put_game("g1", board="O---X----", state="P1-NEXT", p1=ALICE, p2=BOB)
    code, out, _ = run("show", "g1", "--url", fake.url, "--username", "nobody")
    assert code == 0
    assert "GAME     : g1" in out
    assert "STATE    : X to play: player 1, 02aaaa..." in out
    assert "PLAYER 1 : 02aaaa... plays X" in out
    assert "PLAYER 2 : 03bbbb... plays O" in out
    assert f"ADDRESS  : {game_address('g1')}" in out
    assert out.endswith(
        "      A   B   C\n"
        "  1   O | 2 | 3\n"
        "     ---+---+---\n"
        "  2   4 | X | 6\n"
        "     ---+---+---\n"
        "  3   7 | 8 | 9\n"
    )


def test_show_marks_your_seat_and_your_turn(fake, make_player, run):
    alice = make_player("alice")
    fake.put_game("g1", board="----X----", state="P2-NEXT", p1=BOB, p2=alice.public_key)
    code, out, _ = run("show", "g1", *alice.flags(fake.url))
    assert code == 0
    assert "STATE    : O to play: your turn" in out
    assert "plays O (you)" in out


def test_a_username_that_cannot_name_a_key_marks_nobody_as_you(fake, make_player, run):
    alice = make_player("alice")
    fake.put_game("g1", p1=alice.public_key)
    nested = alice.key_dir / "sub"
    nested.mkdir()
    (alice.key_dir / "alice.pub").rename(nested / "alice.pub")
    code, out, _ = run("show", "g1", "--url", fake.url, "--key-dir", alice.key_dir, "--username", "sub/alice")
    assert code == 0
    assert "(you)" not in out


def test_show_says_when_a_seat_is_open(fake, run):
    fake.put_game("g1", board="----X----", state="P2-NEXT", p1=ALICE)
    out = run("show", "g1", "--url", fake.url)[1]
    assert "player 2's seat is open" in out
    assert "PLAYER 2 : (open seat, plays O)" in out


@pytest.mark.parametrize(("state", "words"), [("P1-WIN", "X (player 1) won"), ("TIE", "nobody won")])
def test_show_says_how_a_finished_game_ended(fake, run, state, words):
    fake.put_game("g1", board="XXXOO----" if state == "P1-WIN" else "XOXXOOOXX", state=state, p1=ALICE, p2=BOB)
    assert words in run("show", "g1", "--url", fake.url)[1]


def test_show_json_is_one_object(fake, run):
    fake.put_game("g1", p1=ALICE)
    code, out, _ = run("show", "g1", "--format", "json", "--url", fake.url)
    assert code == 0
    assert json.loads(out) == {
        "name": "g1",
        "board": "---------",
        "state": "P1-NEXT",
        "player1": ALICE,
        "player2": "",
        "address": game_address("g1"),
    }


def test_show_finds_its_game_in_a_collision_bucket(fake, run):
    fake.state[game_address("g1")] = b"another,---------,P1-NEXT,,|g1,--X------,P2-NEXT,02ab,"
    code, out, _ = run("show", "g1", "--json", "--url", fake.url)
    assert code == 0
    assert json.loads(out)["board"] == "--X------"


def test_show_of_a_missing_game_exits_1(fake, run):
    code, out, err = run("show", "nope", "--url", fake.url)
    assert (code, out) == (1, "")
    assert err == "xo: error: there is no game named 'nope'\n"


def test_show_of_a_game_whose_state_does_not_decode_says_so(fake, run):
    fake.state[game_address("g1")] = b"g1,not-a-board,P1-NEXT,,"
    code, out, err = run("show", "g1", "--url", fake.url)
    assert (code, out) == (1, "")
    assert err == (
        f"xo: error: game 'g1' cannot be read: state at {game_address('g1')}: "
        "game 'g1' has an invalid board 'not-a-board'\n"
    )


def test_show_of_a_name_missing_from_its_bucket_exits_1(fake, run):
    fake.state[game_address("g1")] = b"another,---------,P1-NEXT,,"
    code, _, err = run("show", "g1", "--url", fake.url)
    assert code == 1
    assert "no game named 'g1'" in err


def test_url_comes_from_xo_url_when_not_given(fake, monkeypatch, run):
    fake.put_game("g1")
    monkeypatch.setenv("XO_URL", fake.url.removeprefix("http://"))
    code, out, _ = run("show", "g1", "--json")
    assert code == 0
    assert json.loads(out)["name"] == "g1"


def test_an_explicit_empty_url_is_a_usage_error_not_the_default(fake, monkeypatch, run):
    monkeypatch.setenv("XO_URL", fake.url)
    code, out, err = run("show", "g1", "--url", "")
    assert (code, out) == (2, "")
    assert err == "xo: error: argument --url: '' is not a REST API base URL such as http://127.0.0.1:8008\n"
    assert fake.requests == []


def test_a_malformed_url_is_a_usage_error(run):
    code, _, err = run("show", "g1", "--url", "ftp://somewhere")
    assert code == 2
    assert err == "xo: error: argument --url: 'ftp://somewhere' is not an http:// or https:// URL\n"
