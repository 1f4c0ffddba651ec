"""Tables for people: rows of cells, columns as wide as their widest cell in terminal columns.

Cells must already be printable (:func:`xo_core.text.printable` or :func:`~xo_core.text.clip`);
widths are display widths, so a CJK name or an emoji keeps its column straight. Every
client command's listing (``xo list``, ``xo history``, ``rps list``) is drawn here.
"""

from __future__ import annotations

from collections.abc import Sequence

from xo_core.text import display_width, pad

SEPARATOR = "  "


def table(rows: Sequence[Sequence[str]]) -> str:
    """``rows`` (headings first) as aligned lines, two spaces between columns, no trailing spaces."""
    if not rows:
        return ""
    columns = len(rows[0])
    widths = [max(display_width(row[column]) for row in rows) for column in range(columns)]
    lines = (SEPARATOR.join(pad(cell, width) for cell, width in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(line.rstrip() for line in lines)
