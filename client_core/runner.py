"""Running one client command: turn its outcome into one error line and a documented exit code.

This is the only place that decides how failures look: one ``<command>: error: ...``
line on stderr and an exit code a script can act on; a traceback only with ``-vv``.
Every error and warning line goes through :func:`xo_core.text.printable` here, so
text a server or a player chose (an error title, a rejection reason, a game name)
can never garble the terminal, whichever message quotes it. A command that submits
or waits runs under :func:`sigterm_interrupts`, so that SIGTERM stops it wherever
Ctrl-C would and it still names its batch.
Command functions are imported on demand so that a quick query never loads what a
move needs (protobuf, secp256k1).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping

from client_core.errors import INTERNAL, INTERRUPTED, TERMINATED, CommandError, TerminateRequest
from xo_core.process_exit import skip_final_collection
from xo_core.text import printable

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
    skip_final_collection()
    module_name, function_name = commands[args.command]
    command = getattr(importlib.import_module(module_name), function_name)
    try:
        return command(args)
    except CommandError as error:
        report(prog, error.message, args.verbose)
        return error.exit_code
    except TerminateRequest:
        report(prog, "terminated (SIGTERM)", args.verbose)
        return TERMINATED
    except KeyboardInterrupt:  # commands that submit say more themselves, since only they know a batch id
        report(prog, "interrupted", args.verbose)
        return INTERRUPTED
    except BrokenPipeError:
        silence_stdout()
        return 0
    except Exception as error:  # a bug: one line, and an exit code no server failure can be mistaken for
        report(prog, f"internal error: {type(error).__name__}: {error} (run with -vv for the traceback)", args.verbose)
        return INTERNAL


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within, SIGTERM raises :class:`TerminateRequest` where Ctrl-C raises KeyboardInterrupt.

    Python's default for SIGTERM is to die on the spot, which would lose the batch
    id a waiting command must report; a query has nothing to lose and keeps the
    default (and ``signal`` stays unimported on its quick path). The previous handler
    is put back afterwards (tests run commands in-process); off the main thread
    signals cannot be handled and the default stays.
    """
    import signal  # noqa: PLC0415 - see above

    def terminate(_signum: int, _frame: object) -> None:
        raise TerminateRequest

    try:
        previous = signal.signal(signal.SIGTERM, terminate)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def silence_stdout() -> None:
    """After the reader of our output went away (``xo list | head``), drop what is still buffered."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def report(prog: str, message: str, verbose: int) -> None:
    """Print the one error line, after the traceback when ``-vv`` asks for the full story."""
    if verbose >= 2:
        import traceback  # noqa: PLC0415 - only needed when asked for

        traceback.print_exc()
    sys.stderr.write(f"{prog}: error: {printable(message, escape_backslashes=False)}\n")


def warn(prog: str, message: str) -> None:
    """One ``<command>: warning: ...`` line on stderr: something is off, but the command goes on."""
    sys.stderr.write(f"{prog}: warning: {printable(message, escape_backslashes=False)}\n")


def notice(prog: str, message: str) -> None:
    """One ``<command>: ...`` line on stderr for a person: what a long-running command is doing (reconnecting, ...)."""
    sys.stderr.write(f"{prog}: {printable(message, escape_backslashes=False)}\n")
    sys.stderr.flush()
