"""The package boundaries hold: shared packages know no game, and no family imports another.

A second family must not import the first, and shared machinery must not import any
family: read every module's imports and check them against the layering, so a
shortcut that crosses a boundary fails here instead of growing into a tangle.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SHARED = ("xo_core", "tp_runtime", "client_core")
"""Packages with no game knowledge: they may import only one another."""

FAMILIES = {
    "xo": ("xo_tp", "xo_client", "xo_cli"),
    "rps": ("rps_tp", "rps_client", "rps_cli"),
    "chips": ("chips_tp", "chips_client"),
}
"""Each family's packages; a family may import shared packages and its own packages only (and the pure rules below)."""

PURE_RULES = {"chips": {"xo_tp.bitboard", "rps_tp.canonical", "rps_tp.commitment", "rps_tp.game"}}
"""Another family's pure modules (no I/O) a family reuses rather than copies: chips's channel apps play XO and RPS."""

APPLICATIONS = ("xo_devnet", "xo_web", "xo_aries")
"""Programs built from several families (the ledger runs every family's processor; the web page plays every game;
the ACA-Py plugin plays xo over DIDComm)."""


def imported_modules(package: str) -> dict[str, set[str]]:
    """What each module of ``package`` imports, by module path (``from x import y`` as ``x.y``)."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
        found[str(path.relative_to(ROOT))] = names
    return found


def imported_packages(package: str) -> dict[str, set[str]]:
    """Top-level packages each module of ``package`` imports, by module path."""
    return {module: {name.split(".")[0] for name in names} for module, names in imported_modules(package).items()}


OURS = set(SHARED) | {package for packages in FAMILIES.values() for package in packages} | set(APPLICATIONS)


@pytest.mark.parametrize("package", SHARED)
def test_shared_packages_import_no_family_and_no_application(package):
    for module, names in imported_packages(package).items():
        assert names & OURS <= set(SHARED), f"{module} imports {sorted(names & OURS - set(SHARED))}"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_family_imports_only_shared_packages_and_its_own(family):
    allowed = set(SHARED) | set(FAMILIES[family])
    pure = PURE_RULES.get(family, set())
    for package in FAMILIES[family]:
        for module, names in imported_modules(package).items():
            crossing = {name for name in names if name.split(".")[0] in OURS - allowed}
            foreign = {
                name for name in crossing if not any(name == rules or name.startswith(rules + ".") for rules in pure)
            }
            assert not foreign, f"{module} imports {sorted(foreign)}"


@pytest.mark.parametrize("module", sorted(set().union(*PURE_RULES.values())))
def test_the_pure_rules_a_family_reuses_do_no_io(module):
    path = ROOT / (module.replace(".", "/") + ".py")
    packages = {name.split(".")[0] for name in imported_modules(path.parent.name)[str(path.relative_to(ROOT))]}
    assert not packages & {"tp_runtime", "client_core", "asyncio", "socket", "zmq", "aiohttp", "os", "pathlib"}


@pytest.mark.parametrize("application", ["xo_web", "xo_aries"])
def test_an_application_that_no_other_package_imports(application):
    for package in sorted(OURS - {application}):
        for module, names in imported_packages(package).items():
            assert application not in names, f"{module} imports {application}"


def test_xo_web_imports_no_command():
    for module, names in imported_packages("xo_web").items():
        assert not {"xo_cli", "rps_cli"} & names, f"{module} imports a command package"


def test_every_package_of_ours_is_placed_in_a_layer():
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert packages == OURS
