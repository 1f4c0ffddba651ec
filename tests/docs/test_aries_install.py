"""docs/aries.md's install line works from a clone: xo is not on PyPI, so no document names a package there.

The line the docs print and the one `xo aries agent` prints under Python 3.11 are one and the same, and the
extra it installs brings ACA-Py where ACA-Py runs (Python 3.12+). Running it takes a minute of downloads, and
CI's Aries venv installs the same extra (docs/development.md); here, what the line is made of is checked.
"""

from __future__ import annotations

import re
import shlex

from tests.docs.markdown import DOCS, REPO_ROOT
from xo_cli.aries_agent import ARIES_INSTALL, ARIES_VENV

ARIES = DOCS / "aries.md"


def fenced_lines(text: str) -> list[str]:
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines()]


def test_the_docs_install_line_is_the_one_the_refusal_prints():
    lines = fenced_lines(ARIES.read_text(encoding="utf-8"))
    assert f"{ARIES_VENV} && . .venv-aries/bin/activate && {ARIES_INSTALL}" in lines


def test_the_install_line_is_an_editable_install_of_the_clone_with_the_aries_extra():
    assert shlex.split(ARIES_INSTALL) == ["pip", "install", "-e", ".[aries]"]
    assert shlex.split(ARIES_VENV)[0] == "python3.12"
    setup = (REPO_ROOT / "setup.py").read_text(encoding="utf-8")
    assert re.search(r"\"aries\": \[\"acapy-agent[^\"]*; python_version >= '3.12'\"\]", setup)


def test_no_document_installs_xo_from_pypi():
    for document in [REPO_ROOT / "README.md", *DOCS.glob("*.md")]:
        assert "pip install 'xo-sawtooth" not in document.read_text(encoding="utf-8"), document.name


def test_the_docs_say_how_to_get_python_3_12():
    text = " ".join(ARIES.read_text(encoding="utf-8").split())
    assert "`pyenv install 3.12`" in text and "`PYENV_VERSION=3.12 python -m venv .venv-aries`" in text
