"""``xo aries check FILE|-``: is this Aries Tic Tac Toe thread a game the XO rules accept?

The verdict is the command's output, on stdout, and its exit status: 0 for a valid
thread, 1 for the first bad message, named by the protocol's problem-report code and
its index in the array (``game.json[3]: already-occupied: ...``), as ``xo status``
prints INVALID and exits 1. A file that cannot be read or is not JSON is an error
line instead (:mod:`xo_cli.thread_files`). Explanations quote the file, so they are
shown through :func:`xo_core.text.printable`; ``--json`` keeps them exact.
"""

from __future__ import annotations

import argparse
import json

from client_core.errors import REJECTED
from xo_cli.thread_files import read_thread, source_name
from xo_client import aries
from xo_core.text import counted, printable
from xo_tp import rules

#: How a valid thread's game stands, in words, by its XO game state.
STANDING = {
    rules.P1_NEXT: "X to play",
    rules.P2_NEXT: "O to play",
    rules.P1_WIN: "X won",
    rules.P2_WIN: "O won",
    rules.TIE: "a draw",
}


class Verdict:
    """What checking a thread found: the first problem, or the game it holds."""

    def __init__(self, thread: object) -> None:
        self.problem: aries.Problem | None = None
        self.moves: list[aries.Placement] = []
        self.state: str | None = None
        self.abandoned = False
        try:
            self.moves = aries.moves_of(thread)
        except aries.InvalidThread as invalid:
            self.problem = invalid.problem
            return
        assert isinstance(thread, list)  # a valid thread is an array
        self.state = aries.played(self.moves).state
        self.abandoned = aries.abandoned(thread)

    def as_json(self, source: str) -> dict[str, object]:
        """``--json``: the source as given, then either the problem or the game (moves, state, abandoned)."""
        problem = self.problem._asdict() if self.problem is not None else None
        valid = problem is None
        return {
            "source": source,
            "valid": valid,
            "problem": problem,
            "moves": [move.notation() for move in self.moves] if valid else None,
            "state": self.state,
            "abandoned": self.abandoned if valid else None,
        }

    def line(self, source: str) -> str:
        """One line for people: ``FILE[index]: code: explanation``, or ``FILE: valid: ...`` and the game."""
        name = source_name(source)
        if self.problem is not None:
            where = name if self.problem.index is None else f"{name}[{self.problem.index}]"
            return f"{where}: {self.problem.code}: {printable(self.problem.explanation, escape_backslashes=False)}"
        assert self.state is not None
        played = counted(len(self.moves), "move") if self.moves else "no move yet"
        standing = "abandoned unfinished" if self.abandoned else STANDING[self.state]
        return f"{name}: valid: {played}, {standing}"


def check(args: argparse.Namespace) -> int:
    """Check the thread in ``args.file`` and report; exit 0 if it is a valid XO game, else 1."""
    verdict = Verdict(read_thread(args.file))
    if args.format == "json":
        print(json.dumps(verdict.as_json(args.file), indent=2))
    else:
        print(verdict.line(args.file))
    return 0 if verdict.problem is None else REJECTED
