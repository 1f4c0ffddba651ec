"""``xo aries agent|connect|play``: the ACA-Py command line, its checks, and the one-line refusals."""

from __future__ import annotations

import base64
import json
import socket
import sys

import pytest

from tests.ports import reserved_port
from xo_cli import aries_agent
from xo_cli.arguments import parse
from xo_cli.aries_agent import AgentFlags, acapy_command, acapy_environment, wallet_key
from xo_cli.aries_connect import decode_invitation


def agent_args(*extra: str) -> AgentFlags:
    line = ["aries", "agent", "--label", "alice", "--inbound", "127.0.0.1:8020", "--admin", "127.0.0.1:8021", *extra]
    return AgentFlags.of(parse(line))


def test_acapy_runs_under_this_python_with_the_plugin_no_ledger_and_auto_accepting():
    command = acapy_command(agent_args("--auto-play", "perfect"))
    assert command[:4] == [sys.executable, "-m", "acapy_agent", "start"]
    text = " ".join(command)
    for expected in (
        "--inbound-transport http 127.0.0.1 8020",
        "--endpoint http://127.0.0.1:8020",
        "--admin 127.0.0.1 8021",
        "--wallet-type askar",
        "--no-ledger",
        "--auto-accept-invites --auto-accept-requests",
        "--plugin xo_aries",
        "--admin-insecure-mode",
        '-o xo_aries.auto_play="perfect"',
    ):
        assert expected in text
    hooked = acapy_command(agent_args("--webhook-url", "http://127.0.0.1:9/a", "--webhook-url", "http://127.0.0.1:9/b"))
    assert " --webhook-url http://127.0.0.1:9/a --webhook-url http://127.0.0.1:9/b" in " ".join(hooked)
    assert "--admin-insecure-mode" not in acapy_command(agent_args("--admin-api-key", "s3cret"))


