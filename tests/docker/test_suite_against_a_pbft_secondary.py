"""The integration suite with the settings each test override gives it, where rejections are reported and where
they are not: an xo-devnet's own REST API reports every rejection, as a PBFT primary's does; in front of it,
non_primary.py answers as any other PBFT node's REST API does, keeping an invalid batch PENDING.

With the PBFT override's settings the suite passes through both. With the single node's strict settings it
fails where rejections stay pending, so the strict default does catch a REST API that hides them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.docker.compose_files import PBFT, REPO_ROOT, SINGLE_NODE, TEST_OVERRIDES, TEST_SERVICE, services
from tests.docker.non_primary import non_primary_rest_api
from tests.integration.devnet import running_devnet
from tests.integration.players import Rejections
from tests.together import SideBySide, selected, side_by_side_here

ILLEGAL_MOVES = "tests/integration/test_illegal_moves.py"
ILLEGAL_MOVE_TESTS = 5


@pytest.fixture(scope="module")
def rest_apis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The URL of a REST API that reports rejections ("primary") and of one that does not ("secondary")."""
    with running_devnet(tmp_path_factory.mktemp("devnet")) as devnet, non_primary_rest_api(devnet) as secondary:
        yield {"primary": devnet, "secondary": secondary}


def run_suite(url: str, network: str, *pytest_args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    """pytest in a process of its own, with the environment the network's test override gives the suite."""
    environment = {name: value for name, value in os.environ.items() if not name.startswith(("XO_", "PYTEST_"))}
    environment.update(services(TEST_OVERRIDES[network])[TEST_SERVICE]["environment"])
    # Moves on an xo-devnet commit in well under a second: a short wait keeps a failing run short too.
    environment.update(XO_REST_URL=url, XO_REST_READY_SECONDS="30", XO_WAIT_SECONDS="10")
    environment.update(settings)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *pytest_args],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def suite_run(rest_apis: dict[str, str], run: str) -> subprocess.CompletedProcess[str]:
    """One of the module's runs of the suite: with the PBFT settings through a node, or the strict default."""
    if run == "strict":
        return run_suite(rest_apis["secondary"], SINGLE_NODE, ILLEGAL_MOVES, "-x", XO_WAIT_SECONDS="2")
    return run_suite(rest_apis[run], PBFT, ILLEGAL_MOVES, XO_UNREPORTED_WAIT_SECONDS="1")


@pytest.fixture(scope="module")
def suite_runs(request: pytest.FixtureRequest, rest_apis: dict[str, str]) -> Iterator[SideBySide]:
    """The selected tests' runs, two at a time, the longest first (see tests/together.py): each is mostly waiting
    for moves to commit, or for a rejection that never comes to stay pending."""
    runs: list[object] = []
    if side_by_side_here(request.config, request.node.nodeid):
        runs = sorted(selected(request, test_the_pbft_settings_hold_through_any_node, "node"), reverse=True)
        if any(getattr(item, "function", None) is test_the_strict_default_fails_where_rejections_stay_pending
               for item in request.session.items):  # fmt: skip
            runs.append("strict")
    together = SideBySide(lambda run: suite_run(rest_apis, run), runs, at_once=2)
    yield together
    together.close()


@pytest.mark.parametrize("node", ["primary", "secondary"])
def test_the_pbft_settings_hold_through_any_node(suite_runs: SideBySide, node: str) -> None:
    done = suite_runs.result(node)

    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{ILLEGAL_MOVE_TESTS} passed" in done.stdout


def test_the_strict_default_fails_where_rejections_stay_pending(suite_runs: SideBySide) -> None:
    done = suite_runs.result("strict")

    assert done.returncode == 1, done.stdout + done.stderr
    assert "expected the validator to reject the move" in done.stdout
    assert "is still PENDING" in done.stdout


def test_an_unknown_rejections_setting_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XO_REJECTIONS_REPORTED", "sometimes")

    with pytest.raises(ValueError, match="'always', 'primary-only'"):
        Rejections.from_environment()
