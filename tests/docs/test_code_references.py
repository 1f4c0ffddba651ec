"""Every module, file and name of the project that the README and docs/ cite in code is where they say.

Modules move (a family kit, a new client library); a document that still names the old
home sends its reader nowhere. A citation is a code span that starts with a project
package: a path (`xo_tp/rules.py`, `rps_tp/`) must exist, a dotted name
(`rps_tp.payload.encode_payload`) must import and have that attribute.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from tests.docs.markdown import DOCS, REPO_ROOT

PACKAGES = sorted(
    path.name for path in REPO_ROOT.iterdir() if (path / "__init__.py").is_file()
)
CITATION = re.compile(rf"^(?:{'|'.join(PACKAGES)})(?:[./][A-Za-z_]\w*)*(?:\.py|/)?$")
DOCUMENTS = [REPO_ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def citations(document: Path) -> list[str]:
    spans = re.findall(r"`([^`\n]+)`", document.read_text(encoding="utf-8"))
    return sorted({span for span in spans if CITATION.match(span)})


def resolves(citation: str) -> bool:
    if "/" in citation or citation.endswith(".py"):
        return (REPO_ROOT / citation).exists()
    parts = citation.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for name in parts[split:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_the_project_packages_are_found():
    assert {"xo_core", "tp_runtime", "client_core", "xo_tp", "rps_tp", "xo_devnet"} <= set(PACKAGES)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_every_cited_module_file_and_name_exists(document: Path) -> None:
    assert [citation for citation in citations(document) if not resolves(citation)] == []


def test_a_citation_that_moved_is_caught():
    assert resolves("xo_tp.rules") and resolves("xo_tp/rules.py") and resolves("xo_devnet.spawn.DevnetProcess")
    assert not resolves("xo_tp.no_such_module")
    assert not resolves("xo_devnet.spawn.NoSuchProcess")
    assert not resolves("xo_cli/no_such_file.py")
