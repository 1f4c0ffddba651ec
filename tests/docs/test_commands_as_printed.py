"""Command lines of the README and docs/ that a newcomer types work as printed: playing the computer
(README, docs/xo-command.md), issuing chips (docs/chips-operators.md); and what docs/metrics.md shows of
xo-devnet (its processors' metrics where the banner says, its /health) is what it does.

They run as a newcomer runs them after the Quick start's command 1: on that ledger (``$XO_URL`` standing for
its default address), with the keys it made (``$XO_KEY_DIR`` standing for ~/.sawtooth/keys: alice and bob),
as an operating-system user whose name is no key, so a command printed without ``--username`` would fail.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs.markdown import DOCS, REPO_ROOT
from tests.integration.devnet import running_devnet
from tests.integration.players import console_script
from tests.ports import reserved_port
from tests.scraping import scrape, value
from tests.xo_cli.devnet_play import Running

SECONDS = 60.0


def readme_span(prefix: str) -> str:
    """The README's code span that starts with ``prefix``: the one command line it prints so."""
    [span] = re.findall(rf"`({re.escape(prefix)}[^`]*)`", (REPO_ROOT / "README.md").read_text(encoding="utf-8"))
    return span


def bot_example() -> list[str]:
    """docs/xo-command.md's ``xo bot`` example: its ``$`` lines, comments dropped."""
    text = (DOCS / "xo-command.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    [block] = [block for block in blocks if "$ xo bot" in block]
    return [line[2:].split("#", 1)[0].strip() for line in block.splitlines() if line.startswith("$ ")]


@dataclass(frozen=True)
class Devnet:
    """Command 1's ledger, its xo-tp serving metrics as docs/metrics.md has it (XO_TP_METRICS, a free port)."""

    url: str
    ready: dict
    xo_tp_metrics: str
    """The URL xo-tp serves its metrics at."""


@pytest.fixture(scope="module")
def devnet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Devnet]:
    workdir = tmp_path_factory.mktemp("newcomer")
    with reserved_port() as port, running_devnet(workdir, {"XO_TP_METRICS": f"127.0.0.1:{port}"}) as url:
        metrics = f"127.0.0.1:{port}"  # held: xo-tp's metrics server is the only one to listen there
        ready = json.loads((workdir / "ready.json").read_text(encoding="utf-8"))
        yield Devnet(url, ready, f"http://{metrics}/metrics")


@pytest.fixture(scope="module")
def newcomer(devnet: Devnet) -> dict[str, str]:
    """The environment of a newcomer's shell beside command 1's ledger."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("XO_", "LOGNAME", "USER"))}
    key_dir = devnet.ready["key_dir"]
    environment.update(XO_URL=devnet.url, XO_KEY_DIR=key_dir, USER="newcomer", LOGNAME="newcomer")
    return environment


def argv(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] in ("xo", "chips"), command
    return [console_script(words[0]), *words[1:]]


def run(command: str, environment: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """One command line of the docs, the way a shell runs it (``&&`` too)."""
    result = None
    for part in command.split(" && "):
        result = subprocess.run(
            argv(part), input=stdin, env=environment, capture_output=True, text=True, timeout=SECONDS, check=False
        )
        if result.returncode:
            break
    assert result is not None
    return result


def game(name: str, environment: dict[str, str]) -> dict[str, str]:
    shown = run(f"xo show {name} --json", environment)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def test_against_the_computer_as_the_readme_prints_it(newcomer):
    command = readme_span("xo play game7 --vs ai")
    without_key = run(command.replace(" --username alice", ""), newcomer, stdin="5\n")
    assert without_key.returncode == 1 and "newcomer" in without_key.stderr, "the OS user's name is no key here"
    played = run(command, newcomer, stdin="5\n")  # one move, then the end of the input leaves the game
    assert played.returncode == 0, played.stderr
    board = game("game7", newcomer)["board"]
    assert board[4] == "X" and board.count("O") == 1, board


def test_the_bot_as_the_readme_prints_it_plays_bobs_seat(newcomer):
    bot = Running(*argv(readme_span("xo bot game8"))[1:], environment=newcomer)
    try:
        assert "playing as bob" in bot.lines(1)[0]
        assert run(readme_span("xo create game8"), newcomer).returncode == 0
        assert re.search(r"game 'game8': took \d \(..\) as X", bot.until(lambda line: "took" in line)[-1])
        assert bot.interrupt() == 128 + signal.SIGINT
    finally:
        bot.stop()


def test_the_bot_example_of_xo_command_md_runs_as_printed(newcomer):
    *setup, start_bot = bot_example()
    assert setup[0] == "xo keygen robo", "the bot's key is made before the bot starts"
    for command in setup:
        done = run(command, newcomer)
        assert done.returncode == 0, (command, done.stderr)
    assert Path(newcomer["XO_KEY_DIR"], "robo.priv").exists()
    bot = Running(*argv(start_bot)[1:], environment=newcomer)
    try:
        assert "playing as robo" in bot.lines(1)[0]
        assert re.search(r"game 'game9': took \d \(..\) as O", bot.lines(1)[0])
        assert bot.interrupt() == 128 + signal.SIGINT
    finally:
        bot.stop()


def shell_lines(document: str, command: str) -> list[str]:
    """The lines of ``document``'s code blocks that run ``command``."""
    text = (DOCS / document).read_text(encoding="utf-8")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    return [line for block in blocks for line in block.splitlines() if line.startswith(f"{command} ")]


