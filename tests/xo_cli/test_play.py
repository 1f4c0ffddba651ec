"""``xo play``: whole games against xo-devnet, driven through pipes (a script) and a pseudo-terminal (a person).

``xo play`` runs as the separate process a player starts; each line it prints is read
as it comes, and moves are written when it asks for them. The computer's games are
checked on the ledger afterwards (``xo show``, ``xo history``): a normal game between
two keys.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import stat
import subprocess
import termios
import time
from pathlib import Path

import pytest

from client_core.keys import KeyNames
from client_core.rest import RestClient
from tests.xo_cli.devnet_play import SECONDS, XO, Running, Table
from xo_cli.play import Match
from xo_client.notation import parse_space
from xo_client.seat import AI_KEY_NAME, read_game, turn_of
from xo_core.keyfiles import write_key_pair
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess
from xo_tp.family import game_address

BOARD = re.compile(r"; ((?:[XO] on [A-C1-3 ]+(?:, )?)+|empty board)$")
"""The board at the end of a move's line, in grid notation: ``X on A1 B2, O on C3``."""


@pytest.fixture(scope="module")
def devnet(tmp_path_factory):
    with DevnetProcess(log_path=tmp_path_factory.mktemp("devnet") / "devnet.log") as running:
        yield running


@pytest.fixture(scope="module")
def table(devnet) -> Table:
    return Table(devnet.rest_url, devnet.key_dir)


@pytest.fixture
def playing(devnet):
    started: list[Running] = []

    def start(name: str, *flags: str, username: str = "alice") -> Running:
        where = ["--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--username", username]
        started.append(Running("play", name, *flags, *where, stdin=True))
        return started[-1]

    yield start
    for running in started:
        running.stop()


def ai_key(devnet) -> str:
    return (devnet.key_dir / f"{AI_KEY_NAME}.pub").read_text().strip()


def short(key: str) -> str:
    return key[:6] + "..."


def is_prompt(line: str) -> bool:
    return "your move as" in line


def board_of(line: str) -> str:
    """The board a line shows in grid notation, back in the wire's form (``X---O----``), for comparing boards."""
    cells = ["-"] * 9
    for part in BOARD.search(line).group(1).split(", "):
        mark, _, spaces = part.partition(" on ")
        for space in spaces.split():
            cells[parse_space(space) - 1] = mark
    return "".join(cells)


def lowest_empty(lines: list[str]) -> str:
    """The lowest free space on the last board the lines show."""
    board = [board_of(line) for line in lines if BOARD.search(line)][-1]
    return str(board.index("-") + 1)


def play_lowest_first(game: Running) -> list[str]:
    """Answer every prompt with the lowest free space until the game is over; every line printed."""
    seen: list[str] = []
    while True:
        seen += game.until(lambda line: is_prompt(line) or " is over: " in line)
        if " is over: " in seen[-1]:
            return seen
        game.send(lowest_empty(seen))


def without_key_note(lines: list[str]) -> list[str]:
    """The lines after the note that the computer's key was made (only the first --vs ai game on a key dir has it)."""
    return [line for line in lines if not line.startswith("made the computer player's key")]


