"""``xo web`` as a player runs it: where it may listen, what it prints, --open, Ctrl-C; errors in one line."""

from __future__ import annotations

import http.client
import signal
import socket
import stat
import time

import pytest

from tests.xo_cli.devnet_play import Running
from xo_cli.main import main
from xo_devnet.spawn import DevnetProcess


@pytest.fixture(scope="module")
def devnet(tmp_path_factory):
    with DevnetProcess(log_path=tmp_path_factory.mktemp("devnet") / "devnet.log") as running:
        yield running


@pytest.fixture
def serving(devnet):
    started: list[Running] = []

    def start(*argv: str) -> Running:
        flags = ["--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--port", "0"]
        started.append(Running("web", *flags, *argv))
        return started[-1]

    yield start
    for running in started:
        running.stop()


def page_status(address: str) -> int:
    host_port = address.removeprefix("http://").rstrip("/")
    connection = http.client.HTTPConnection(*host_port.rsplit(":", 1), timeout=10)
    try:
        connection.request("GET", "/")
        return connection.getresponse().status
    finally:
        connection.close()


def test_it_prints_where_the_page_is_serves_it_and_stops_cleanly_on_ctrl_c(serving, devnet):
    web = serving("--username", "bob")
    first, rest_api, keys, hint = web.lines(4)
    assert first.startswith("xo web is serving http://127.0.0.1:") and first.endswith("/")
    assert rest_api == f"  REST API  {devnet.rest_url}"
    assert keys == f"  keys      {devnet.key_dir} (alice, bob, chips-issuer)"
    assert hint == "Open the address in a web browser. Stop with Ctrl-C."
    address = first.removeprefix("xo web is serving ")
    assert page_status(address) == 200
    assert web.interrupt(signal.SIGINT) == 0
    assert web.rest() == ["xo web stopped"]
    assert web.rest("stderr") == []


def test_sigterm_stops_it_cleanly_too(serving):
    web = serving()
    web.lines(4)
    assert web.interrupt(signal.SIGTERM) == 0


def test_a_non_loopback_address_is_refused_without_allow_remote(capsys):
    assert main(["web", "--bind", "0.0.0.0", "--url", "http://127.0.0.1:1"]) == 2
    assert capsys.readouterr().err == (
        "xo: error: --bind 0.0.0.0 is not a loopback address: other machines could reach this server, load its "
        "page and play as any of your keys; to allow that on purpose, add --allow-remote\n"
    )


@pytest.mark.parametrize("address", ["example.com", "999.1.1.1", ""])
def test_bind_takes_an_ip_address(capsys, address):
    assert main(["web", "--bind", address, "--url", "http://127.0.0.1:1"]) == 2
    assert "give an IP address, such as 127.0.0.1, or localhost" in capsys.readouterr().err


def test_with_allow_remote_it_warns_and_serves_on_every_interface(serving):
    web = serving("--bind", "0.0.0.0", "--allow-remote")
    [warning] = web.lines(1, "stderr")
    assert warning.startswith("xo: warning: serving on 0.0.0.0, which other machines may reach: anyone who can open")
    assert warning.endswith("can play as any of your keys")
    first = web.lines(1)[0]
    assert page_status(first.removeprefix("xo web is serving ")) == 200


def test_open_hands_the_address_to_the_browser(serving, tmp_path, monkeypatch):
    record = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {record}.part && mv {record}.part {record}\n')
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("BROWSER", str(browser))  # Python's webbrowser runs $BROWSER with the address
    web = serving("--open")
    first, *_, hint = web.lines(4)
    assert hint == "Open the address in a web browser (opening it now). Stop with Ctrl-C."
    deadline = time.monotonic() + 10
    while not record.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert record.read_text().strip() == first.removeprefix("xo web is serving ")


def test_an_unreachable_rest_api_is_one_line_and_exit_3_before_serving(capsys, closed_port):
    assert main(["web", "--url", f"http://127.0.0.1:{closed_port}", "--port", "0"]) == 3
    assert capsys.readouterr().err == (
        f"xo: error: cannot reach the REST API at http://127.0.0.1:{closed_port}: Connection refused\n"
    )


def test_a_port_in_use_is_one_line_and_exit_1(devnet, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["web", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--port", str(port)])
    assert code == 1
    assert capsys.readouterr().err == (
        f"xo: error: cannot listen on http://127.0.0.1:{port}/: Address already in use; choose another --port\n"
    )
