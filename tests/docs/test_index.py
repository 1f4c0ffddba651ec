"""docs/README.md indexes every document in docs/, and every link in the README and the docs resolves."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.markdown import DOCS, REPO_ROOT, broken_links, links

INDEX = DOCS / "README.md"
DOCUMENTS = sorted(path for path in DOCS.glob("*.md") if path != INDEX)


def indexed() -> set[str]:
    return {target.partition("#")[0] for target in links(INDEX.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_document_is_in_the_index(document: Path) -> None:
    assert document.name in indexed(), f"docs/README.md does not list {document.name}"


def test_every_index_entry_is_a_document_with_one_line() -> None:
    lines = [line for line in INDEX.read_text(encoding="utf-8").splitlines() if line.startswith("- ")]
    targets = [links(line)[0] for line in lines]
    assert sorted(set(targets)) == sorted(targets), "a document is listed twice"
    assert len(lines) == len(DOCUMENTS)
    for line in lines:
        target = links(line)[0]
        assert (DOCS / target).is_file(), line
        assert line.startswith(f"- [{target}]({target}): "), line


@pytest.mark.parametrize(
    "document", [REPO_ROOT / "README.md", INDEX, *DOCUMENTS], ids=lambda path: str(path.relative_to(REPO_ROOT))
)
def test_every_link_resolves(document: Path) -> None:
    assert broken_links(document) == []