def test_a_game_against_the_computer_from_a_pipe_one_line_per_event(devnet, playing, table, run):
    game = playing("vs-ai", "--vs", "ai", "--seed", "11")
    lines = without_key_note(play_lowest_first(game))
    assert game.wait() == 0
    assert game.rest() == []
    me, ai = f"alice ({short(table.key('alice'))})", f"xo-ai ({short(ai_key(devnet))})"
    assert lines[0] == f"game 'vs-ai': you play as {me}, against {ai} (level perfect)"
    assert lines[1].endswith(": game 'vs-ai' created; X to move (open seat); empty board")
    assert lines[2] == "game 'vs-ai': your move as X (1-9 or A1..C3, q leaves)"
    assert lines[3].endswith(f": game 'vs-ai': {me} took 1 (A1) as X; O to move (open seat); X on A1")
    assert lines[4].endswith(f": game 'vs-ai': {ai} took 5 (B2) as O; alice (X) to move; X on A1, O on B2"), \
        "perfect O takes the centre"
    assert not [line for line in lines if "NEXT" in line or "-----" in line], "no spec states, no raw boards"
    moves = [line for line in lines if " took " in line]
    assert [me in line for line in moves] == [index % 2 == 0 for index in range(len(moves))], "X and O alternate"
    assert lines[-1] in (
        f"game 'vs-ai' is over: you lost: O won (player 2: {ai})",
        "game 'vs-ai' is over: a tie (the board is full, nobody won)",
    )
    code, out, _ = run("show", "vs-ai", "--json", "--url", devnet.rest_url)
    assert code == 0 and json.loads(out)["player2"] == ai_key(devnet)
    code, out, _ = run("history", "vs-ai", "--json", "--url", devnet.rest_url)
    history = json.loads(out)["games"][0]["moves"]
    assert [move["player"] for move in history[1:]] == [
        table.key("alice") if index % 2 == 0 else ai_key(devnet) for index in range(len(moves))
    ]


