"""The Dockerfile installs the project as setup.py describes it, from the build context, and runs it unprivileged."""

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from tests.docker.build_sources import (
    DOCKERFILE,
    console_scripts,
    dockerfile,
    dockerignore_allowlist,
    setup_literal,
    setup_package_roots,
)
from tests.docker.compose_files import REPO_ROOT
from tests.docker.processors import image_processors, processor_command

# The pip options that take a value among those a Dockerfile would use; other words starting with "-" are flags.
PIP_VALUE_OPTIONS = {"--wheel-dir", "--find-links", "--index-url", "--extra-index-url", "--requirement", "--constraint"}


@dataclass(frozen=True)
class PipRun:
    """One RUN of `pip wheel` or `pip install`: its bind mounts, its options ({option: value or True}) and what
    it installs (every other word: a RUN that chained another command would show it here)."""

    mounts: list[dict[str, str]]
    options: dict[str, str | bool]
    requirements: list[str]


def pip_runs(stage_name: str, verb: str) -> list[PipRun]:
    runs = []
    for run in dockerfile().stage(stage_name).all("RUN"):
        words = shlex.split(run.arguments)
        mounts = [
            dict(part.split("=", 1) for part in word.split("=", 1)[1].split(","))
            for word in words
            if word.startswith("--mount=")
        ]
        command = [word for word in words if not word.startswith("--mount=")]
        if command[:2] != ["pip", verb]:
            continue
        options: dict[str, str | bool] = {}
        requirements = []
        rest = iter(command[2:])
        for word in rest:
            if word in PIP_VALUE_OPTIONS:
                options[word] = next(rest)
            elif word.startswith("-"):
                option, equals, value = word.partition("=")
                options[option] = value if equals else True
            else:
                requirements.append(word)
        runs.append(PipRun(mounts, options, requirements))
    return runs


def local_requirement(text: str) -> tuple[PurePosixPath, set[str]]:
    """A pip requirement that names a directory, PATH[EXTRA,...], as (PATH, {EXTRA, ...})."""
    match = re.fullmatch(r"(?P<path>[^\[\]]+)(?:\[(?P<extras>[^\]]*)\])?", text)
    assert match is not None and match["path"].startswith((".", "/")), f"not a local project: {text}"
    return PurePosixPath(match["path"]), {extra.strip() for extra in (match["extras"] or "").split(",") if extra}


def test_the_image_python_is_one_setup_py_supports() -> None:
    base = dockerfile().global_args["BASE_IMAGE"]
    match = re.fullmatch(r"python:(?P<version>3\.\d+)-slim-bookworm", base)

    assert match, f"the default base is Docker Hub's slim Python image: {base}"
    assert SpecifierSet(setup_literal("python_requires")).contains(f"{match['version']}.0")
    assert f"Programming Language :: Python :: {match['version']}" in setup_literal("classifiers")
    for stage in dockerfile().stages:
        if stage.base not in ("scratch", *(other.name for other in dockerfile().stages)):
            assert stage.base == base, f"stage {stage.name} is not built on BASE_IMAGE"


def test_no_syntax_line_makes_buildkit_pull_a_frontend() -> None:
    """`# syntax=...` makes BuildKit fetch that frontend from a registry; the built-in one reads this file."""
    first_lines = DOCKERFILE.read_text(encoding="utf-8").lstrip().splitlines()
    assert not any(re.match(r"#\s*syntax\s*=", line, re.IGNORECASE) for line in first_lines if line.startswith("#"))


# Where the wheels come from, by the WHEELS build argument: built by pip in a stage of their own, or built on the host
# (scripts/compose-test) and taken from the build context. Either stage leaves them in the same directory.
WHEEL_SOURCES = {"pip": "wheels-pip", "context": "wheels-context"}


def test_the_wheels_stage_is_the_one_the_wheels_argument_names() -> None:
    stages = {stage.name: stage for stage in dockerfile().stages}

    assert dockerfile().global_args["WHEELS"] in WHEEL_SOURCES
    for value, stage in WHEEL_SOURCES.items():
        assert stage in stages and stages["wheels"].base.replace(dockerfile().global_args["WHEELS"], value) == stage
    (copy,) = stages["wheels-context"].all("COPY")
    source, destination = copy.arguments.split()
    (build,) = pip_runs("wheels-pip", "wheel")
    assert stages["wheels-context"].base == "scratch" and destination == build.options["--wheel-dir"]
    assert source == "docker/wheels"
    assert "docker/wheels/" in (REPO_ROOT / ".gitignore").read_text(encoding="utf-8").splitlines(), "built, not kept"


