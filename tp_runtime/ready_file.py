"""A file that exists exactly while the processor is registered, for health checks and supervisors.

A process that is merely running may still be connecting or registering; only the file
tells "serving" apart, without speaking the validator's protocol.
"""

import logging
from pathlib import Path

LOGGER = logging.getLogger(__name__)


class ReadyFile:
    """The ready file at ``path``, or nothing at all when ``path`` is ``None``.

    Failing to write or remove it is logged, never raised: serving transactions matters
    more than reporting that it does.
    """

    def __init__(self, path: Path | None) -> None:
        self._path = path

    def mark(self, url: str) -> None:
        """Publish the registration; written whole (rename) so a reader never sees half a file."""
        if self._path is None:
            return
        partial = self._path.with_name(self._path.name + ".partial")
        try:
            partial.write_text(f"registered with {url}\n", encoding="utf-8")
            partial.replace(self._path)
        except OSError as error:
            LOGGER.warning("cannot write the ready file %s: %s", self._path, error)

    def clear(self) -> None:
        """Withdraw the registration (also one a killed processor left behind)."""
        if self._path is None:
            return
        try:
            self._path.unlink(missing_ok=True)
        except OSError as error:
            LOGGER.warning("cannot remove the ready file %s: %s", self._path, error)
