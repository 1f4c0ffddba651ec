"""A problem-report's code and text in the seed's form and RFC 0035's (pure: runs on every Python)."""

from __future__ import annotations

from xo_aries.problem_fields import CATALOG, ReportedProblem, report_fields, reported_problem, with_description


def test_our_report_carries_the_code_and_text_in_both_forms():
    fields = report_fields("already-occupied", "O:B2: cell B2 is already occupied")
    assert fields["explain"] == "O:B2: cell B2 is already occupied"
    assert fields["explain.@l10n"] == {"code": "already-occupied", "locale": "en", "catalogs": [CATALOG]}
    assert fields["description"] == {"code": "already-occupied", "en": "O:B2: cell B2 is already occupied"}
    assert reported_problem(fields) == ("already-occupied", "O:B2: cell B2 is already occupied")


def test_either_form_alone_is_read():
    seed = {"explain": "You moved when it was my turn.", "explain.@l10n": {"code": "not-your-turn"}}
    assert reported_problem(seed) == ReportedProblem("not-your-turn", "You moved when it was my turn.")
    current = {"description": {"code": "bad-move", "en": "Move makes no sense."}}
    assert reported_problem(current) == ReportedProblem("bad-move", "Move makes no sense.")


def test_the_seeds_form_wins_where_the_two_disagree():
    both = {"explain.@l10n": {"code": "not-your-turn"}, "description": {"code": "bad-move", "en": "other words"}}
    assert reported_problem(both) == ReportedProblem("not-your-turn", "other words")


def test_hostile_shapes_read_as_absent():
    for report in ({}, {"explain": 7, "explain.@l10n": "code"}, {"description": ["code"]},
                   {"explain.@l10n": {"code": ""}, "description": {"code": None}}):  # fmt: skip
        assert reported_problem(report) == ReportedProblem(None, None), report


def test_a_report_in_the_seeds_form_only_gets_a_description_and_others_are_left_alone():
    seed = {"@type": "x", "explain": "It is already occupied.", "explain.@l10n": {"code": "already-occupied"}}
    described = {"code": "already-occupied", "en": "It is already occupied."}
    assert with_description(seed) == seed | {"description": described}
    assert with_description({"explain.@l10n": {"code": "bad-move"}})["description"] == {"code": "bad-move"}
    current = {"description": {"code": "bad-move", "en": "x"}, "explain.@l10n": {"code": "not-your-turn"}}
    assert with_description(current) == current
    assert with_description({"explain": "no code"}) == {"explain": "no code"}
