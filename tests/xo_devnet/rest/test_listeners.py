"""The REST API's sockets, bound before the server exists: a port in use fails at once, and nothing is left open."""

import socket

import pytest

from xo_devnet.rest.listeners import bind_listeners


def test_a_free_port_is_bound_listening_and_non_blocking():
    [listener] = bind_listeners("127.0.0.1", 0)
    try:
        host, port = listener.getsockname()
        assert host == "127.0.0.1" and port > 0
        assert listener.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR)
        assert not listener.getblocking()
        with socket.create_connection((host, port), timeout=5):
            pass
    finally:
        listener.close()


def test_a_port_in_use_is_an_os_error_at_once():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match="in use"):
            bind_listeners("127.0.0.1", port)
