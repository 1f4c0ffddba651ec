"""A problem-report's code and text in both forms an agent may use: the seed's and today's Aries one.

The seed complains with the general problem-report of its time, "with ``explain.@l10n.code`` set
to one of the values defined in the Message Catalog": ``explain`` is the human text and
``explain.@l10n`` its field decorator (dotted notation, a sibling of ``explain``, as the indy
decorators and localization HIPEs of that time define it), whose ``code`` is the catalog's code.
Aries RFC 0035, which ACA-Py implements, moved both into ``description: {"code", "en"}``. We
write both, so an agent written to either understands us, and read either. Pure: no ACA-Py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

#: The seed's field for the human text, and its field decorator carrying the catalog code.
EXPLAIN: Final = "explain"
EXPLAIN_L10N: Final = "explain.@l10n"
#: Aries RFC 0035's field: ``{"code": ..., "en": ...}``.
DESCRIPTION: Final = "description"
#: Where the seed says its catalog lives (the official, immutable URL it gives).
CATALOG: Final = "https://github.com/hyperledger/indy-hipe/blob/fc7a6028/text/tictactoe-protocol/catalog.json"
#: The language of the explanations we write.
LOCALE: Final = "en"


class ReportedProblem(NamedTuple):
    """What a problem-report says: the catalog ``code`` and the human ``explanation``, each None if absent."""

    code: str | None
    explanation: str | None


def report_fields(code: str, explanation: str) -> dict[str, Any]:
    """The fields of a problem-report carrying ``code`` and ``explanation`` in both forms."""
    return {
        EXPLAIN: explanation,
        EXPLAIN_L10N: {"code": code, "locale": LOCALE, "catalogs": [CATALOG]},
        DESCRIPTION: {"code": code, LOCALE: explanation},
    }


def reported_problem(report: Mapping[str, Any]) -> ReportedProblem:
    """The code and explanation of a received report (any decoded JSON object), the seed's form first.

    The seed's form is the tictactoe protocol's own contract, so where a report carries both and
    they differ, it wins; a value that is not a non-empty string counts as absent.
    """
    l10n = report.get(EXPLAIN_L10N)
    description = report.get(DESCRIPTION)
    seed_code = _text(l10n.get("code")) if isinstance(l10n, Mapping) else None
    code = seed_code or (_text(description.get("code")) if isinstance(description, Mapping) else None)
    explanation = _text(report.get(EXPLAIN))
    if explanation is None and isinstance(description, Mapping):
        explanation = _text(description.get(LOCALE))
    return ReportedProblem(code, explanation)


def with_description(report: Mapping[str, Any]) -> dict[str, Any]:
    """``report`` with ``description`` made from the seed's form when it has no code of its own.

    A report in the seed's form only then satisfies RFC 0035 readers (ACA-Py's schema requires
    ``description.code``); any other report is returned as it is.
    """
    described = dict(report)
    description = report.get(DESCRIPTION)
    if isinstance(description, Mapping) and _text(description.get("code")):
        return described
    problem = reported_problem(report)
    if problem.code is not None:
        described[DESCRIPTION] = {"code": problem.code} | ({LOCALE: problem.explanation} if problem.explanation else {})
    return described


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