def balance(name: str, environment: dict[str, str]) -> int:
    shown = run(f"chips balance {name} --json", environment)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["balance"]


def test_chips_operators_issue_lines_run_as_printed(newcomer):
    issues = shell_lines("chips-operators.md", "chips issue")
    assert len(issues) == 2
    before = balance("alice", newcomer)
    for command in issues:
        done = run(command, newcomer)
        assert done.returncode == 0, (command, done.stderr)
    assert balance("alice", newcomer) == before + 500
    assert balance(shlex.split(issues[1])[2], newcomer) == 500


def console_block(document: str, command: str) -> list[str]:
    """What a ``console`` block of ``document`` shows ``$ command`` print: the lines up to the next prompt."""
    text = (DOCS / document).read_text(encoding="utf-8")
    for block in re.findall(r"^```console\n(.*?)^```", text, flags=re.M | re.S):
        lines = block.splitlines()
        if f"$ {command}" in lines:
            after = lines[lines.index(f"$ {command}") + 1 :]
            return after[: next((i for i, line in enumerate(after) if line.startswith("$ ")), len(after))]
    raise AssertionError(f"no console block of {document} runs {command}")


def test_xo_devnets_processors_serve_metrics_where_the_banner_says_and_count_the_chains_work(devnet, newcomer):
    [xo_tp] = [processor for processor in devnet.ready["processors"] if processor["command"] == "xo-tp"]
    assert xo_tp["metrics"] == devnet.xo_tp_metrics
    documented = console_block("metrics.md", "XO_TP_METRICS=127.0.0.1:9401 RPS_TP_METRICS=127.0.0.1:9402 xo-devnet")
    assert any(", registered, metrics http://127.0.0.1:9401/metrics" in line for line in documented)
    ok = {"family_version": "1.0", "result": "ok"}
    before = value(scrape(devnet.xo_tp_metrics), "xo_tp_transactions_total", **ok)
    assert run("xo create metered --username alice --wait", newcomer).returncode == 0
    assert value(scrape(devnet.xo_tp_metrics), "xo_tp_transactions_total", **ok) == before + 1


def test_health_answers_as_docs_metrics_md_shows_it(devnet):
    with urllib.request.urlopen(f"{devnet.url}/health", timeout=SECONDS) as response:
        answer = response.read().decode()
    head = json.loads(answer)["data"]["head_block_num"]
    documented = "\n".join(console_block("metrics.md", "curl -s http://127.0.0.1:8008/health"))
    assert answer == re.sub(r'"head_block_num": \d+', f'"head_block_num": {head}', documented)


def test_a_new_chain_says_which_keys_hold_chips_as_the_banner_of_docs_devnet_md_does(devnet):
    assert devnet.ready["chips"] == {
        "alice": {"balance": 1000, "issuer": False},
        "bob": {"balance": 1000, "issuer": False},
        "chips-issuer": {"balance": None, "issuer": True},
    }
