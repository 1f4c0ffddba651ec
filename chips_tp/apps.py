"""The apps a channel can run, by name: each one's app-data codec, first state and transition rule."""

from collections.abc import Callable
from typing import Final, NamedTuple

from chips_tp import rps_app, xo_app
from chips_tp.channel import RPS, XO, Fixed
from chips_tp.channel_state import State


class App(NamedTuple):
    """One app: how its data is read and written, where a channel starts, and which moves it allows."""

    name: str
    decode: Callable[[object], NamedTuple]
    encode: Callable[[NamedTuple], dict[str, object]]
    initial: NamedTuple
    transition_problem: Callable[[State, State, Fixed], str | None]


APPS: Final = {
    XO: App(XO, xo_app.decode, xo_app.encode, xo_app.INITIAL, xo_app.transition_problem),  # type: ignore[arg-type]
    RPS: App(RPS, rps_app.decode, rps_app.encode, rps_app.INITIAL, rps_app.transition_problem),  # type: ignore[arg-type]
}