def test_the_wallet_key_and_the_admin_api_key_reach_acapy_by_its_environment_never_its_command_line(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("ACAPY_ADMIN_API_KEY", "inherited")
    keyed = agent_args("--admin-api-key", "s3cret")
    assert not {"s3cret", "k" * 64} & set(acapy_command(keyed))
    environment = acapy_environment(keyed, "k" * 64, tmp_path)
    assert (environment["ACAPY_WALLET_KEY"], environment["ACAPY_ADMIN_API_KEY"]) == ("k" * 64, "s3cret")
    assert environment["ACAPY_HOME"] == str(tmp_path)
    assert "ACAPY_ADMIN_API_KEY" not in acapy_environment(agent_args(), "k" * 64, tmp_path)


def test_the_wallet_key_is_made_once_and_kept_private(tmp_path):
    key = wallet_key(tmp_path / "alice")
    assert len(key) == 64 and wallet_key(tmp_path / "alice") == key
    assert (tmp_path / "alice" / "wallet.key").stat().st_mode & 0o777 == 0o600


def test_the_admin_api_stays_on_loopback_and_anchoring_needs_a_username(run):
    code, _, err = run("aries", "agent", "--label", "a", "--inbound", "127.0.0.1:1", "--admin", "10.0.0.1:2")
    assert code == 1 and "loopback" in err
    code, _, err = run("aries", "agent", "--label", "a/b", "--inbound", "127.0.0.1:1", "--admin", "127.0.0.1:2")
    assert code == 1 and "--label" in err
    code, _, err = run(
        "aries",
        "agent",
        "--label",
        "a",
        "--inbound",
        "127.0.0.1:1",
        "--admin",
        "127.0.0.1:2",
        "--anchor-url",
        "http://x",
    )
    assert code == 1 and "--username" in err


def test_without_acapy_the_agent_command_says_so_in_one_line_and_exits_3(run, monkeypatch):
    monkeypatch.setattr(aries_agent, "acapy_available", lambda: False)
    code, out, err = run("aries", "agent", "--label", "alice", "--inbound", "127.0.0.1:1", "--admin", "127.0.0.1:2")
    assert (code, out) == (3, "")
    assert err.count("\n") == 1 and "needs ACA-Py" in err and "3.12" in err
    # what works from a clone (xo is not on PyPI): a venv of Python 3.12+ and the editable install with the extra
    assert "python3.12 -m venv .venv-aries" in err and "pip install -e '.[aries]'" in err
    assert "xo-sawtooth[" not in err and "docs/aries.md" in err


def test_a_port_already_listened_on_is_refused_before_acapy_starts(run, monkeypatch):
    monkeypatch.setattr(aries_agent, "acapy_available", lambda: True)
    monkeypatch.setattr(aries_agent.subprocess, "Popen", None)  # never reached
    with socket.socket() as busy, reserved_port() as free:  # free to ACA-Py's server, and given to nobody else
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        for inbound, admin, flag in ((taken, free, "--inbound"), (free, taken, "--admin")):
            address = ("--inbound", f"127.0.0.1:{inbound}", "--admin", f"127.0.0.1:{admin}")
            code, out, err = run("aries", "agent", "--label", "alice", *address)
            assert (code, out) == (1, "")
            assert err.count("\n") == 1 and f"{flag} 127.0.0.1:{taken}" in err and "already in use" in err


def test_connect_reads_the_invitation_from_the_url_and_refuses_anything_else(run, closed_port):
    invitation = {"@type": "https://didcomm.org/out-of-band/1.1/invitation", "@id": "i1"}
    encoded = base64.urlsafe_b64encode(json.dumps(invitation).encode()).decode().rstrip("=")
    assert decode_invitation(f"http://127.0.0.1:8020?oob={encoded}") == invitation
    code, _, err = run("aries", "connect", "http://127.0.0.1:8020", "--admin", "http://127.0.0.1:1")
    assert code == 1 and "oob" in err
    code, _, err = run("aries", "connect", "http://h?oob=%%%", "--admin", "http://127.0.0.1:1")
    assert code == 1 and "base64" in err
    code, _, err = run("aries", "connect", f"http://h?oob={encoded}", "--admin", f"http://127.0.0.1:{closed_port}")
    assert code == 3 and "unreachable" in err


@pytest.mark.skipif(aries_agent.acapy_available(), reason="ACA-Py is installed here: the agent can start")
def test_under_a_python_without_acapy_the_real_check_refuses(run):
    code, _, err = run("aries", "agent", "--label", "alice", "--inbound", "127.0.0.1:1", "--admin", "127.0.0.1:2")
    assert code == 3 and "needs ACA-Py" in err


@pytest.mark.parametrize(("key", "warned"), [((), True), (("--admin-api-key", "s3cret"), False)])
def test_an_admin_api_without_a_key_is_warned_about_loudly_before_acapy_starts(run, monkeypatch, tmp_path, key, warned):
    started = []

    def popen(command, env, **_):
        started.append((command, env))
        raise aries_agent.Unavailable("stopped before ACA-Py ran")

    monkeypatch.setattr(aries_agent, "acapy_available", lambda: True)
    monkeypatch.setattr(aries_agent.subprocess, "Popen", popen)
    with reserved_port() as inbound, reserved_port() as admin:  # free to ACA-Py's server, and given to nobody else
        address = ("--inbound", f"127.0.0.1:{inbound}", "--admin", f"127.0.0.1:{admin}")
        code, out, err = run("aries", "agent", "--label", "alice", *address, "--data-dir", tmp_path, *key)
    assert (code, out) == (3, "") and "stopped before ACA-Py ran" in err
    assert ("NO API KEY" in err) is warned
    [(command, env)] = started
    assert env["ACAPY_WALLET_KEY"] == (tmp_path / "wallet.key").read_text().strip()
    assert env["ACAPY_WALLET_KEY"] not in command


def test_the_admin_api_key_comes_from_the_environment_so_the_process_list_never_shows_it(monkeypatch):
    monkeypatch.setenv("XO_ARIES_ADMIN_API_KEY", "from-the-environment")
    assert agent_args().admin_api_key == "from-the-environment"
    assert agent_args("--admin-api-key", "given").admin_api_key == "given"
    for command in (["connect", "http://127.0.0.1:1/?oob=e30"], ["play", "--connection", "c1"]):
        args = parse(["aries", *command, "--admin", "http://127.0.0.1:8021"])
        assert args.admin_api_key == "from-the-environment"
    monkeypatch.delenv("XO_ARIES_ADMIN_API_KEY")
    assert agent_args().admin_api_key is None
