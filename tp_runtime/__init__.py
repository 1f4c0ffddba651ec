"""A family-agnostic Sawtooth transaction processor runtime on asyncio and pyzmq.

It speaks the validator's component protocol with the wire messages in
:mod:`xo_core.protobuf` and runs any handler written to the SDK's
``TransactionHandler`` interface, on Python versions the SDK's own runtime no
longer supports.
"""

from tp_runtime.context import Context
from tp_runtime.core import TransactionProcessor
from tp_runtime.errors import ProcessorFailed, RegistrationRejected, ValidatorConnectionLost

__all__ = ["Context", "ProcessorFailed", "RegistrationRejected", "TransactionProcessor", "ValidatorConnectionLost"]
