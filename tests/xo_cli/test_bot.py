"""``xo bot``: the computer playing a key's seat in games, end to end against xo-devnet, as a separate process.

The person's moves are made in-process with the devnet's keys (alice, bob); the bot
plays with its own key (robo). Its log lines are read as they come.
"""

from __future__ import annotations

import random
import re
import signal

import pytest

from tests.xo_cli.devnet_play import Running, Table
from xo_client.seat import read_game
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

LOG = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (.*)$")
TOOK = re.compile(r"^game '([^']+)': took (\d) \((\w\d)\) as ([XO]); ([^;]+); ((?:[XO] on [A-C1-3 ]+(?:, )?)+)$")
"""A move's line: game, space both ways, mark, how the game stands in words, the board in grid notation."""


@pytest.fixture(scope="module")
def devnet(tmp_path_factory):
    with DevnetProcess(log_path=tmp_path_factory.mktemp("devnet") / "devnet.log") as running:
        write_key_pair(running.key_dir, "robo", Signer.generate())
        yield running


@pytest.fixture(scope="module")
def table(devnet) -> Table:
    return Table(devnet.rest_url, devnet.key_dir)


@pytest.fixture
def bots(devnet):
    started: list[Running] = []

    def start(*argv: str, username: str = "robo") -> Running:
        where = ["--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--username", username]
        started.append(Running("bot", *argv, *where))
        return started[-1]

    yield start
    for running in started:
        running.stop()


def robo(devnet) -> str:
    return "robo (" + (devnet.key_dir / "robo.pub").read_text().strip()[:6] + "...)"


def log(bot: Running, count: int = 1) -> list[str]:
    """The next ``count`` log lines, without their time stamp (which must be there)."""
    lines = bot.lines(count)
    assert all(LOG.match(line) for line in lines), lines
    return [LOG.match(line).group(1) for line in lines]


def free(board: str) -> list[int]:
    return [index + 1 for index, cell in enumerate(board) if cell == "-"]


def test_a_person_plays_x_the_bot_joins_as_o_and_exits_once_the_game_has_ended(devnet, table, bots):
    table.move("alice", "joined", "create")
    table.takes("joined", 5)
    bot = bots("joined")
    assert log(bot) == [f"playing as {robo(devnet)}, level perfect: game 'joined'"]
    moves = 0
    while True:
        [line] = log(bot)
        took = TOOK.match(line)
        if took is None:  # alice's last move filled the board
            rest = [line]
            break
        moves += 1
        assert took.group(4) == "O" and took.group(1) == "joined"
        if not took.group(5).endswith("(X) to move"):
            rest = []
            break
        table.move("alice", "joined", "take", free(read_game(table.client, "joined").board)[0])
    rest += [LOG.match(line).group(1) for line in bot.rest()]
    assert moves >= 3
    game = read_game(table.client, "joined")
    assert game.player2 == (devnet.key_dir / "robo.pub").read_text().strip()
    assert game.state in ("P2-WIN", "TIE"), "perfect O never loses"
    ending = "won: O won (player 2: " + robo(devnet) + ")" if game.state == "P2-WIN" else "a tie"
    assert rest[-2:] == [f"game 'joined' is over: {ending}", "every game has ended"]
    assert bot.wait() == 0
    assert bot.rest("stderr") == []


def test_a_move_line_speaks_in_player_words():
    line = "game 'g': took 5 (B2) as O; alice (X) to move; X on A1, O on B2"
    assert TOOK.match(line).group(5, 6) == ("alice (X) to move", "X on A1, O on B2")
    assert TOOK.match("game 'g': took 5 (B2) as O; X on A1, O on B2; XO------- P1-NEXT") is None


def test_the_bot_never_loses_with_perfect_play_whoever_opens(devnet, table, bots):
    rng = random.Random(20)
    names = [f"never-{n}" for n in range(4)]
    for index, name in enumerate(names):
        table.move("alice", name, "create")
        if index % 2 == 0:  # the person opens; in the others the bot does, as X
            table.move("alice", name, "take", rng.choice(range(1, 10)))
    bot = bots(*names, "--seed", "3")
    log(bot)
    over = set()
    while len(over) < len(names):
        [line] = log(bot)
        if took := TOOK.match(line):
            name = took.group(1)
            if " to move" in took.group(5):
                table.move("alice", name, "take", rng.choice(free(read_game(table.client, name).board)))
        elif line.endswith("waiting for an opponent to join as O"):
            assert line.split("'")[1] in names[1::2], "only in the games the bot opened"
        else:
            assert " is over: " in line, line
            over.add(line.split("'")[1])
            assert " is over: lost" not in line
    assert log(bot) == ["every game has ended"]
    assert bot.wait() == 0
    robo_key = (devnet.key_dir / "robo.pub").read_text().strip()
    for name in names:
        game = read_game(table.client, name)
        robo_won = "P1-WIN" if game.player1 == robo_key else "P2-WIN"
        assert game.state in (robo_won, "TIE"), game


