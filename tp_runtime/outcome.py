"""What the validator is told about one transaction, from what its handler did.

The mapping is the SDK's: the handler's verdict on the transaction is
INVALID_TRANSACTION (the validator drops it for good), anything that went wrong
around it is INTERNAL_ERROR (the validator tries it again later). Nothing a handler
raises escapes: one bad transaction never takes the processor down.
"""

import logging

from greenlet import GreenletExit
from sawtooth_sdk.processor.exceptions import AuthorizationException, InternalError, InvalidTransaction

from tp_runtime.context import Context
from tp_runtime.errors import ValidatorConnectionLost
from tp_runtime.handlers import Handler
from xo_core.protobuf.processor_pb2 import TpProcessRequest, TpProcessResponse

LOGGER = logging.getLogger(__name__)

OK = TpProcessResponse(status=TpProcessResponse.OK)


def apply_transaction(handler: Handler, request: TpProcessRequest, context: Context) -> TpProcessResponse:
    """Run ``handler.apply`` and turn its outcome into the response for the validator.

    :class:`ValidatorConnectionLost` passes through: there is nobody to answer, and
    the validator will send the transaction again. So does ``GreenletExit``: the
    processor is exiting and abandons the transaction.
    """
    try:
        handler.apply(request, context)
    except (ValidatorConnectionLost, GreenletExit):
        raise
    except InvalidTransaction as error:
        return TpProcessResponse(
            status=TpProcessResponse.INVALID_TRANSACTION, message=str(error), extended_data=error.extended_data
        )
    except AuthorizationException as error:  # an address outside the transaction's inputs/outputs
        return TpProcessResponse(status=TpProcessResponse.INVALID_TRANSACTION, message=str(error))
    except InternalError as error:
        LOGGER.exception("internal error in transaction %.16s", request.signature)
        return TpProcessResponse(
            status=TpProcessResponse.INTERNAL_ERROR, message=str(error), extended_data=error.extended_data
        )
    except BaseException as error:  # a handler that calls sys.exit() must not kill its worker thread either
        LOGGER.exception("handler failed on transaction %.16s", request.signature)
        return TpProcessResponse(status=TpProcessResponse.INTERNAL_ERROR, message=f"{type(error).__name__}: {error}")
    return OK
