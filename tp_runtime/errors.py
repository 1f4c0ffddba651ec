"""The ways the link to the validator fails, as the runtime and handlers see them."""


class ValidatorConnectionLost(Exception):
    """The connection a request belongs to is gone.

    Raised inside a handler's context call so the handler unwinds; the runtime then
    sends no response, because the validator resends the transaction to whichever
    connection registers next.
    """


class RegistrationRejected(Exception):
    """The validator answered a registration with ERROR: retrying cannot help."""


class ProcessorFailed(Exception):
    """The processor cannot go on (its handler thread died); the log says why."""