def test_a_game_deleted_while_the_bot_plays_ends_it_there_and_a_missing_one_is_waited_for(devnet, table, bots):
    table.move("alice", "vanishing", "create")
    table.takes("vanishing", 1)
    bot = bots("vanishing", "not-yet")
    started, answer, waiting = log(bot, 3)
    assert started == f"playing as {robo(devnet)}, level perfect: game 'vanishing', game 'not-yet'"
    assert TOOK.match(answer).group(1, 4) == ("vanishing", "O")
    assert waiting == "game 'not-yet' does not exist yet: waiting for it to be created"
    table.move("alice", "vanishing", "delete")
    assert log(bot) == ["game 'vanishing' was deleted"]
    table.move("bob", "not-yet", "create")
    [opening] = log(bot)
    assert TOOK.match(opening).group(1, 4) == ("not-yet", "X"), "nobody had joined: the bot opens"
    assert log(bot) == ["game 'not-yet': waiting for an opponent to join as O"]
    table.move("bob", "not-yet", "delete")
    assert log(bot, 2) == ["game 'not-yet' was deleted", "every game has ended"]
    assert bot.wait() == 0


def test_a_game_with_both_seats_taken_is_skipped_with_a_line(devnet, table, bots):
    table.move("alice", "others", "create")
    table.takes("others", 5, 1)
    bot = bots("others")
    assert log(bot, 3)[1:] == [
        f"skipped: both seats of game 'others' are taken, by alice ({table.key('alice')[:6]}...) and "
        f"bob ({table.key('bob')[:6]}...); it cannot play there",
        "every game has ended",
    ]
    assert bot.wait() == 0


def test_a_bot_never_takes_both_seats_and_says_it_waits_for_an_opponent(devnet, table, bots):
    table.move("alice", "alone", "create")
    table.takes("alone", 5)
    bot = bots("alone", username="alice")
    assert log(bot, 2)[1] == "game 'alone': waiting for an opponent to join as O"
    table.move("bob", "alone", "take", 1)
    [answer] = log(bot)
    assert TOOK.match(answer).group(1, 4) == ("alone", "X")
    assert read_game(table.client, "alone").player2 == table.key("bob")
    table.move("bob", "alone", "delete")
    assert log(bot, 2) == ["game 'alone' was deleted", "every game has ended"]


def test_a_hostile_game_name_is_logged_escaped(devnet, table, bots):
    hostile = "bot\x1b]0;owned\x07"
    table.move("alice", hostile, "create")
    table.takes(hostile, 5)
    bot = bots(hostile)
    lines = log(bot, 2)
    assert lines[0].endswith(": game 'bot\\x1b]0;owned\\x07'")
    assert lines[1].startswith("game 'bot\\x1b]0;owned\\x07': took ")
    table.move("alice", hostile, "delete")
    assert [LOG.match(line).group(1) for line in bot.rest()] == [
        "game 'bot\\x1b]0;owned\\x07' was deleted", "every game has ended"
    ]


def test_the_names_or_all_must_be_given_and_not_both(run, devnet):
    flags = ["--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--username", "robo"]
    code, _, err = run("bot", *flags)
    assert (code, err) == (2, "xo: error: name the games to play, or give --all to answer every game\n")
    code, _, err = run("bot", "g1", "--all", *flags)
    assert (code, err) == (2, "xo: error: give the names of the games to play, or --all, not both\n")
    code, _, err = run("bot", "a|b", *flags)
    assert (code, err) == (1, "xo: error: game 'a|b': a game name must not contain '|'\n")


def test_all_answers_every_first_move_and_runs_until_ctrl_c(tmp_path, bots):
    with DevnetProcess(log_path=tmp_path / "devnet.log") as own:
        write_key_pair(own.key_dir, "robo", Signer.generate())
        table = Table(own.rest_url, own.key_dir)
        table.move("alice", "waiting", "create")
        table.takes("waiting", 5)
        table.move("alice", "fresh", "create")
        table.move("alice", "busy", "create")
        table.takes("busy", 5, 1)
        where = ["--url", own.rest_url, "--key-dir", str(own.key_dir), "--username", "robo"]
        bot = Running("bot", "--all", *where)
        try:
            [started] = log(bot)
            assert started == (
                f"playing as {robo(own)}, level perfect: every game whose first move is made and whose second seat "
                "is open (Ctrl-C stops)"
            )
            [answer] = log(bot)
            assert TOOK.match(answer).group(1, 4) == ("waiting", "O")
            table.move("bob", "later", "create")
            table.takes("later", 9, first="bob")
            [later] = log(bot)
            assert TOOK.match(later).group(1, 4) == ("later", "O")
            assert bot.interrupt(signal.SIGINT) == 130
            assert [LOG.match(line).group(1) for line in bot.rest()] == ["stopped (Ctrl-C)"]
            assert bot.rest("stderr") == []
        finally:
            bot.stop()
        assert read_game(table.client, "fresh").board == "---------", "--all never opens a game"
        assert read_game(table.client, "busy").board == "O---X----"
