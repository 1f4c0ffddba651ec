"""The Dockerfile installs the project as setup.py describes it, from the build context, and runs it unprivileged."""

import shlex

from packaging.specifiers import SpecifierSet

from tests.docker.build_sources import (
    dockerfile,
    dockerignore_allowlist,
    setup_literal,
    setup_package_roots,
)
from tests.docker.compose_files import REPO_ROOT


def console_scripts() -> set[str]:
    return {entry.split("=")[0].strip() for entry in setup_literal("entry_points")["console_scripts"]}


def run_commands(stage_name: str) -> list[list[str]]:
    """The RUN commands of a stage, as argument vectors without their --mount options."""
    commands = []
    for run in dockerfile().stage(stage_name).all("RUN"):
        words = [word for word in shlex.split(run.arguments) if not word.startswith("--mount=")]
        commands.append(words)
    return commands


def test_the_image_python_is_one_setup_py_supports() -> None:
    version = dockerfile().global_args["PYTHON_VERSION"]

    assert SpecifierSet(setup_literal("python_requires")).contains(f"{version}.0")
    assert f"Programming Language :: Python :: {version}" in setup_literal("classifiers")
    for stage in dockerfile().stages:
        if stage.base.startswith("python:"):
            assert stage.base == f"python:{version}-slim-bookworm", stage.name


def test_the_project_is_built_from_the_build_context_with_its_test_extra() -> None:
    wheels = dockerfile().stage("wheels")
    workdir = wheels.one("WORKDIR").arguments
    assert [copy.arguments for copy in wheels.all("COPY")] == [". ."]

    (build,) = [command for command in run_commands("wheels") if command[:2] == ["pip", "wheel"]]
    assert build[-1] == ".[test]"
    assert "test" in setup_literal("extras_require")
    assert workdir == "/src"


def test_the_runtime_installs_the_package_setup_py_names_and_nothing_else() -> None:
    name = setup_literal("name")

    (install,) = [command for command in run_commands("runtime") if command[:2] == ["pip", "install"]]
    assert install[-1] == name
    assert "--no-index" in install

    (tests_install,) = [command for command in run_commands("integration-tests") if command[:2] == ["pip", "install"]]
    assert tests_install[-1] == f"{name}[test]"


def test_the_default_target_runs_xo_tp_as_an_unprivileged_user_with_a_health_check() -> None:
    final = dockerfile().stages[-1]
    assert final.name == "xo"
    assert final.one("USER").arguments not in ("root", "0")

    command = final.one("CMD").exec_form()
    assert command == ["xo-tp", "-C", "tcp://validator:4004", "-vv"]
    assert command[0] in console_scripts()

    health_check = final.one("HEALTHCHECK").arguments
    assert health_check.split(" CMD ")[1] == '["xo-tp-healthcheck"]'
    copied = [copy.arguments.split()[-1] for copy in dockerfile().stage("runtime").all("COPY")]
    assert "/usr/local/bin/xo-tp-healthcheck" in copied


def test_the_integration_tests_target_runs_the_suite_as_the_same_user() -> None:
    stage = dockerfile().stage("integration-tests")

    assert stage.base == "runtime"
    assert stage.one("USER").arguments == dockerfile().stage("xo").one("USER").arguments
    assert stage.one("CMD").exec_form()[-1] == "tests/integration"


def test_the_build_context_allowlist_holds_everything_the_build_reads() -> None:
    patterns, included = dockerignore_allowlist()
    assert patterns[0] == "*", "the ignore file is an allowlist: it starts by excluding everything"

    needed = {"setup.py", "pyproject.toml", *setup_package_roots()}
    assert "README.md" in (REPO_ROOT / "setup.py").read_text(), "setup.py reads README.md"
    needed.add("README.md")
    for stage in dockerfile().stages:
        for copy in stage.all("COPY"):
            sources = [word for word in copy.arguments.split()[:-1] if not word.startswith("--")]
            needed.update(source for source in sources if source != ".")

    for path in sorted(needed):
        assert (REPO_ROOT / path).exists(), path
        assert any(path == entry or path.startswith(entry + "/") for entry in included), path
