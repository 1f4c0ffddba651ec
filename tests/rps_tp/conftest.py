"""The processor runtime's fixtures, for ``rps-tp`` as a subprocess: a validator peer and the command's process."""

from tests.tp_runtime.conftest import peer, start_tp

__all__ = ["peer", "start_tp"]
