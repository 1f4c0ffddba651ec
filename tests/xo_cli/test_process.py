"""The installed ``xo`` command as a separate process: exit codes, streams, and what it loads."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xo_devnet.spawn import DevnetProcess

XO = Path(sys.executable).parent / "xo"
TIMEOUT = 60


def xo(*argv, **kwargs):
    return subprocess.run(
        [str(XO), *map(str, argv)], capture_output=True, text=True, timeout=TIMEOUT, check=False, **kwargs
    )


def test_the_console_script_is_installed():
    assert XO.exists(), "install the project (pip install -e .) so that the xo entry point exists"


def test_show_prints_json_and_exits_0(fake):
    fake.put_game("g1", board="----X----", state="P2-NEXT", p1="02" + "a" * 64)
    done = xo("show", "g1", "--json", "--url", fake.url)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["board"] == "----X----"


def test_one_move_with_wait_reports_the_commit(fake, make_player):
    alice = make_player("alice")
    fake.put_game("g1")
    done = xo("take", "g1", "C3", "--wait", "30", *alice.flags(fake.url))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Committed take 9 (C3) in game 'g1'")


def test_unreachable_is_exit_3_with_one_line_and_no_traceback(closed_port):
    done = xo("list", "--url", f"http://127.0.0.1:{closed_port}")
    assert done.returncode == 3
    assert done.stdout == ""
    url = f"http://127.0.0.1:{closed_port}"
    assert done.stderr == f"xo: error: cannot reach the REST API at {url}: Connection refused\n"


def test_usage_error_is_exit_2(fake):
    done = xo("take", "g1", "--url", fake.url)
    assert done.returncode == 2
    assert done.stderr.startswith("xo: error: the following arguments are required: SPACE")
    assert done.stderr.count("\n") == 1


def test_a_reader_that_stops_early_causes_no_traceback(fake):
    for index in range(800):
        fake.put_game(f"game-{index:04d}")
    done = subprocess.run(
        f"'{XO}' list --json --url {fake.url} | head -n 1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.stdout == "[\n"
    assert done.stderr == ""


@pytest.mark.parametrize("command", [["show", "g1"], ["list"]])
def test_reading_commands_never_load_protobuf_or_crypto(fake, command):
    fake.put_game("g1")
    probe = (
        "import sys\n"
        "from xo_cli.main import main\n"
        f"code = main({[*command, '--url', fake.url]!r})\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('google', 'coincurve', 'aiohttp', 'zmq'))\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.stderr.strip() == "0 []"


@pytest.fixture(scope="module")
def devnet():
    """A real xo-devnet (ephemeral, free ports, its own keys: alice and bob) for the whole module."""
    with DevnetProcess(["--ephemeral"]) as running:
        yield running


def test_a_hostile_name_on_a_real_ledger_reaches_no_terminal_unescaped(devnet):
    flags = ["--url", devnet.rest_url, "--key-dir", devnet.key_dir, "--username", "alice"]
    hostile = "\x1b[31mred\nrow\t\u202e" + "L" * 300
    created = xo("create", hostile, "--wait", "60", *flags)
    assert created.returncode == 0, created.stderr
    listed = xo("list", "--url", devnet.rest_url, "--key-dir", devnet.key_dir)
    assert listed.returncode == 0
    assert not set(listed.stdout) & {"\x1b", "\t", "\u202e"}
    rows = [row for row in listed.stdout.splitlines() if row.startswith("\\x1b[31mred\\x0arow")]
    assert len(rows) == 1
    assert len(rows[0]) < 80
    exact = xo("list", "--json", "--url", devnet.rest_url)
    assert hostile in [game["name"] for game in json.loads(exact.stdout)]
    assert xo("delete", hostile, "--wait", "60", *flags).returncode == 0


def test_the_reference_s_status_lookup_pastes_as_printed_and_reports_the_move(devnet):
    reference = (Path(__file__).parents[2] / "docs" / "xo-command.md").read_text(encoding="utf-8")
    [script] = [block for block in reference.split("```sh\n")[1:] if 'xo status "$batch"' in block]
    script = script.split("```", 1)[0]
    flags = ["--url", devnet.rest_url, "--key-dir", devnet.key_dir]
    assert xo("create", "g1", "--username", "alice", "--wait", "60", *flags).returncode == 0
    assert xo("take", "g1", "5", "--username", "alice", "--wait", "60", *flags).returncode == 0
    environment = {**os.environ, "PATH": f"{XO.parent}{os.pathsep}{os.environ['PATH']}", "XO_URL": devnet.rest_url,
                   "XO_KEY_DIR": str(devnet.key_dir)}  # fmt: skip
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=TIMEOUT, env=environment,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    assert re.fullmatch(r"batch [0-9a-f]{128}: COMMITTED", line), line
    game = json.loads(xo("show", "g1", "--json", *flags).stdout)
    assert game["board"] == "O---X----"


def test_the_component_endpoint_given_as_the_rest_api_is_named_at_once_as_the_reference_shows(devnet):
    endpoint = devnet.component_endpoint.removeprefix("tcp://")
    started = time.monotonic()
    done = xo("list", "--url", endpoint)
    assert time.monotonic() - started < 10
    assert done.returncode == 3
    reference = (Path(__file__).parents[2] / "docs" / "xo-command.md").read_text(encoding="utf-8")
    [example] = {line for line in reference.splitlines() if line.startswith("xo: error: http://127.0.0.1:4004 is a ")}
    assert done.stderr == example.replace("127.0.0.1:4004", endpoint, 1) + "\n"


def test_sigterm_to_a_waiting_xo_reports_the_batch_and_exits_143(fake, make_player):
    alice = make_player("alice")
    fake.settle = "pending"
    waiting = subprocess.Popen(
        [str(XO), "create", "g1", "--wait", *alice.flags(fake.url)], stderr=subprocess.PIPE, text=True
    )
    try:
        first = waiting.stderr.readline()
        assert first.startswith("waiting for batch ")
        waiting.send_signal(signal.SIGTERM)
        rest = waiting.stderr.read()
        assert waiting.wait(TIMEOUT) == 143
    finally:
        waiting.kill()
    [move] = fake.submitted
    assert rest == (
        f"xo: error: terminated (SIGTERM) while waiting: batch {move.batch_id} was submitted and may still commit\n"
    )
