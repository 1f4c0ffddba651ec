"""Reading a Prometheus endpoint in tests: fetch it, parse it, look a sample up, check the names' conventions."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterable, Mapping

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

NOT_BASE_UNITS = re.compile(r"_(milliseconds|microseconds|ms|us|minutes|hours|kilobytes|megabytes|percent)(_|$)")


def scrape(url: str, timeout: float = 10.0) -> dict[str, Metric]:
    """GET ``url`` (a /metrics endpoint) and parse it: family name -> family."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    return families(text)


def families(text: str) -> dict[str, Metric]:
    return {family.name: family for family in text_string_to_metric_families(text)}


def value(families_: Mapping[str, Metric], sample: str, **labels: str) -> float:
    """The value of the sample named ``sample`` with exactly ``labels``; a missing one fails the test."""
    for family in families_.values():
        for found in family.samples:
            if found.name == sample and found.labels == labels:
                return found.value
    raise AssertionError(f"no sample {sample}{labels} in the scrape")


def convention_problems(families_: Iterable[Metric], prefix: str) -> list[str]:
    """What breaks Prometheus' naming conventions: prefix, ``_total`` on counters only, ``_seconds``
    histograms of time in base units, help text, lower snake case."""
    problems = []
    for family in families_:
        name = family.name
        exposed = f"{name}_total" if family.type == "counter" else name
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            problems.append(f"{name}: not lower snake case")
        if not name.startswith(f"{prefix}_"):
            problems.append(f"{name}: does not start with {prefix}_")
        if not family.documentation.strip():
            problems.append(f"{name}: no help text")
        if family.type == "counter" and not exposed.endswith("_total"):
            problems.append(f"{name}: a counter not ending in _total")
        if family.type != "counter" and name.endswith("_total"):
            problems.append(f"{name}: a {family.type} ending in _total")
        if NOT_BASE_UNITS.search(exposed):
            problems.append(f"{name}: not in base units")
        if family.type == "histogram" and not name.endswith(("_seconds", "_batches", "_bytes")):
            problems.append(f"{name}: a histogram not named for its unit")
        if family.type == "unknown":
            problems.append(f"{name}: no type")
    return problems
