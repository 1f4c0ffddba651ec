"""The failures a client command (``xo``, ``rps``) reports, each tied to the exit code a script can act on.

Every command raises one of these instead of printing and exiting itself, so
that :mod:`client_core.runner` is the only place deciding how an error looks (one line) and how
the process ends.
"""

REJECTED = 1
USAGE = 2
UNAVAILABLE = 3
TIMED_OUT = 4
INTERNAL = 70
INTERRUPTED = 130
TERMINATED = 143


class CommandError(Exception):
    """A failure explained in one line; ``exit_code`` tells scripts what kind it was."""

    exit_code = REJECTED

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(CommandError):
    """The user asked for something that cannot work (bad space, missing key, illegal move)."""


class Rejected(CommandError):
    """The REST API or the validator refused what was submitted."""


class UsageError(CommandError):
    """The command line itself is malformed."""

    exit_code = USAGE


class Unavailable(CommandError):
    """The REST API could not be reached, failed, or does not speak Sawtooth."""

    exit_code = UNAVAILABLE


class TimedOut(CommandError):
    """The batch was submitted but xo stopped waiting before it was decided."""

    exit_code = TIMED_OUT


class Interrupted(CommandError):
    """Ctrl-C at a moment when the user must learn more than "interrupted", such as a batch id."""

    exit_code = INTERRUPTED


class Terminated(CommandError):
    """SIGTERM (a supervisor, ``kill``, ``timeout``) at a moment when the user must learn more, such as a batch id."""

    exit_code = TERMINATED


class TerminateRequest(KeyboardInterrupt):
    """Raised by the SIGTERM handler, so that SIGTERM stops a command wherever Ctrl-C would, with its own words."""


def stopped(interrupt: KeyboardInterrupt, what: str) -> CommandError:
    """The error for a Ctrl-C or SIGTERM that arrived while ``what`` (e.g. "waiting"), naming which of the two."""
    if isinstance(interrupt, TerminateRequest):
        return Terminated(f"terminated (SIGTERM) while {what}")
    return Interrupted(f"interrupted while {what}")
