"""The REST client on its own: base URLs, path prefixes, paging, statuses, kept-alive connections."""

import socket

import pytest

from client_core.errors import Unavailable
from client_core.rest import RestClient, normalize_url
from tests.fake_sawtooth import HEAD
from xo_tp.family import NAMESPACE, game_address


@pytest.mark.parametrize(
    ("given", "normal"),
    [
        ("http://127.0.0.1:8008", "http://127.0.0.1:8008"),
        ("http://127.0.0.1:8008/", "http://127.0.0.1:8008"),
        ("127.0.0.1:8008", "http://127.0.0.1:8008"),
        ("localhost", "http://localhost"),
        ("https://ledger.example.org/sawtooth/", "https://ledger.example.org/sawtooth"),
        ("HTTP://Host:1", "http://host:1"),
        ("http://[::1]:8008", "http://[::1]:8008"),
    ],
)
def test_base_urls_are_normalised_like_the_reference_client_does(given, normal):
    assert normalize_url(given) == normal


@pytest.mark.parametrize(
    "given", ["ftp://host", "http://", "http://host:99999", "http://host:port", "http://h/?q=1", "http://u:p@h"]
)
def test_what_cannot_be_a_base_url_is_refused(given):
    with pytest.raises(ValueError, match=r"URL|port"):
        normalize_url(given)


def test_a_path_prefix_in_the_base_url_is_kept_on_every_request_and_page(fake):
    fake.prefix = "/sawtooth"
    for index in range(5):
        fake.put_game(f"g{index}")
    fake.page_size = 2
    with RestClient(fake.url + "/sawtooth") as client:
        assert len(list(client.list_state(NAMESPACE))) == 5
        assert client.get_state(game_address("g0")).startswith(b"g0,")
    assert all(path.startswith("/sawtooth/state") for _, path in fake.requests)


def test_next_links_without_the_proxys_prefix_are_followed_under_the_prefix(fake):
    """A proxy serves the REST API under /sawtooth, but the REST API writes its links as if at the root."""
    fake.prefix = "/sawtooth"
    fake.links_lack_prefix = True
    for index in range(5):
        fake.put_game(f"g{index}")
    fake.page_size = 2
    with RestClient(fake.url + "/sawtooth") as client:
        assert [address for address, _ in client.list_state(NAMESPACE)] == sorted(fake.state)
    pages = fake.gets("/sawtooth/state?")
    assert len(pages) == 3
    assert "start=" in pages[-1]


def test_missing_state_is_none_not_an_error(fake):
    with RestClient(fake.url) as client:
        assert client.get_state(game_address("nothing here")) is None
        assert client.state_at_head(game_address("nothing here")) == (None, None)


def test_a_state_read_names_the_block_it_was_read_at(fake):
    fake.state[game_address("g1")] = b"g1,---------,P1-NEXT,,"
    with RestClient(fake.url) as client:
        assert client.state_at_head(game_address("g1")) == (b"g1,---------,P1-NEXT,,", HEAD)


def test_an_unknown_batch_is_reported_as_unknown(fake):
    with RestClient(fake.url) as client:
        assert client.batch_status("f" * 128).status == "UNKNOWN"


def test_a_server_closing_kept_alive_connections_is_retried_transparently(fake):
    fake.drop_connections = True
    for index in range(6):
        fake.put_game(f"g{index}")
    fake.page_size = 2
    with RestClient(fake.url) as client:
        assert [address for address, _ in client.list_state(NAMESPACE)] == sorted(fake.state)
        assert client.get_state(game_address("g1")).startswith(b"g1,")


def test_one_connection_serves_many_requests(fake):
    fake.put_game("g1")
    with RestClient(fake.url) as client:
        for _ in range(6):
            client.get_state(game_address("g1"))
    assert len(fake.client_ports) == 6
    assert len(set(fake.client_ports)) == 1


def test_a_server_that_never_answers_times_out():
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        with RestClient(f"http://127.0.0.1:{port}", timeout=0.3) as client, pytest.raises(Unavailable) as error:
            client.get_state(game_address("g1"))
    assert "no answer from the REST API" in error.value.message
    assert "0.3 s" in error.value.message
