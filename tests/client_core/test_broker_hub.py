"""A hub routes each message to the one receiver of its topic, and tells every receiver of a reconnection."""

from __future__ import annotations

from concurrent.futures import Future

from client_core.broker_hub import BrokerHub


class FakeSession:
    def __init__(self, on_message, on_reconnect) -> None:
        self.on_message, self.on_reconnect = on_message, on_reconnect
        self.connects, self.subscribed, self.published, self.closed = 0, [], [], False

    def connect(self, timeout: float) -> None:
        self.connects += 1

    def subscribe(self, topic: str, timeout: float) -> None:
        self.subscribed.append(topic)

    def publish(self, topic: str, payload: bytes, timeout: float) -> None:
        self.published.append((topic, payload))

    def close(self) -> None:
        self.closed = True


def test_many_users_share_one_connection_and_each_hears_only_its_topics() -> None:
    hub = BrokerHub(FakeSession)
    heard: dict[str, list[bytes]] = {"a": [], "b": []}
    users = {name: hub.session_for(lambda _t, p, name=name: heard[name].append(p)) for name in heard}
    for name, user in users.items():
        user.connect(5)
        user.subscribe(f"xo/chips/{name}", 5)
    session: FakeSession = hub.session  # type: ignore[assignment]
    assert session.connects == 1
    assert session.subscribed == ["xo/chips/a", "xo/chips/b"]
    session.on_message("xo/chips/b", b"to b")
    session.on_message("xo/chips/a", b"to a")
    session.on_message("xo/chips/nobody", b"dropped")
    assert heard == {"a": [b"to a"], "b": [b"to b"]}
    users["a"].publish("xo/chips/b", b"move", 5)
    assert session.published == [("xo/chips/b", b"move")]


def test_a_receivers_future_reaches_the_session_so_it_acknowledges_after_the_write() -> None:
    hub = BrokerHub(FakeSession)
    handled: Future[None] = Future()
    user = hub.session_for(lambda _t, _p: handled)
    user.subscribe("t", 5)
    assert hub.session.on_message("t", b"x") is handled  # type: ignore[attr-defined]
    assert hub.session.on_message("other", b"x") is None  # type: ignore[attr-defined]


def test_a_closed_user_hears_nothing_more_and_the_others_go_on() -> None:
    hub = BrokerHub(FakeSession)
    heard: list[bytes] = []
    gone = hub.session_for(lambda _t, p: heard.append(b"gone " + p))
    stays = hub.session_for(lambda _t, p: heard.append(b"stays " + p))
    gone.subscribe("g", 5)
    stays.subscribe("s", 5)
    gone.close()
    hub.session.on_message("g", b"1")  # type: ignore[attr-defined]
    hub.session.on_message("s", b"2")  # type: ignore[attr-defined]
    assert heard == [b"stays 2"]
    assert not hub.session.closed  # type: ignore[attr-defined]
    hub.close()
    assert hub.session.closed  # type: ignore[attr-defined]


def test_every_open_user_is_told_the_session_came_back() -> None:
    hub = BrokerHub(FakeSession)
    told: list[str] = []
    hub.session_for(lambda _t, _p: None, lambda: told.append("first"))
    closed = hub.session_for(lambda _t, _p: None, lambda: told.append("closed"))
    hub.session_for(lambda _t, _p: None, lambda: told.append("third"))
    closed.close()
    hub.session.on_reconnect()  # type: ignore[attr-defined]
    assert told == ["first", "third"]
