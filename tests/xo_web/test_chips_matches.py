"""The page's side of a staked match: what the match asks the page for, and the moves the page may hand in.

No chain, no broker: :class:`xo_web.chips_matches.PageChooser` is driven as the match
loop drives it (in a thread of its own, blocking until a move comes) and as the HTTP
handler feeds it.
"""

from __future__ import annotations

import threading

import pytest

from xo_web.chips_matches import PageChooser, Stopped
from xo_web.errors import ApiError


class Asked:
    """A chooser whose questions are recorded, with a thread waiting for its answer."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.questions: list[dict | None] = []
        self.asked = threading.Event()
        self.chooser = PageChooser(self.stop, self._asking)
        self.answer: list[object] = []

    def _asking(self, wanted: dict | None) -> None:
        self.questions.append(wanted)
        if wanted is not None:
            self.asked.set()

    def ask(self, question) -> threading.Thread:
        def run() -> None:
            try:
                self.answer.append(question())
            except Stopped:
                self.answer.append("stopped")

        thread = threading.Thread(target=run)
        thread.start()
        assert self.asked.wait(5)
        return thread


def refusal(call) -> ApiError:
    with pytest.raises(ApiError) as raised:
        call()
    return raised.value


def test_a_move_before_the_match_asks_for_one_is_refused_in_words():
    chooser = Asked().chooser
    error = refusal(lambda: chooser.offer(5))
    assert (error.status, error.message) == (409, "it is not your move in this match: wait for your opponent")


def test_the_page_answers_the_question_the_match_asked_and_only_with_a_free_space():
    asked = Asked()
    thread = asked.ask(lambda: asked.chooser.xo_space("X---O----", "X"))
    assert asked.questions == [{"kind": "xo", "board": "X---O----", "mark": "X"}]
    assert refusal(lambda: asked.chooser.offer(1)).message == "space 1 is taken: choose a free one"
    assert refusal(lambda: asked.chooser.offer(10)).status == 400
    assert refusal(lambda: asked.chooser.offer(True)).status == 400
    asked.chooser.offer(9)
    thread.join(5)
    assert asked.answer == [9]
    assert asked.questions[-1] is None  # the pages are told the question is answered
    assert asked.chooser.wanted is None


def test_a_throw_must_be_one_of_the_three():
    asked = Asked()
    thread = asked.ask(asked.chooser.rps_throw)
    assert refusal(lambda: asked.chooser.offer("lizard")).message == '"throw" must be one of rock, paper, scissors'
    asked.chooser.offer("paper")
    thread.join(5)
    assert asked.answer == ["paper"]


def test_a_match_waiting_for_the_page_ends_when_the_server_stops():
    asked = Asked()
    thread = asked.ask(asked.chooser.rps_throw)
    asked.stop.set()
    thread.join(5)
    assert not thread.is_alive()
    assert asked.answer == ["stopped"]
