"""The page's side of a staked match: what the match asks the page for, and the moves the page may hand in.

No chain, no broker: :class:`xo_web.chips_matches.PageChooser` is driven as the match
loop drives it (asked, then polled on every pass, never waited on) and as the HTTP
handler feeds it.
"""

from __future__ import annotations

import threading

import pytest

from chips_client.asking import Question
from xo_web.chips_matches import PageChooser, Stopped
from xo_web.errors import ApiError

XO = Question(3, "xo", "X---O----", "X")


class Asked:
    """A chooser whose tellings to the pages are recorded."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.told: list[str | None] = []
        self.chooser = PageChooser(self.stop, self.told.append)


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
    asked.chooser.ask(XO)
    assert asked.chooser.wanted == {"kind": "xo", "turn": 3, "deadline": None, "computer_at": None,
                                    "board": "X---O----", "mark": "X"}  # fmt: skip
    assert asked.told == [None] and asked.chooser.answer() is None  # the match goes on meanwhile
    assert refusal(lambda: asked.chooser.offer(1)).message == "space 1 is taken: choose a free one"
    assert refusal(lambda: asked.chooser.offer(10)).status == 400
    assert refusal(lambda: asked.chooser.offer(True)).status == 400
    asked.chooser.offer(9)
    assert asked.chooser.answer() == 9
    assert asked.chooser.wanted is None and asked.told == [None, None]  # the pages are told it is answered


def test_a_throw_must_be_one_of_the_three():
    asked = Asked()
    asked.chooser.ask(Question(1, "rps"))
    assert refusal(lambda: asked.chooser.offer("lizard")).message == '"throw" must be one of rock, paper, scissors'
    asked.chooser.offer("paper")
    assert asked.chooser.answer() == "paper"


def test_a_challenge_waiting_on_the_move_reaches_the_page_and_a_withdrawn_question_says_why():
    asked = Asked()
    asked.chooser.ask(XO._replace(deadline=2_000_000_060, computer_at=2_000_000_030.0))
    assert asked.chooser.wanted["deadline"] == 2_000_000_060 and asked.chooser.wanted["computer_at"] == 2_000_000_030
    asked.chooser.withdraw("the computer played this move for you")
    assert asked.chooser.wanted is None and asked.told[-1] == "no longer asked: the computer played this move for you"
    assert refusal(lambda: asked.chooser.offer(9)).status == 409


def test_a_match_asking_the_page_ends_when_the_server_stops():
    asked = Asked()
    asked.chooser.ask(Question(1, "rps"))
    asked.stop.set()
    with pytest.raises(Stopped):
        asked.chooser.answer()
