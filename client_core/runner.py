"""Running one client command: turn its outcome into one error line and a documented exit code.

This is the only place that decides how failures look: one ``<command>: error: ...``
line on stderr and an exit code a script can act on; a traceback only with ``-vv``.
Command functions are imported on demand so that a quick query never loads what a
move needs (protobuf, secp256k1).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Mapping

from client_core.errors import INTERNAL, INTERRUPTED, CommandError

Commands = Mapping[str, tuple[str, str]]
"""Subcommand -> (module, function); the function takes the parsed arguments and returns an exit code."""


def run(
    prog: str, parse: Callable[[list[str]], argparse.Namespace], commands: Commands, argv: list[str] | None = None
) -> int:
    """Run ``prog`` and return its exit code instead of exiting, so that tests drive it as a shell would."""
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 2
    module_name, function_name = commands[args.command]
    command = getattr(importlib.import_module(module_name), function_name)
    try:
        return command(args)
    except CommandError as error:
        report(prog, error.message, args.verbose)
        return error.exit_code
    except KeyboardInterrupt:  # commands that submit say more themselves, since only they know a batch id
        report(prog, "interrupted", args.verbose)
        return INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        return 0
    except Exception as error:  # a bug: one line, and an exit code no server failure can be mistaken for
        report(prog, f"internal error: {type(error).__name__}: {error} (run with -vv for the traceback)", args.verbose)
        return INTERNAL


def silence_stdout() -> None:
    """After the reader of our output went away (``xo list | head``), drop what is still buffered."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def report(prog: str, message: str, verbose: int) -> None:
    """Print the one error line, after the traceback when ``-vv`` asks for the full story."""
    if verbose >= 2:
        import traceback  # noqa: PLC0415 - only needed when asked for

        traceback.print_exc()
    sys.stderr.write(f"{prog}: error: {message}\n")
