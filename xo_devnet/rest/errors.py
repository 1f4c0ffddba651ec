"""The REST API's errors: Sawtooth's numeric codes, titles and HTTP statuses.

Clients branch on the code (and on the HTTP status), so both are fixed by the
Sawtooth REST API this server stands in for. Where a captured Sawtooth answer
exists, the message is the same too; elsewhere it says what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorKind:
    """One row of the error table."""

    code: int
    http_status: int
    title: str
    message: str


_KINDS = (
    ErrorKind(10, 500, "Unknown Validator Error", "An unexpected error occurred in the ledger handling the request."),
    ErrorKind(15, 503, "Validator Not Ready", "The ledger cannot produce blocks: "),
    ErrorKind(30, 400, "Submitted Batches Invalid", "The submitted BatchList was rejected: "),
    ErrorKind(31, 429, "Unable to Accept Batches", "The pending batch queue is full. Submit the batches again later."),
    ErrorKind(
        34,
        400,
        "No Batches Submitted",
        "The protobuf BatchList you submitted was empty and contained no Batches. You must submit at least one Batch.",
    ),
    ErrorKind(
        35, 400, "Protobuf Not Decodable", "The protobuf BatchList you submitted was malformed and could not be read."
    ),
    ErrorKind(
        42,
        400,
        "Wrong Content Type",
        "Batches must be submitted in a BatchList protobuf binary, "
        "with a 'Content-Type' header of 'application/octet-stream'.",
    ),
    ErrorKind(
        43,
        400,
        "Wrong Content Type",
        "Batch status requests sent as a POST need a 'Content-Type' header of 'application/json'.",
    ),
    ErrorKind(
        46,
        400,
        "Bad Status Request",
        "Batch status requests sent as a POST need a JSON body: an array of at least one batch id.",
    ),
    ErrorKind(50, 404, "Head Not Found", "No block has the id given in the 'head' query parameter."),
    ErrorKind(53, 400, "Invalid Count Query", "The 'limit' query parameter must be a positive integer."),
    ErrorKind(54, 400, "Invalid Paging Query", "The 'start' query parameter does not name an item of this listing."),
    ErrorKind(57, 400, "Invalid Sort Query", "The 'reverse' query parameter does not name a sort key of this listing."),
    ErrorKind(
        60,
        400,
        "Invalid Resource Id",
        "Blocks, batches and transactions are identified by 128 lowercase hex characters. This id is not one: ",
    ),
    ErrorKind(
        62,
        400,
        "Invalid State Address",
        "The state address submitted was invalid. "
        "To fetch specific state data, you must submit the full 70-character address.",
    ),
    ErrorKind(
        66,
        400,
        "Id Query Invalid or Missing",
        "Requests for batch statuses sent as a GET request must have an 'id' query parameter "
        "with a comma-separated list of at least one batch id.",
    ),
    ErrorKind(70, 404, "Block Not Found", "There is no block with the id specified in the blockchain."),
    ErrorKind(71, 404, "Batch Not Found", "There is no batch with the id specified in the blockchain."),
    ErrorKind(72, 404, "Transaction Not Found", "There is no transaction with the id specified in the blockchain."),
    ErrorKind(75, 404, "State Not Found", "There is no state data at the address specified."),
    ErrorKind(80, 404, "Transaction Receipt Not Found", "No committed transaction has a receipt for this id: "),
    ErrorKind(
        81,
        400,
        "Wrong Content Type",
        "Receipt requests sent as a POST need a 'Content-Type' header of 'application/json'.",
    ),
    ErrorKind(
        82,
        400,
        "Bad Receipts Request",
        "Receipt requests sent as a POST need a JSON body: an array of at least one transaction id.",
    ),
    ErrorKind(
        83,
        400,
        "Id Query Invalid or Missing",
        "Receipt requests sent as a GET request need an 'id' query parameter "
        "with a comma-separated list of at least one transaction id.",
    ),
    ErrorKind(
        90,
        429,
        "Too Many Subscribers",
        "Every event subscriber place of this ledger is taken. Open the websocket again later.",
    ),
    ErrorKind(
        91,
        400,
        "Websocket Expected",
        "GET /subscriptions opens a websocket: send the websocket upgrade handshake.",
    ),
    ErrorKind(100, 400, "Bad Faucet Request", "POST /xo-devnet/faucet takes {\"public_key\": KEY, \"amount\": N}: "),
    ErrorKind(101, 429, "Faucet Limit Reached", ""),  # the detail says which limit and when to ask again
    ErrorKind(102, 503, "Faucet Unavailable", ""),  # the detail says why: no issuer key, chips-tp's refusal
)

ERROR_KINDS: dict[int, ErrorKind] = {kind.code: kind for kind in _KINDS}


class ApiError(Exception):
    """An answer the API gives instead of data; raised anywhere below a route, rendered once."""

    def __init__(self, code: int, detail: str = "", *, message: str | None = None) -> None:
        self.kind = ERROR_KINDS[code]
        self.message = message if message is not None else self.kind.message + detail
        super().__init__(f"{code} {self.kind.title}: {self.message}")

    @property
    def body(self) -> dict[str, dict[str, object]]:
        """The JSON body Sawtooth sends: ``{"error": {"code", "title", "message"}}``."""
        return {"error": {"code": self.kind.code, "title": self.kind.title, "message": self.message}}
