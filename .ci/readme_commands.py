"""Print a set-up command of the README's Quick start, exactly as the README shows it.

CI runs what this prints, so the README and CI cannot drift apart: the command a
user copies is the command CI proves. ``python3 .ci/readme_commands.py 1`` prints
the first shell block after the paragraph that starts with ``**1.``, and so on.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def quick_start_command(readme: str, number: int) -> str:
    """The ``sh`` block that follows the ``**N.`` paragraph inside the ``## Quick start`` section."""
    section = re.search(r"^## Quick start\n(.*?)(?=^## )", readme, flags=re.MULTILINE | re.DOTALL)
    if section is None:
        raise SystemExit("README.md has no '## Quick start' section")
    step = re.search(
        rf"^\*\*{number}\..*?^```sh\n(.*?)^```", section.group(1), flags=re.MULTILINE | re.DOTALL
    )
    if step is None:
        raise SystemExit(f"README.md's Quick start has no command {number}")
    lines = [line for line in step.group(1).splitlines() if line.strip()]
    if len(lines) != 1:
        raise SystemExit(f"README.md's Quick start command {number} must be one line, found {len(lines)}")
    return lines[0]


if __name__ == "__main__":
    print(quick_start_command(README.read_text(encoding="utf-8"), int(sys.argv[1])))
