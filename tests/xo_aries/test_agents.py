"""Two ACA-Py agents, separate processes on loopback, play Tic Tac Toe 1.0 through their admin APIs.

``alice`` is ``xo aries agent`` with an API key; ``mallory`` runs the same ACA-Py command line
plus a plugin that sends whatever it is told (``plugins/xo_aries_cheat``), to see how alice
answers moves the protocol forbids. The agents start once for the module.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest

pytest.importorskip("acapy_agent", reason="ACA-Py is not installed: pip install -e '.[aries]' (Python 3.12+)")

from tests.xo_aries.agents import Agent, connect, running, start_agent
from xo_aries.problem_fields import CATALOG
from xo_cli.aries_admin import AgentRefused
from xo_cli.aries_connect import READY_STATES
from xo_cli.main import main as xo
from xo_client.aries import DIDCOMM_PROTOCOL, PROTOCOL

KEY = "test-admin-key"
#: The general problem-report under the prefix of the seed's time, as a game in the seed's spelling gets it.
SEED_PROBLEM_REPORT = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/notification/1.0/problem-report"


class Webhooks(http.server.ThreadingHTTPServer):
    """A controller's webhook endpoint: keeps every (topic, payload) ACA-Py posts to it."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict]] = []
        hooks = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hooks.received.append((self.path, json.loads(body)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *_: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def games(self, thread_id: str) -> list[dict]:
        return [game for path, game in self.received if path == "/topic/tictactoe/" and game["thread_id"] == thread_id]


@pytest.fixture(scope="module")
def webhooks():
    server = Webhooks()
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory, webhooks: Webhooks):
    home = tmp_path_factory.mktemp("agents")
    hooks = f"http://127.0.0.1:{webhooks.server_address[1]}"
    with running(
        lambda: start_agent("alice", home / "alice", "--webhook-url", hooks, api_key=KEY),
        lambda: start_agent("mallory", home / "mallory", cheat=True),
    ) as (alice, mallory):
        connect(alice, mallory)
        yield alice, mallory


def start(agent: Agent, other: Agent, me: str, move: str | None = None) -> dict:
    body = {"connection_id": agent.connections[other.label], "me": me} | ({"move": move} if move else {})
    return agent.admin.post("/tictactoe/start", body)


def move(agent: Agent, thread_id: str, cell: str) -> dict:
    return agent.admin.post(f"/tictactoe/{thread_id}/move", {"cell": cell})


def cheat(agent: Agent, other: Agent, thread_id: str, kind: str, **fields: object) -> None:
    body = {"connection_id": agent.connections[other.label], "thread_id": thread_id, "kind": kind, **fields}
    agent.admin.post("/tictactoe-cheat/send", body)


def reports_received(agent: Agent, thread_id: str, count: int, timeout: float = 20.0) -> list[dict]:
    """The problem-reports the cheating ``agent`` has received in a game, once there are ``count``."""
    deadline = time.monotonic() + timeout
    while True:
        received = agent.admin.get("/tictactoe-cheat/reports")["results"]
        reports = [report for report in received if report.get("~thread", {}).get("thid") == thread_id]
        if len(reports) >= count or time.monotonic() > deadline:
            return reports
        time.sleep(0.05)


def assert_both_forms(report: dict, code: str) -> None:
    """``report`` says ``code`` the seed's way (``explain.@l10n.code``, text in ``explain``) and RFC 0035's."""
    assert report["@type"] == SEED_PROBLEM_REPORT, "alice's game is in the seed's spelling"
    assert report["explain.@l10n"] == {"code": code, "locale": "en", "catalogs": [CATALOG]}
    assert report["description"] == {"code": code, "en": report["explain"]}
    assert report["explain"]


def test_a_whole_game_played_through_the_admin_apis(agents, webhooks):
    alice, mallory = agents
    game = start(alice, mallory, "X", "B2")
    thread = game["thread_id"]
    assert (game["state"], game["moves"], game["turn"], game["protocol"]) == ("their-move", ["X:B2"], "O", PROTOCOL)

    theirs = mallory.wait_for(thread, lambda game: game["state"] == "my-move")
    assert (theirs["me"], theirs["moves"], theirs["board"]) == ("O", ["X:B2"], "----X----")
    for player, cell in ((mallory, "A1"), (alice, "A2"), (mallory, "B1"), (alice, "C2")):
        player.wait_for(thread, lambda game: game["state"] == "my-move")
        move(player, thread, cell)

    ours = alice.wait_for(thread, lambda game: game["state"] == "done")
    theirs = mallory.wait_for(thread, lambda game: game["state"] == "done")
    expected = ["X:B2", "O:A1", "X:A2", "O:B1", "X:C2"]
    assert ours["moves"] == theirs["moves"] == expected
    assert ours["rows"] == theirs["rows"] == ["OO-", "XXX", "---"]
    assert ours["winner"] == theirs["winner"] == "X"
    assert ours["turn"] is None
    assert ours["problems"] == theirs["problems"] == []
    assert (ours["sent"], theirs["sent"]) == (3, 3), "X's 3 moves; O's 2 moves and the outcome acknowledging the loss"
    listed = alice.admin.get("/tictactoe/games", {"state": "done"})["results"]
    assert thread in [game["thread_id"] for game in listed]

    deadline = time.monotonic() + 10
    while len(webhooks.games(thread)) < 6 and time.monotonic() < deadline:
        time.sleep(0.05)
    hooks = sorted(webhooks.games(thread), key=lambda game: game["updated_at"])  # delivery order is not promised
    changes = [(game["state"], len(game["moves"])) for game in hooks]
    # each move sent and received, the winning move, then the other's outcome acknowledging it
    assert changes == [("their-move", 1), ("my-move", 2), ("their-move", 3), ("my-move", 4), ("done", 5), ("done", 5)]


def test_an_occupied_cell_and_a_move_out_of_turn_are_problem_reports_and_change_nothing(agents):
    alice, mallory = agents
    thread = start(alice, mallory, "X", "B2")["thread_id"]
    mallory.wait_for(thread, lambda game: game["state"] == "my-move")

    cheat(mallory, alice, thread, "move", me="O", moves=["X:B2", "O:B2"])
    ours = alice.wait_for(thread, lambda game: len(game["problems"]) == 1)
    assert ours["problems"][0]["code"] == "already-occupied"
    assert (ours["state"], ours["moves"]) == ("their-move", ["X:B2"])
    theirs = mallory.wait_for(thread, lambda game: len(game["problems"]) == 1)
    assert theirs["problems"][0] | {"direction": "received"} == theirs["problems"][0]
    assert theirs["problems"][0]["code"] == "already-occupied"
    (occupied,) = reports_received(mallory, thread, 1)
    assert_both_forms(occupied, "already-occupied")
    assert "B2" in occupied["explain"]

    move(mallory, thread, "A1")
    alice.wait_for(thread, lambda game: game["state"] == "my-move")
    cheat(mallory, alice, thread, "move", me="O", moves=["X:B2", "O:A1", "O:C3"])
    ours = alice.wait_for(thread, lambda game: len(game["problems"]) == 2)
    assert ours["problems"][1]["code"] == "not-your-turn"
    assert (ours["state"], ours["moves"]) == ("my-move", ["X:B2", "O:A1"])
    assert mallory.wait_for(thread, lambda game: len(game["problems"]) == 2)["problems"][1]["code"] == "not-your-turn"
    out_of_turn = reports_received(mallory, thread, 2)[1]
    assert_both_forms(out_of_turn, "not-your-turn")


def test_a_problem_report_in_the_seeds_form_only_or_in_rfc_0035s_only_is_kept_in_the_game(agents):
    alice, mallory = agents
    thread = start(alice, mallory, "X", "B2")["thread_id"]
    mallory.wait_for(thread, lambda game: game["state"] == "my-move")
    seed_form = {  # as an agent written to the seed sends it: no description
        "@type": SEED_PROBLEM_REPORT,
        "explain": "You can't place a mark in cell B2. It is already occupied.",
        "explain.@l10n": {"code": "already-occupied"},
    }
    rfc_0035_form = {
        "@type": "https://didcomm.org/notification/1.0/problem-report",
        "description": {"code": "not-your-turn", "en": "You moved when it was my turn."},
    }
    for count, report in enumerate((seed_form, rfc_0035_form), start=1):
        message = report | {"@id": str(uuid.uuid4()), "~thread": {"thid": thread}}
        body = {"connection_id": mallory.connections[alice.label], "message": message}
        mallory.admin.post("/tictactoe-cheat/send-raw", body)
        alice.wait_for(thread, lambda game, count=count: len(game["problems"]) == count)

    ours = alice.game(thread)
    assert [problem | {"moves": None} for problem in ours["problems"]] == [
        {"direction": "received", "code": "already-occupied", "explanation": seed_form["explain"], "moves": None},
        {"direction": "received", "code": "not-your-turn", "explanation": "You moved when it was my turn.",
         "moves": None},
    ]  # fmt: skip
    assert (ours["state"], ours["moves"]) == ("their-move", ["X:B2"]), "a report changes nothing"


def test_an_outcome_naming_a_winner_of_an_unfinished_game_is_a_bad_message(agents):
    alice, mallory = agents
    thread = start(alice, mallory, "X", "C2")["thread_id"]
    mallory.wait_for(thread, lambda game: game["state"] == "my-move")
    cheat(mallory, alice, thread, "outcome", winner="O")
    ours = alice.wait_for(thread, lambda game: len(game["problems"]) == 1)
    assert ours["problems"][0]["code"] == "bad-message"
    assert (ours["state"], ours["winner"], ours["abandoned"]) == ("their-move", None, False)


def test_a_move_the_agent_can_see_is_illegal_is_refused_by_the_route_and_never_sent(agents):
    alice, mallory = agents
    thread = start(alice, mallory, "X", "A1")["thread_id"]
    mallory.wait_for(thread, lambda game: game["state"] == "my-move")
    for cell, status in (("A1", 409), ("D4", 400)):
        with pytest.raises(AgentRefused) as refused:
            move(mallory, thread, cell)
        assert refused.value.status == status
    with pytest.raises(AgentRefused) as refused:
        move(alice, thread, "C3")
    assert (refused.value.status, refused.value.code) == (409, "not-your-turn")
    assert mallory.game(thread)["moves"] == alice.game(thread)["moves"] == ["X:A1"]
    assert alice.game(thread)["problems"] == []


def test_the_other_agent_opens_when_invited_and_the_didcomm_org_spelling_is_answered_in_kind(agents):
    alice, mallory = agents
    invitation = start(mallory, alice, "O")
    thread = invitation["thread_id"]
    assert (invitation["state"], invitation["moves"]) == ("their-move", [])
    ours = alice.wait_for(thread, lambda game: game["state"] == "my-move")
    assert (ours["me"], ours["protocol"]) == ("X", PROTOCOL)

    cheat(mallory, alice, "f" * 36, "move", me="X", moves=["X:C3"])
    spelled = alice.wait_for("f" * 36, lambda game: game["state"] == "my-move")
    assert (spelled["me"], spelled["moves"], spelled["protocol"]) == ("O", ["X:C3"], DIDCOMM_PROTOCOL)


def test_abandoning_sends_an_outcome_with_a_null_winner(agents):
    alice, mallory = agents
    thread = start(alice, mallory, "X", "C1")["thread_id"]
    mallory.wait_for(thread, lambda game: game["state"] == "my-move")
    gone = alice.admin.post(f"/tictactoe/{thread}/abandon")
    assert (gone["state"], gone["abandoned"], gone["winner"]) == ("done", True, None)
    theirs = mallory.wait_for(thread, lambda game: game["state"] == "done")
    assert (theirs["abandoned"], theirs["turn"]) == (True, None)
    with pytest.raises(AgentRefused) as refused:
        move(mallory, thread, "B2")
    assert refused.value.status == 409


def test_the_admin_api_needs_its_key(agents):
    alice, _ = agents
    request = urllib.request.Request(f"{alice.admin.url}/tictactoe/games")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401
    assert json.dumps(alice.admin.get("/tictactoe/games")).startswith('{"results"')


def test_xo_aries_play_plays_a_game_from_the_terminal(agents):
    alice, mallory = agents
    before = {game["thread_id"] for game in mallory.admin.get("/tictactoe/games")["results"]}
    command = [
        sys.executable, "-m", "xo_cli.main", "aries", "play", "--admin", alice.admin.url, "--admin-api-key", KEY,
        "--connection", alice.connections["mallory"], "--wait", "60",
    ]  # fmt: skip
    player = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert player.stdin is not None
    player.stdin.write(b"5\nD9\nA2\nC2\n")  # B2 as a number; D9 is refused and asked again
    player.stdin.close()
    thread = mallory.wait_for_new_game(before)
    for cell in ("A1", "B1"):
        mallory.wait_for(thread, lambda game: game["state"] == "my-move")
        move(mallory, thread, cell)
    assert player.wait(timeout=60) == 0, player.stderr.read()
    text = player.stdout.read().decode()
    assert "You won!" in text and "is not a board space" in text
    assert mallory.wait_for(thread, lambda game: game["state"] == "done")["winner"] == "X"


def test_xo_aries_connect_accepts_an_invitation_and_prints_the_connection(agents, capsys):
    alice, mallory = agents
    assert xo(["aries", "connect", alice.invitation, "--admin", mallory.admin.url, "--wait", "30"]) == 0
    connection = capsys.readouterr().out.strip()
    assert mallory.admin.get(f"/connections/{connection}")["state"] in READY_STATES, "ready to carry messages"
    deadline = time.monotonic() + 20  # "response" (ACA-Py's ready too) becomes "completed" once mallory confirms it
    while mallory.admin.get(f"/connections/{connection}")["state"] not in ("active", "completed"):
        assert time.monotonic() < deadline, "the connection never completed"
        time.sleep(0.05)
    assert connection != mallory.connections["alice"], "alice's invitation is reusable: a second connection"
