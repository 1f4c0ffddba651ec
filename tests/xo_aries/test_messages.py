"""Our problem-report through ACA-Py's message machinery: both forms survive, the seed's alone is accepted."""

from __future__ import annotations

import pytest

pytest.importorskip("acapy_agent", reason="ACA-Py is not installed: pip install -e '.[aries]' (Python 3.12+)")

from acapy_agent.messaging.models.base import BaseModelError
from acapy_agent.protocols.problem_report.v1_0.message import ProblemReport as AcapyProblemReport

from xo_aries.messages import PROBLEM_REPORT_TYPES, Outcome, ProblemReport, problem_report
from xo_aries.player import NO_WINNER_FIELD
from xo_client.aries import DIDCOMM_PROTOCOL, PROTOCOL

SEED_TYPE = "did:sov:BzCbsNYhMrjHiqZDTUASHg;spec/notification/1.0/problem-report"
DIDCOMM_TYPE = "https://didcomm.org/notification/1.0/problem-report"


def test_a_report_serializes_with_both_forms_in_the_games_spelling():
    report = problem_report(PROTOCOL, "not-your-turn", "X:C3: it is O's turn").serialize()
    assert report["@type"] == SEED_TYPE
    assert report["explain"] == "X:C3: it is O's turn"
    assert report["explain.@l10n"]["code"] == report["description"]["code"] == "not-your-turn"
    assert problem_report(DIDCOMM_PROTOCOL, "bad-move", "x")._type == DIDCOMM_TYPE
    assert ProblemReport.deserialize(report).serialize() == report, "a round trip keeps every field"


def test_acapys_own_class_would_drop_the_seeds_form_which_is_why_ours_replaces_it():
    report = problem_report(PROTOCOL, "bad-move", "x").serialize()
    assert "explain.@l10n" not in AcapyProblemReport.deserialize(report).serialize()
    assert set(PROBLEM_REPORT_TYPES) == {SEED_TYPE, DIDCOMM_TYPE}


def test_a_report_in_the_seeds_form_only_is_accepted_and_described():
    seed = {"@type": SEED_TYPE, "@id": "a1b2c3d4e5", "~thread": {"thid": "game-thread-1"},
            "explain": "You moved when it was my turn.", "explain.@l10n": {"code": "not-your-turn"}}  # fmt: skip
    with pytest.raises(BaseModelError):
        AcapyProblemReport.deserialize(seed)
    received = ProblemReport.deserialize(seed)
    assert received.description == {"code": "not-your-turn", "en": "You moved when it was my turn."}
    assert (received.explain, received._thread_id) == ("You moved when it was my turn.", "game-thread-1")


def test_a_report_with_no_code_in_either_form_is_still_refused():
    with pytest.raises(BaseModelError):
        ProblemReport.deserialize({"@type": SEED_TYPE, "explain": "something went wrong"})


def test_an_outcome_without_winner_is_told_apart_from_one_with_a_null_winner():
    outcome = f"{PROTOCOL}/outcome"
    assert Outcome.deserialize({"@type": outcome, "@id": "o1", "winner": None}).winner is None
    assert Outcome.deserialize({"@type": outcome, "@id": "o2"}).winner == NO_WINNER_FIELD
    assert Outcome(_type=outcome, winner=None).serialize()["winner"] is None, "null is sent, not left out"