def test_the_computer_s_key_is_made_on_first_use_and_said_once(devnet, tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir()
    for suffix in (".priv", ".pub"):
        (keys / f"alice{suffix}").write_bytes((devnet.key_dir / f"alice{suffix}").read_bytes())
    os.chmod(keys / "alice.priv", 0o600)
    where = ["--url", devnet.rest_url, "--key-dir", str(keys), "--username", "alice"]
    for name, first in (("fresh-keys-1", True), ("fresh-keys-2", False)):
        game = Running("play", name, "--vs", "ai", *where, stdin=True)
        try:
            lines = game.until(is_prompt)
            game.send("q")
            assert game.wait() == 0
        finally:
            game.stop()
        assert (lines[0] == f"made the computer player's key 'xo-ai' in {keys}") is first
    assert stat.S_IMODE(os.stat(keys / "xo-ai.priv").st_mode) == 0o600


def test_the_reference_game_against_the_computer_replays_as_printed(devnet):
    reference = (Path(__file__).parents[2] / "docs" / "xo-command.md").read_text(encoding="utf-8")
    command = next(line for line in reference.splitlines() if line.startswith("$ printf") and "xo play" in line)
    shown = reference.split(command + "\n", 1)[1].split("```", 1)[0].splitlines()
    typed, argv = re.fullmatch(r"\$ printf '(.*)' \| xo (.*)", command).groups()
    where = ["--url", devnet.rest_url, "--key-dir", str(devnet.key_dir)]
    done = subprocess.run(
        [XO, *argv.split(), *where], input=typed.replace("\\n", "\n"), capture_output=True, text=True,
        timeout=SECONDS, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

    def plain(lines: list[str]) -> list[str]:
        """Without what differs from ledger to ledger: block numbers, keys, the note of a new xo-ai key."""
        lines = without_key_note(lines)
        return [re.sub(r"\(\w{6}\.\.\.\)", "(KEY)", re.sub(r"^block \d+:", "block N:", line)) for line in lines]

    assert plain(done.stdout.splitlines()) == plain(shown)


def test_a_hostile_game_name_is_shown_escaped_on_every_line(devnet, playing):
    hostile = "red\x1b[31m\u202e"
    game = playing(hostile, "--vs", "ai", "--seed", "1")
    game.until(is_prompt)
    game.send("5", "q")
    lines = game.until(lambda line: line.startswith("you left"))
    assert game.wait() == 0
    assert not any(char in line for line in lines for char in ("\x1b", "\u202e"))
    assert all("game 'red\\x1b[31m\\u202e'" in line for line in lines)
    assert lines[-1] == (
        "you left: game 'red\\x1b[31m\\u202e' stays on the ledger, unfinished, alice (X) to move; "
        "to go on with it: xo play 'red\\x1b[31m\\u202e'"
    )


def test_the_same_seed_and_moves_replay_the_same_game(devnet, playing):
    games = []
    for name in ("seeded-1", "seeded-2"):
        game = playing(name, "--vs", "ai", "--seed", "5", "--level", "random")
        lines = play_lowest_first(game)
        assert game.wait() == 0
        games.append([board_of(line) for line in lines if " took " in line])
    assert games[0] == games[1]
    other = playing("seeded-3", "--vs", "ai", "--seed", "6", "--level", "random")
    assert [board_of(line) for line in play_lowest_first(other) if " took " in line] != games[0]


def test_two_players_on_two_processes_play_each_other(devnet, playing):
    alice = playing("duel")
    alice.until(is_prompt)
    alice.send("B2")
    alice.until(lambda line: "waiting: O to play" in line)
    bob = playing("duel", username="bob")
    assert bob.until(is_prompt)[-1] == "game 'duel': your move as O (1-9 or A1..C3, q leaves)"
    for player, other, space in ((bob, alice, "1"), (alice, bob, "3"), (bob, alice, "7"), (alice, bob, "4"),
                                 (bob, alice, "9")):  # fmt: skip
        player.send(space)
        player.until(lambda line: "waiting:" in line)
        other.until(is_prompt)
    alice.send("c2")
    assert alice.until(lambda line: " is over: " in line)[-1] == "game 'duel' is over: you won, as X"
    assert bob.until(lambda line: " is over: " in line)[-1].startswith("game 'duel' is over: you lost: X won")
    assert (alice.wait(), bob.wait()) == (0, 0)


def test_a_refused_move_is_explained_and_asked_again(devnet, playing):
    game = playing("refusals", "--vs", "ai", "--seed", "1")
    game.until(is_prompt)
    game.send("x7", "5", "5", "q")
    lines = game.until(lambda line: line.startswith("you left"))
    refusals = [line for line in lines if not line.startswith("block ") and not is_prompt(line)]
    assert refusals[:2] == [
        "'x7' is not a board space: use 1-9 (row by row from the top left) or A1-C3 (column, row); or q to leave",
        "game 'refusals': space 5 is already taken",
    ]
    assert sum(map(is_prompt, lines)) == 3, "asked after each refusal"
    assert game.wait() == 0


def test_the_end_of_the_input_leaves_and_the_game_stays(devnet, playing, table):
    game = playing("left", "--vs", "ai", "--seed", "2")
    game.until(is_prompt)
    game.send("5")
    game.close_input()
    lines = game.until(lambda line: line.startswith("you left"))
    assert lines[-1] == (
        "you left: game 'left' stays on the ledger, unfinished, alice (X) to move; to go on with it: xo play left"
    )
    assert game.wait() == 0
    again = playing("left", "--vs", "ai", "--seed", "2")
    assert again.until(is_prompt)[-2].endswith(": game 'left' as it stands; " + lines[-3].split("; ", 1)[1])


@pytest.mark.parametrize(("signum", "code", "how"), [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")])
def test_ctrl_c_or_sigterm_leaves_and_the_game_stays(devnet, playing, table, signum, code, how):
    name = f"interrupted-{code}"
    game = playing(name)
    game.until(is_prompt)
    game.send("5")
    game.until(lambda line: "waiting:" in line)
    assert game.interrupt(signum) == code
    assert game.rest()[-1] == (
        f"{how}: game '{name}' stays on the ledger, unfinished, O to move (open seat); to go on with it: "
        f"xo play {name}"
    )
    assert game.rest("stderr") == []
    assert read_game(table.client, name).board == "----X----"


def test_a_game_deleted_during_play_ends_it(devnet, playing, table):
    game = playing("deleted")
    game.until(is_prompt)
    game.send("5")
    game.until(lambda line: "waiting:" in line)
    table.move("bob", "deleted", "delete")
    lines = game.until(lambda line: "was deleted" in line)
    assert lines[-2].endswith(": game 'deleted' deleted")
    assert lines[-1] == "game 'deleted' was deleted"
    assert game.wait() == 0


def test_an_unreachable_rest_api_is_exit_3_before_anything_is_asked(run, make_player, closed_port):
    alice = make_player("alice")
    code, out, err = run("play", "g1", *alice.flags(f"http://127.0.0.1:{closed_port}"))
    assert (code, out) == (3, "")
    assert err.startswith(f"xo: error: cannot reach the REST API at http://127.0.0.1:{closed_port}")
    code, _, err = run("bot", "g1", *alice.flags(f"http://127.0.0.1:{closed_port}"))
    assert code == 3 and err.startswith("xo: error: cannot reach the REST API")


def test_a_game_whose_seats_are_both_taken_can_only_be_watched(devnet, playing, table):
    if not (devnet.key_dir / "carol.priv").exists():
        write_key_pair(devnet.key_dir, "carol", Signer.generate())
    table.move("alice", "full", "create")
    table.takes("full", 5, 1)
    game = playing("full", username="carol")
    assert game.wait() == 1
    assert game.rest("stderr") == [
        f"xo: error: both seats of game 'full' are taken, by alice ({short(table.key('alice'))}) and "
        f"bob ({short(table.key('bob'))}): you can only watch it: xo watch full"
    ]


def test_another_player_in_a_vs_ai_game_is_refused(devnet, playing, table):
    table.move("bob", "taken", "create")
    table.takes("taken", 5, first="bob")
    game = playing("taken", "--vs", "ai")
    assert game.wait() == 1
    assert game.rest("stderr") == [
        f"xo: error: game 'taken' has another player, bob ({short(table.key('bob'))}): --vs ai plays only games "
        "between you and the computer (play it without --vs ai, or choose a new name)"
    ]


def test_level_and_seed_without_vs_ai_are_a_usage_error(run, devnet):
    flags = ["--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--username", "alice"]
    assert run("play", "g", "--seed", "3", *flags)[0] == 2
    code, _, err = run("play", "g", "--level", "random", *flags)
    assert (code, err) == (2, "xo: error: --level and --seed choose how the computer plays: add --vs ai\n")
    assert run("play", "g", "--vs", "ai", "--seed", "-1", *flags)[0] == 2


class Recorded:
    """A screen that keeps what it was told, as ``method: last argument``."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def __getattr__(self, method: str):
        return lambda *args: self.said.append(f"{method}: {args[-1]}")


def test_a_move_the_validator_refuses_is_explained_and_asked_again(fake, monkeypatch):
    """The game as followed says the space is free; the validator, which saw the opponent take it first, refuses."""
    me = Signer.generate()
    opponent = "02" + "cd" * 32
    address = fake.put_game("race", "----X----", "P2-NEXT", p1=opponent)
    monkeypatch.setattr(fake, "apply", lambda _move: "Invalid Action: space already taken.")
    screen = Recorded()
    with RestClient(fake.url) as client:
        match = Match(client, "race", me, None, screen, names=KeyNames({}), interactive=False)
        match.live.book.load([(address, fake.state[address])])
        game = match.live.game("race")
        match.shown_position = (game.board, game.state, game.player1, game.player2)
        assert match.try_move("1", game, turn_of(game, me.public_key)) is None
    assert [move.payload for move in fake.submitted] == ["race,take,1"]
    assert screen.said == [
        "progress: take 1 (A1) in game 'race': sent, waiting for it to commit",
        "say: the validator refused your move: Invalid Action: space already taken.",
    ]
    assert match.shown_position is None, "the prompt comes again"
    assert not match.i_moved


# --- on a terminal ---


class Terminal:
    """``xo ARGS`` on a pseudo-terminal that is its controlling terminal, as in a person's shell."""

    def __init__(self, *argv: str) -> None:
        self.master, slave = pty.openpty()

        def controlling_terminal() -> None:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen(
            [XO, *argv], stdin=slave, stdout=slave, stderr=slave, preexec_fn=controlling_terminal  # noqa: PLW1509
        )
        os.close(slave)
        self.screen = ""

    def until(self, *texts: str) -> str:
        """What the terminal showed up to the first of ``texts`` (within the deadline); what follows is kept."""
        deadline = time.monotonic() + SECONDS
        while not any(text in self.screen for text in texts):
            assert time.monotonic() < deadline, f"{texts} never shown; the terminal shows:\n{self.screen[-2000:]}"
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                self.screen += os.read(self.master, 65536).decode()
        end = min(self.screen.index(text) + len(text) for text in texts if text in self.screen)
        shown, self.screen = self.screen[:end], self.screen[end:]
        return shown

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(SECONDS)
        os.close(self.master)


@pytest.fixture
def terminal(devnet):
    started: list[Terminal] = []

    def start(*argv: str) -> Terminal:
        where = ["--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--username", "alice"]
        started.append(Terminal(*argv, *where))
        return started[-1]

    yield start
    for each in started:
        each.close()


def test_on_a_terminal_the_board_is_redrawn_with_the_prompt_and_the_computer_s_reply(devnet, terminal, table):
    screen = terminal("play", "tty-game", "--vs", "ai", "--seed", "4")
    prompt = "Your move as X (1-9 or A1..C3, q leaves): "
    first = screen.until(prompt)
    assert "\x1b[H\x1b[2J" in first, "the screen is cleared and redrawn"
    assert "  2   4 | 5 | 6" in first, "empty spaces show their numbers, with the column and row labels"
    screen.type("b2\n")
    after = screen.until(prompt).split("\x1b[H\x1b[2J")[-1]
    assert "STATE    : X to play: your turn" in after
    assert f"PLAYER 1 : alice ({short(table.key('alice'))}) plays X (you)" in after
    assert f"PLAYER 2 : xo-ai ({short(ai_key(devnet))}) plays O" in after
    assert f"alice ({short(table.key('alice'))}) took 5 (B2) as X; O to move (open seat); X on B2" in after
    assert re.search(r"xo-ai \(\w{6}\.\.\.\) took \d \(\w\d\) as O; ", after), "the reply is drawn"
    shown = after
    while prompt in shown:  # the lowest free space, as the ledger has it, until the game is over
        board = read_game(table.client, "tty-game").board
        screen.type(f"{board.index('-') + 1}\n")
        shown = screen.until(prompt, " is over: ")
    assert screen.process.wait(SECONDS) == 0
    assert read_game(table.client, "tty-game").state in ("P2-WIN", "TIE")


def test_ctrl_c_at_the_terminal_leaves_the_game_on_the_ledger(devnet, terminal):
    screen = terminal("play", "tty-left", "--vs", "ai")
    screen.until("Your move as X")
    screen.type("\x03")
    assert "Ctrl-C: game 'tty-left' stays on the ledger, unfinished, X to move (open seat)" in screen.until(
        "xo play tty-left"
    )
    assert screen.process.wait(SECONDS) == 130


def test_a_line_typed_out_of_turn_is_answered_and_dropped(devnet, terminal, table):
    table.move("bob", "tty-turn", "create")
    table.takes("tty-turn", 5, first="bob")
    table.move("alice", "tty-turn", "take", 1)
    screen = terminal("play", "tty-turn")
    screen.until("Waiting: X to play: player 1, bob")
    screen.type("9\n")
    assert "not your turn: X to play: player 1, bob" in screen.until("'9' ignored")
    table.move("bob", "tty-turn", "take", 9)
    screen.until("Your move as O")
    screen.type("q\n")
    screen.until("you left: game 'tty-turn' stays on the ledger")
    assert screen.process.wait(SECONDS) == 0
    assert RestClient(devnet.rest_url).get_state(game_address("tty-turn")).decode().split(",")[1] == "O---X---X"
