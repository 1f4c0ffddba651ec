"""Board spaces as players name them: ``1``..``9`` or the grid notation ``A1``..``C3``.

The XO payload numbers spaces 1..9 row by row from the top left. The
tic-tac-toe message protocol names the same spaces like spreadsheet cells:
column letter A..C, then row number 1..3, so ``A1`` is 1, ``B2`` the centre 5
and ``C3`` is 9. Only these exact forms are accepted (letters in either case):
anything looser, such as ``05``, ``+5`` or non-ASCII digits, is more likely a
typo than a move.

The board is drawn for people in the same notation (:func:`board_lines`) by every
command that shows one (``xo play``, ``xo show``, ``chips play``). Pure, no I/O, so
another family's client may draw with it.
"""

from xo_tp.rules import EMPTY

COLUMNS = "ABC"
ROWS = "123"


class BadSpace(ValueError):
    """Text that names no board space."""


def parse_space(text: str) -> int:
    """Return the space (1..9) that ``text`` names, or raise ``BadSpace`` saying why."""
    if len(text) == 1 and text in "123456789":
        return int(text)
    if len(text) == 2:
        column, row = text[0].upper(), text[1]
        if column in COLUMNS and row in ROWS:
            return ROWS.index(row) * 3 + COLUMNS.index(column) + 1
    raise BadSpace(f"{text!r} is not a board space: use 1-9 (row by row from the top left) or A1-C3 (column, row)")


def grid_name(space: int) -> str:
    """Return the grid notation of ``space`` (1..9), e.g. 5 -> ``B2``."""
    row, column = divmod(space - 1, 3)
    return COLUMNS[column] + ROWS[row]


def board_lines(board: str) -> list[str]:
    """The board drawn with column letters and row numbers; empty spaces show their number."""
    cells = [mark if mark != EMPTY else str(index + 1) for index, mark in enumerate(board)]
    lines = ["      " + "   ".join(COLUMNS)]
    for row, label in enumerate(ROWS):
        lines.append(f"  {label}   " + " | ".join(cells[row * 3 : row * 3 + 3]))
        if row < len(ROWS) - 1:
            lines.append("     ---+---+---")
    return lines


def board_in_grid(board: str) -> str:
    """The board in one line of grid notation, for a table or a log line: ``X on B2 C1, O on A1``.

    A raw board string (``X---O----``) is the wire's form, kept for ``--json``; people read where each mark stands.
    """
    placed = {
        mark: " ".join(grid_name(index + 1) for index, cell in enumerate(board) if cell == mark) for mark in "XO"
    }
    said = [f"{mark} on {spaces}" for mark, spaces in placed.items() if spaces]
    return ", ".join(said) if said else "empty board"
