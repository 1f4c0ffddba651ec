"""What the image is built from, read without building it: the Dockerfile, its ignore file and setup.py."""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from tests.docker.compose_files import DOCKER_DIR, REPO_ROOT

DOCKERFILE = DOCKER_DIR / "Dockerfile"
DOCKERIGNORE = DOCKER_DIR / "Dockerfile.dockerignore"
SETUP_PY = REPO_ROOT / "setup.py"


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form instruction (CMD ["a", "b"])."""
        parsed = json.loads(self.arguments)
        assert isinstance(parsed, list), self
        return parsed


@dataclass
class Stage:
    name: str
    base: str
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [instruction for instruction in self.instructions if instruction.keyword == keyword]

    def one(self, keyword: str) -> Instruction:
        found = self.all(keyword)
        assert len(found) == 1, f"stage {self.name} has {len(found)} {keyword} instructions"
        return found[0]

    def environment(self) -> dict[str, str]:
        """The variables this stage's ENV instructions set (KEY=VALUE form)."""
        pairs = [word.split("=", 1) for env in self.all("ENV") for word in shlex.split(env.arguments)]
        assert all(len(pair) == 2 for pair in pairs), f"stage {self.name} has an ENV without '='"
        return dict(pairs)


@dataclass(frozen=True)
class Dockerfile:
    global_args: dict[str, str]
    stages: list[Stage]

    def stage(self, name: str) -> Stage:
        return next(stage for stage in self.stages if stage.name == name)


def dockerfile() -> Dockerfile:
    """The Dockerfile's stages, with continuation lines joined and comments dropped, as Docker reads it."""
    instructions = _instructions(DOCKERFILE.read_text(encoding="utf-8"))
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            base, _, name = instruction.arguments.partition(" AS ")
            stages.append(Stage(name.strip(), _substitute(base.strip(), global_args)))
        elif stages:
            stages[-1].instructions.append(instruction)
        elif instruction.keyword == "ARG":
            arg_name, _, default = instruction.arguments.partition("=")
            global_args[arg_name] = default
    return Dockerfile(global_args, stages)


def _instructions(text: str) -> list[Instruction]:
    logical: list[str] = []
    pending = ""
    for line in text.splitlines():
        if line.lstrip().startswith("#") or (not line.strip() and not pending):
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        logical.append(" ".join(pending.split()))
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    instructions = []
    for line in logical:
        keyword, _, arguments = line.partition(" ")
        instructions.append(Instruction(keyword.upper(), arguments))
    return instructions


def _substitute(text: str, variables: dict[str, str]) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda match: variables[match.group(1) or match.group(2)], text)


def dockerignore_allowlist() -> tuple[list[str], list[str]]:
    """(patterns, re-included paths) of the Dockerfile's ignore file."""
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return patterns, [pattern[1:] for pattern in patterns if pattern.startswith("!")]


def setup_keywords() -> dict[str, ast.expr]:
    """The keyword arguments of the setup() call in setup.py, as syntax trees (setup.py is never run)."""
    tree = ast.parse(SETUP_PY.read_text(encoding="utf-8"))
    call = next(
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setup"
    )
    return {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg is not None}


def setup_literal(name: str) -> Any:
    return ast.literal_eval(setup_keywords()[name])


def console_scripts() -> dict[str, str]:
    """The commands setup.py installs: {name: "module:function"}."""
    entries = setup_literal("entry_points")["console_scripts"]
    return {name.strip(): target.strip() for name, _, target in (entry.partition("=") for entry in entries)}


def setup_package_roots() -> set[str]:
    """Top-level package directories from packages=find_packages(include=[...])."""
    packages = setup_keywords()["packages"]
    assert isinstance(packages, ast.Call), "packages= is expected to be find_packages(include=[...])"
    include = next(keyword.value for keyword in packages.keywords if keyword.arg == "include")
    return {pattern.split(".")[0] for pattern in ast.literal_eval(include)}
