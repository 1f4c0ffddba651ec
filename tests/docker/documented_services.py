"""The services tables of docs/docker.md: what the documentation promises each compose file runs."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

CODE_SPAN = re.compile(r"`([^`]*)`")


@dataclass(frozen=True)
class ServiceRow:
    """One row: the service's image, its command as an argument vector, and its published ports."""

    image: str
    command: list[str]
    ports: list[str]


def services_table(document: str, compose_path: str) -> dict[str, ServiceRow]:
    """The table under the heading "Services of `<compose_path>`", by service name."""
    heading = f"Services of `{compose_path}`"
    lines = document.splitlines()
    start = next((index for index, line in enumerate(lines) if line.startswith("#") and heading in line), None)
    assert start is not None, f"docs/docker.md has no heading '{heading}'"
    table: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            table.append(line)
        elif table or line.startswith("#"):
            break
    assert len(table) > 2, f"docs/docker.md has no table under '{heading}'"
    header = [cell.lower() for cell in _cells(table[0])]
    rows = {}
    for line in table[2:]:
        cells = dict(zip(header, _cells(line), strict=True))
        name = _code(cells["service"])[0]
        rows[name] = ServiceRow(
            image=_code(cells["image"])[0],
            command=shlex.split(_code(cells["command"])[0]),
            ports=_code(cells["host ports"]),
        )
    return rows


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _code(cell: str) -> list[str]:
    return CODE_SPAN.findall(cell)
