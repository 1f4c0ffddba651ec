"""The layers hold, with no hidden edges: every import, and every module named in a string, points down.

Layers, bottom to top, placed by name so that a new family slots in without an edit here:

0. shared, no game knowledge: ``xo_core``, ``tp_runtime``, ``client_core``;
1. family packages ``<f>_tp``: a family's processor side (another family's *pure* rules
   modules, listed in :data:`PURE_RULES`, are the only other family code they reuse);
2. client libraries ``<f>_client``: what a game looks like to a client;
3. on top: commands ``<f>_cli`` and the programs :data:`APPLICATIONS` (``xo_web``,
   ``xo_devnet``, ``xo_aries``).

An edge is an ``import``, a ``from ... import``, an ``import_module``/``__import__``
call, or a string constant that is the dotted name of one of our modules (the tables
from which :func:`client_core.runner.run` loads subcommands, the processors
xo-devnet starts, the plugin ACA-Py loads). No edge points up, no edge goes sideways
between two packages on top, and family code never reaches into another family except
through its pure rules, save the few edges in :data:`PINNED`, each one written down
with its reason (and in docs/new-family.md).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SHARED = ("xo_core", "tp_runtime", "client_core")
"""Packages with no game knowledge: they may import only one another."""

APPLICATIONS = ("xo_web", "xo_devnet", "xo_aries")
"""Programs on top, built from several families: the page, the ledger, the ACA-Py plugin."""

LAYER_NAMES = ("shared", "family", "client library", "command or application")

PURE_RULES = frozenset({"xo_tp.bitboard", "rps_tp.commitment", "rps_tp.game", "xo_client.ai", "xo_client.notation"})
"""Modules of one family that another family's code may use: pure rules, no I/O (chips's channel apps; xo's
computer player, which ``chips bot`` plays XO with; xo's board as people see it, which chips draws)."""

PINNED = {
    ("xo_cli.main", "xo_web.command"): "`xo web` is a subcommand of xo, loaded on demand; xo_web imports no command",
    ("xo_cli.aries_agent", "xo_aries"): "the plugin `xo aries agent` names to ACA-Py, which loads it in its process",
    ("xo_cli.ratings", "rps_client.results"): "`xo ratings` rates every game a player played: rps's reader of its "
    "finished games (pure) is all it takes from that family",
    ("xo_cli.ratings", "chips_client.results"): "`xo ratings` rates every game a player played: chips's reader of its "
    "closed channels (pure) is all it takes from that family",
    ("xo_cli.chain", "rps_client.chain_words"): "`xo chain` says what every transaction did: rps's reader of its own "
    "payloads (pure) is all it takes from that family",
    ("xo_cli.chain", "chips_client.chain_words"): "`xo chain` says what every transaction did: chips's reader of its "
    "own payloads (pure) is all it takes from that family",
}
"""The only edges between two packages on top: from a module to a module or package, with the reason."""

LOADERS = {"client_core.runner"}
"""Modules that call ``import_module`` with a name from elsewhere: the names are the callers' string constants."""


def packages() -> list[str]:
    return sorted(path.parent.name for path in ROOT.glob("*/__init__.py"))


def layer(package: str) -> int:
    """Where a package of ours stands, by its name."""
    if package in SHARED:
        return 0
    if package.endswith("_tp"):
        return 1
    if package.endswith("_client"):
        return 2
    if package.endswith("_cli") or package in APPLICATIONS:
        return 3
    raise LookupError(f"{package} is in no layer: name it <family>_tp, <family>_client or <family>_cli")


def family(package: str) -> str | None:
    """``xo`` for ``xo_tp``, ``xo_client`` and ``xo_cli``; None for shared packages and applications."""
    for suffix in ("_tp", "_client", "_cli"):
        if package.endswith(suffix):
            return package.removesuffix(suffix)
    return None


OURS = packages()
MODULE_NAME = re.compile(rf"(?:{'|'.join(OURS)})(?:\.[A-Za-z_]\w*)*")


