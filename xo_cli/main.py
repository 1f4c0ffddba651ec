"""Entry point of ``xo``: parse, run one command, turn its outcome into an exit code.

This is the only place that decides how failures look: one ``xo: error: ...``
line on stderr and a documented exit code; a traceback only with ``-vv``.
Commands are imported on demand so that ``xo show`` never loads what
``xo take`` needs (protobuf, secp256k1).
"""

from __future__ import annotations

import importlib
import os
import sys

from xo_cli.arguments import parse
from xo_cli.errors import INTERNAL, INTERRUPTED, XoError

COMMANDS = {
    "create": ("xo_cli.moves", "create"),
    "take": ("xo_cli.moves", "take"),
    "delete": ("xo_cli.moves", "delete"),
    "list": ("xo_cli.queries", "list_games"),
    "show": ("xo_cli.queries", "show"),
    "keygen": ("xo_cli.keys", "keygen"),
}


def main(argv: list[str] | None = None) -> int:
    """Run ``xo`` and return its exit code instead of exiting, so that tests drive it as a shell would."""
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    module_name, function_name = COMMANDS[args.command]
    command = getattr(importlib.import_module(module_name), function_name)
    try:
        return command(args)
    except XoError as error:
        report(error.message, args.verbose)
        return error.exit_code
    except KeyboardInterrupt:  # commands that submit say more themselves, since only they know a batch id
        report("interrupted", args.verbose)
        return INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        return 0
    except Exception as error:  # a bug: one line, and an exit code no server failure can be mistaken for
        report(f"internal error: {type(error).__name__}: {error} (run with -vv for the traceback)", args.verbose)
        return INTERNAL


def silence_stdout() -> None:
    """After the reader of our output went away (``xo list | head``), drop what is still buffered."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def report(message: str, verbose: int) -> None:
    """Print the one error line, after the traceback when ``-vv`` asks for the full story."""
    if verbose >= 2:
        import traceback  # noqa: PLC0415 - only needed when asked for

        traceback.print_exc()
    sys.stderr.write(f"xo: error: {message}\n")


if __name__ == "__main__":
    sys.exit(main())
