"""The README's Quick start: two one-line commands CI can run as printed, and what the docs say of them is true.

Only these commands are read from the README; what the tests check of the prose is in docs/.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from types import ModuleType

from tests.docs.markdown import DOCS, REPO_ROOT
from tests.integration import conftest as integration

README = REPO_ROOT / "README.md"
CI_RUN = REPO_ROOT / ".ci" / "run"
MAX_README_LINES = 400


def readme_commands() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_commands", REPO_ROOT / ".ci" / "readme_commands.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def command(number: int) -> str:
    return readme_commands().quick_start_command(README.read_text(encoding="utf-8"), number)


def test_the_readme_fits_in_400_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= MAX_README_LINES


def test_command_1_starts_the_ledger_and_command_2_runs_the_suite():
    assert shlex.split(command(1))[-1] == "xo-devnet"
    assert shlex.split(command(2))[-3:] == ["pytest", "-n", "2"]


def test_as_printed_command_2_names_no_ledger_so_its_integration_suite_starts_its_own(monkeypatch):
    assert "XO_REST_URL" not in command(2)
    monkeypatch.delenv("XO_REST_URL", raising=False)
    assert integration.named_rest_url() == "", "with nothing named, the session fixture runs an xo-devnet of its own"
    development = " ".join((DOCS / "development.md").read_text(encoding="utf-8").split())
    said = "As the README prints command 2, `XO_REST_URL` is unset, and the suite starts an `xo-devnet` of its own"
    assert said in development


def test_only_ci_points_command_2_at_command_1s_ledger():
    run = CI_RUN.read_text(encoding="utf-8")
    [function] = re.findall(r"^run_tests\(\) \{\n(.*?)^\}", run, flags=re.MULTILINE | re.DOTALL)
    assert 'url=$(rest_url "$work")' in function
    assert 'XO_REST_URL="$url"' in function
    assert re.search(r'command2=\$\(python3 "\$work/xo/\.ci/readme_commands\.py" 2\)', run)