def is_our_module(name: str) -> bool:
    """Whether ``name`` is the dotted name of a package or module of ours that exists."""
    if not MODULE_NAME.fullmatch(name):
        return False
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def edges_of(path: Path) -> tuple[set[str], list[str]]:
    """What the module at ``path`` reaches (imports and module names in strings), and its unread dynamic imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    reached: set[str] = set()
    dynamic: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            reached.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                reached.add(full if is_our_module(full) else node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if is_our_module(node.value):
                reached.add(node.value)
        elif isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if callee in ("import_module", "__import__"):
                argument = node.args[0] if node.args else None
                if not (isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
                    dynamic.append(f"line {node.lineno}")
    return {name for name in reached if name.split(".")[0] in OURS}, dynamic


def all_edges() -> list[tuple[str, str]]:
    """Every edge between two of our packages, as ``(module, what it reaches)``."""
    found = []
    for package in OURS:
        for path in sorted((ROOT / package).rglob("*.py")):
            source = module_name(path)
            reached, _ = edges_of(path)
            found.extend((source, target) for target in sorted(reached) if target.split(".")[0] != package)
    return found


@pytest.fixture(scope="module")
def edges() -> list[tuple[str, str]]:
    """Read once by the tests that need them, not at collection (each worker collects every module)."""
    return all_edges()


def is_pinned(source: str, target: str) -> bool:
    return any(
        source == pinned_source and (target == pinned_target or target.startswith(pinned_target + "."))
        for pinned_source, pinned_target in PINNED
    )


def is_pure_rules(target: str) -> bool:
    return any(target == rules or target.startswith(rules + ".") for rules in PURE_RULES)


def test_every_package_of_ours_stands_in_a_layer_by_its_name():
    placed = {package: LAYER_NAMES[layer(package)] for package in OURS}
    assert {"xo_core", "tp_runtime", "client_core", "xo_tp", "rps_tp", "xo_client", "rps_client"} <= set(placed)
    assert placed["xo_client"] == placed["rps_client"] == "client library"
    assert placed["xo_cli"] == placed["xo_web"] == "command or application"


def test_no_edge_points_up(edges):
    upward = [
        f"{source} -> {target}"
        for source, target in edges
        if layer(target.split(".")[0]) > layer(source.split(".")[0]) and not is_pinned(source, target)
    ]
    assert upward == []


def test_nothing_on_top_reaches_another_package_on_top_but_the_pinned_edges(edges):
    sideways = [
        f"{source} -> {target}"
        for source, target in edges
        if layer(source.split(".")[0]) == layer(target.split(".")[0]) == 3 and not is_pinned(source, target)
    ]
    assert sideways == []


def test_family_code_reaches_another_family_only_through_its_pure_rules(edges):
    crossing = [
        f"{source} -> {target}"
        for source, target in edges
        if (mine := family(source.split(".")[0])) is not None
        and (theirs := family(target.split(".")[0])) is not None
        and mine != theirs
        and not is_pure_rules(target)
        and not is_pinned(source, target)
    ]
    assert crossing == []


@pytest.mark.parametrize("module", sorted(PURE_RULES))
def test_the_pure_rules_a_family_reuses_do_no_io(module):
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    reached, _ = edges_of(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = list(ast.walk(tree))
    imported = {alias.name.split(".")[0] for node in nodes if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in nodes if isinstance(node, ast.ImportFrom) and node.module}
    assert not imported & {"tp_runtime", "client_core", "asyncio", "socket", "zmq", "aiohttp", "os", "pathlib"}
    assert all(layer(target.split(".")[0]) <= 1 for target in reached)


def test_modules_are_loaded_by_name_only_from_string_constants_this_test_reads():
    unread = {
        module_name(path): lines
        for package in OURS
        for path in sorted((ROOT / package).rglob("*.py"))
        if (lines := edges_of(path)[1]) and module_name(path) not in LOADERS
    }
    assert unread == {}


def test_every_pinned_edge_exists_and_the_page_imports_no_command(edges):
    for source, target in PINNED:
        assert any(edge[0] == source and is_pinned(*edge) and edge[1].startswith(target) for edge in edges), source
    assert not [edge for edge in edges if edge[0].startswith("xo_web") and edge[1].split(".")[0].endswith("_cli")]


def test_the_subcommand_tables_are_read_as_edges(edges):
    assert ("xo_cli.main", "xo_cli.moves") not in edges  # same package: not an edge between packages
    assert ("xo_cli.main", "client_core.status") in edges
    assert ("xo_cli.main", "xo_web.command") in edges
    assert ("xo_devnet.launcher", "rps_tp.cli") in edges


def test_hidden_edges_are_caught_strings_and_dynamic_imports_alike(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        '"""Docstrings naming xo_web.command are prose."""\n'
        'import importlib\n'
        'COMMANDS = {"web": ("xo_web.command", "web")}\n'
        'LOADED = importlib.import_module("xo_cli.moves")\n'
        'def load(name):\n'
        '    return __import__(name)\n',
        encoding="utf-8",
    )
    reached, dynamic = edges_of(module)
    assert reached == {"xo_web.command", "xo_cli.moves"}
    assert dynamic == ["line 6"]
