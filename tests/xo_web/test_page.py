"""The page's files as shipped: no markup built from data, nothing inline, every import there, all packaged.

The Content-Security-Policy forbids inline scripts and eval, and player-supplied
text must only ever be set as text; these checks read the files themselves, so a
slip fails here before any browser runs.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest

from xo_web.page import INDEX, TOKEN_PLACEHOLDER, load_static

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "xo_web" / "static"
SCRIPTS = sorted((STATIC / "js").glob("*.js"))
# Ways to turn a string into markup or code: none may appear in the page's scripts.
FORBIDDEN = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setTimeout(\"")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_no_script_turns_text_into_markup_or_code(script):
    text = script.read_text(encoding="utf-8")
    for forbidden in FORBIDDEN:
        assert forbidden not in text, f"{script.name} uses {forbidden}"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_every_import_is_a_file_of_the_page(script):
    for target in re.findall(r'^import .* from "(\./[^"]+)";$', script.read_text(encoding="utf-8"), re.MULTILINE):
        assert (script.parent / target).is_file(), f"{script.name} imports {target}"


def test_the_page_has_no_inline_script_style_or_handler_and_loads_only_its_own_files():
    page = (STATIC / INDEX).read_text(encoding="utf-8")
    assert TOKEN_PLACEHOLDER in page
    assert re.findall(r"<script\b[^>]*>", page) == ['<script type="module" src="/static/js/main.js">']
    assert "<style" not in page and " style=" not in page
    assert not re.search(r"\son[a-z]+=", page)
    for link in re.findall(r'(?:src|href)="([^"#]+)"', page):
        assert link.startswith("/static/") and (STATIC / link.removeprefix("/static/")).is_file(), link


def test_every_file_of_the_page_is_package_data_and_served():
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    calls = (node for node in ast.walk(tree) if isinstance(node, ast.Call))
    call = next(node for node in calls if getattr(node.func, "id", "") == "setup")
    package_data = ast.literal_eval(next(keyword.value for keyword in call.keywords if keyword.arg == "package_data"))
    patterns = package_data["xo_web"]
    shipped = sorted(str(path.relative_to(STATIC.parent)) for path in STATIC.rglob("*") if path.is_file())
    for path in shipped:
        assert any(fnmatch.fnmatch(path, pattern) for pattern in patterns), f"{path} is not package data"
    served = load_static()
    assert sorted("static/" + name for name in served) == shipped


# Emoji and pictographic symbols: a machine without an emoji font draws them as empty boxes. The page's
# pictures are its own SVG (js/icons.js), so none of these may appear in what it ships.
PICTOGRAPHS = re.compile("[\u2600-\u26ff\u2700-\u27bf\u2b00-\u2bff\ufe0f\U0001f000-\U0001faff]")


@pytest.mark.parametrize(
    "path", sorted(path for path in STATIC.rglob("*") if path.is_file()), ids=lambda path: path.name
)
def test_no_file_of_the_page_relies_on_an_emoji_font(path):
    found = PICTOGRAPHS.findall(path.read_text(encoding="utf-8"))
    assert found == [], f"{path.name} holds {found}: draw it with js/icons.js instead"