def test_the_wheels_are_built_from_the_copied_build_context_with_an_extra_setup_py_defines() -> None:
    """The build context is the directory holding setup.py (test_compose_networks checks compose points there)."""
    wheels = dockerfile().stage("wheels-pip")
    workdir = PurePosixPath(wheels.one("WORKDIR").arguments)
    (copy,) = wheels.all("COPY")
    source, destination = copy.arguments.split()

    (build,) = pip_runs("wheels-pip", "wheel")
    (requirement,) = build.requirements
    path, extras = local_requirement(requirement)
    assert source == ".", "the whole build context is copied"
    assert workdir / path == workdir / destination, "pip builds the directory the build context was copied to"
    assert extras, "the integration-tests stage installs an extra, so its wheels are built too"
    assert extras <= set(setup_literal("extras_require")), extras


def test_every_install_takes_the_wheels_stage_output_and_nothing_from_an_index() -> None:
    (build,) = pip_runs("wheels-pip", "wheel")
    wheel_dir = build.options["--wheel-dir"]

    for stage in ("runtime", "integration-tests"):
        (install,) = pip_runs(stage, "install")
        (mount,) = install.mounts
        assert (mount["type"], mount["from"], mount["source"]) == ("bind", "wheels", wheel_dir), stage
        assert install.options["--no-index"] is True, stage
        assert install.options["--find-links"] == mount["target"], stage


def test_the_runtime_installs_only_the_package_and_the_tests_stage_adds_the_extra_its_command_needs() -> None:
    name = setup_literal("name")
    (runtime,) = pip_runs("runtime", "install")
    assert runtime.requirements == [name]

    (tests,) = pip_runs("integration-tests", "install")
    (requirement,) = (Requirement(text) for text in tests.requirements)
    (build,) = pip_runs("wheels-pip", "wheel")
    assert requirement.name == name
    assert requirement.extras, "the test stage needs the test extra"
    assert requirement.extras <= local_requirement(build.requirements[0])[1], "only built extras can be installed"
    program = dockerfile().stage("integration-tests").one("CMD").exec_form()[0]
    extra_requirements = setup_literal("extras_require")
    assert program in {Requirement(text).name for extra in requirement.extras for text in extra_requirements[extra]}


def test_the_test_image_holds_pytest_and_its_plugins_only_pinned_as_the_test_extra_pins_them() -> None:
    """Not the whole test extra (a browser driver, a linter...): the suite in the container needs pytest, its
    --timeout (pytest-timeout) and -n (pytest-xdist, scripts/compose-test)."""
    (tests,) = pip_runs("integration-tests", "install")
    extras = setup_literal("extras_require")
    installed = [Requirement(text) for extra in Requirement(tests.requirements[0]).extras for text in extras[extra]]
    pinned = {Requirement(text).name: Requirement(text).specifier for text in extras["test"]}

    assert {requirement.name for requirement in installed} == {"pytest", "pytest-timeout", "pytest-xdist"}
    assert all(requirement.specifier == pinned[requirement.name] for requirement in installed), installed


def test_the_default_target_runs_xo_tp_as_an_unprivileged_user_with_a_health_check() -> None:
    final = dockerfile().stages[-1]
    assert final.name == "xo"
    assert final.one("USER").arguments not in ("root", "0")

    command = final.one("CMD").exec_form()
    assert command == ["xo-tp", "-C", "tcp://validator:4004", "-vv"]
    assert command[0] in console_scripts()

    health_check = json.loads(final.one("HEALTHCHECK").arguments.split(" CMD ")[1])
    assert health_check == ["tp-healthcheck", "xo-tp"], "the image's own check is for its default command"
    copied = [copy.arguments.split()[-1] for copy in dockerfile().stage("runtime").all("COPY")]
    assert f"/usr/local/bin/{health_check[0]}" in copied


def test_the_compose_files_run_every_processor_from_the_image() -> None:
    assert image_processors() == ["chips-tp", "rps-tp", "xo-tp"]


@pytest.mark.parametrize("name", image_processors())
def test_every_processor_the_compose_files_run_from_the_image_is_a_command_it_installs(name: str) -> None:
    assert processor_command(name).prog == name


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
        assert path == "docker/wheels" or (REPO_ROOT / path).exists(), path  # built by scripts/compose-test
        assert any(path == entry or path.startswith(entry + "/") for entry in included), path
