"""A stand-in Sawtooth REST API for the client tests (``xo``, ``client_core``).

``FakeSawtooth`` answers the routes xo uses the way Sawtooth 1.2's REST API
does (the shapes and error bodies of /work/shared/reference/sawtooth-1.0.5-rest):
202 + link on POST /batches, /batch_statuses with ``wait``, /state with paging
and ``next``, /receipts with the state changes of applied moves. It checks
signatures with the ``sawtooth_signing`` that ``sawtooth-sdk`` ships, as a validator would
and plays XO with a small model of the rules, so a batch that xo signs wrongly or
a move it builds wrongly shows up as a failed test. Switches make it misbehave
in each way xo must explain: auth, busy, failing, not Sawtooth at all.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import socket
import threading
import time
from dataclasses import dataclass
from http.client import HTTPMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from sawtooth_signing import create_context
from sawtooth_signing.secp256k1 import Secp256k1PublicKey

from xo_core.protobuf.batch_pb2 import Batch, BatchHeader, BatchList
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_tp.family import game_address

HEAD = "ab" * 64
Answer = tuple[int, str, bytes, dict[str, str]]  # status, content type, body, extra headers
WINS = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
SECP256K1 = create_context("secp256k1")


def error_body(code: int, title: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "title": title, "message": message}}, indent=2).encode()


@dataclass
class Submitted:
    """A move as the fake received it: who signed it and what it said."""

    signer: str
    payload: str
    batch_id: str


class FakeSawtooth:
    def __init__(self) -> None:
        self.state: dict[str, bytes] = {}
        self.statuses: dict[str, tuple[str, list[dict[str, str]]]] = {}
        self.receipts: dict[str, list[dict[str, str]]] = {}
        self.submitted: list[Submitted] = []
        self.requests: list[tuple[str, str]] = []
        self.client_ports: list[int] = []
        self.page_size = 100
        self.link_host: str | None = None
        self.settle = "apply"  # or "pending" (stays PENDING), or "forget" (accepted, then UNKNOWN)
        self.hold_pending = True
        self.auth: tuple[str, str] | None = None
        self.canned: Answer | None = None
        self.prefix = ""
        self.links_lack_prefix = False
        self.canned_routes: dict[str, Answer] = {}
        self.drop_connections = False
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler_class())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def close(self) -> None:
        """Stop serving now: ``shutdown`` alone waits out the serve loop's poll, so connections wake it at once.

        A wake-up that comes before the loop has seen the request to stop is served (an empty connection, never
        a request) and the next one follows; both loops are bounded."""
        stopper = threading.Thread(target=self.server.shutdown, daemon=True)
        stopper.start()
        for _ in range(500):
            with contextlib.suppress(OSError), socket.create_connection(self.server.server_address, timeout=1):
                pass
            stopper.join(0.01)
            if not stopper.is_alive():
                break
        stopper.join()
        self.server.server_close()

    # --- set-up helpers for tests ---

    def put_game(self, name: str, board: str = "---------", state: str = "P1-NEXT", p1: str = "", p2: str = "") -> str:
        address = game_address(name)
        self.state[address] = f"{name},{board},{state},{p1},{p2}".encode()
        return address

    def answer_always(self, status: int, body: bytes, content_type: str = "application/json", **headers: str) -> None:
        """From now on answer every request with this, whatever it asks (a proxy, a crash, another server)."""
        self.canned = (status, content_type, body, headers)

    def answer_route(self, route: str, status: int, body: bytes, content_type: str = "application/json") -> None:
        """From now on answer ``route`` (e.g. ``/batch_statuses``) with this; other routes work as before."""
        self.canned_routes[route] = (status, content_type, body, {})

    def gets(self, prefix: str) -> list[str]:
        return [path for method, path in self.requests if method == "GET" and path.startswith(prefix)]

    # --- the REST API ---

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:
                self.route("GET")

            def do_POST(self) -> None:
                self.route("POST")

            def route(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with fake.lock:
                    fake.requests.append((method, self.path))
                    fake.client_ports.append(self.client_address[1])
                status, content_type, payload, headers = fake.answer(method, self.path, self.headers, body)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
                if fake.drop_connections:
                    self.close_connection = True

        return Handler

    def answer(self, method: str, path: str, headers: HTTPMessage, body: bytes) -> Answer:
        json_type = "application/json; charset=utf-8"
        if self.canned is not None:
            return self.canned
        if self.auth is not None:
            expected = "Basic " + base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
            if headers.get("Authorization") != expected:
                return 401, "text/plain", b"401: Unauthorized", {"WWW-Authenticate": 'Basic realm="sawtooth"'}
        if not path.startswith(self.prefix + "/"):
            return 404, "text/plain", b"404: Not Found", {}
        parts = urlsplit(path.removeprefix(self.prefix))
        query = {key: values[0] for key, values in parse_qs(parts.query, keep_blank_values=True).items()}
        if parts.path in self.canned_routes:
            return self.canned_routes[parts.path]
        host = (self.link_host or headers.get("Host")) + ("" if self.links_lack_prefix else self.prefix)
        try:
            if method == "POST" and parts.path == "/batches":
                status, envelope = self.post_batches(headers.get("Content-Type"), body, host)
            elif method == "GET" and parts.path == "/batch_statuses":
                status, envelope = self.batch_statuses(query, host)
            elif method == "GET" and parts.path == "/state":
                status, envelope = self.state_list(query, host)
            elif method == "GET" and parts.path.startswith("/state/"):
                status, envelope = self.state_get(parts.path.removeprefix("/state/"), host)
            elif method == "GET" and parts.path == "/receipts":
                status, envelope = self.receipts_of(query, host)
            else:
                return 404, "text/plain", b"404: Not Found", {}
        except ApiError as error:
            return error.status, json_type, error_body(error.code, error.title, error.message), {}
        return status, json_type, json.dumps(envelope, indent=2, sort_keys=True).encode(), {}

    def state_get(self, address: str, host: str) -> tuple[int, dict[str, object]]:
        if len(address) != 70 or any(char not in "0123456789abcdef" for char in address):
            raise ApiError(400, 62, "Invalid State Address", "The state address submitted was invalid.")
        if address not in self.state:
            raise ApiError(404, 75, "State Not Found", "There is no state data at the address specified.")
        data = base64.b64encode(self.state[address]).decode()
        return 200, {"data": data, "head": HEAD, "link": f"http://{host}/state/{address}?head={HEAD}"}

    def state_list(self, query: dict[str, str], host: str) -> tuple[int, dict[str, object]]:
        prefix = query.get("address", "")
        limit = int(query.get("limit") or self.page_size)
        addresses = sorted(address for address in self.state if address.startswith(prefix))
        start = query.get("start")
        first = addresses.index(start) if start in addresses else 0
        page = addresses[first : first + limit]
        paging: dict[str, object] = {"limit": query.get("limit"), "start": start}
        if first + limit < len(addresses):
            following = addresses[first + limit]
            paging["next_position"] = following
            paging["next"] = f"http://{host}/state?head={HEAD}&start={following}&limit={limit}&address={prefix}"
        data = [{"address": address, "data": base64.b64encode(self.state[address]).decode()} for address in page]
        link = f"http://{host}/state?head={HEAD}&address={prefix}"
        return 200, {"data": data, "head": HEAD, "link": link, "paging": paging}

    def post_batches(self, content_type: str | None, body: bytes, host: str) -> tuple[int, dict[str, object]]:
        if content_type != "application/octet-stream":
            raise ApiError(400, 42, "Wrong Content Type", "Batches must be submitted in a BatchList protobuf binary.")
        if not body:
            raise ApiError(400, 34, "No Batches Submitted", "The protobuf BatchList you submitted was empty.")
        batch_list = BatchList.FromString(body)
        for batch in batch_list.batches:
            self.check_signed(batch)
        ids = []
        for batch in batch_list.batches:
            ids.append(batch.header_signature)
            with self.lock:
                self.settle_batch(batch)
        return 202, {"link": f"http://{host}/batch_statuses?id={','.join(ids)}"}

    def settle_batch(self, batch: Batch) -> None:
        """Record the batch's moves and settle it as ``settle`` says; applied atomically, as a validator does.

        Its transactions run in order, each seeing the state the earlier ones left; the
        first one refused makes the whole batch INVALID and undoes the others' writes.
        """
        moves = []
        for transaction in batch.transactions:
            header = TransactionHeader.FromString(transaction.header)
            move = Submitted(header.signer_public_key, transaction.payload.decode(), batch.header_signature)
            moves.append((transaction.header_signature, move))
        self.submitted.extend(move for _, move in moves)
        if self.settle == "pending":
            self.statuses[batch.header_signature] = ("PENDING", [])
        if self.settle != "apply":
            return
        before = dict(self.state)
        receipts: dict[str, list[dict[str, str]]] = {}
        for transaction_id, move in moves:
            reason = self.apply(move)
            if reason:
                self.state = before
                self.statuses[batch.header_signature] = ("INVALID", [{"id": transaction_id, "message": reason}])
                return
            receipts[transaction_id] = [self.state_change(move)]
        self.statuses[batch.header_signature] = ("COMMITTED", [])
        self.receipts.update(receipts)

    def state_change(self, move: Submitted) -> dict[str, str]:
        """The receipt's state change of an applied move: the value it left at the game's address."""
        address = game_address(move.payload.split(",")[0])
        if address not in self.state:
            return {"address": address, "type": "DELETE"}
        return {"address": address, "type": "SET", "value": base64.b64encode(self.state[address]).decode()}

    def check_signed(self, batch: Batch) -> None:
        """What a validator checks before accepting a batch: signatures, hashes, batcher, ids."""
        header = BatchHeader.FromString(batch.header)
        signer = Secp256k1PublicKey.from_hex(header.signer_public_key)
        problems = not SECP256K1.verify(batch.header_signature, batch.header, signer)
        problems |= list(header.transaction_ids) != [t.header_signature for t in batch.transactions]
        for transaction in batch.transactions:
            txn_header = TransactionHeader.FromString(transaction.header)
            txn_signer = Secp256k1PublicKey.from_hex(txn_header.signer_public_key)
            problems |= not SECP256K1.verify(transaction.header_signature, transaction.header, txn_signer)
            problems |= txn_header.payload_sha512 != hashlib.sha512(transaction.payload).hexdigest()
            problems |= txn_header.batcher_public_key != header.signer_public_key
        if problems:
            raise ApiError(400, 30, "Submitted Batches Invalid", "The submitted BatchList was rejected.")

    def apply(self, move: Submitted) -> str | None:
        """A plain model of the XO rules; returns the rejection reason, or None after applying the move."""
        name, action, space = move.payload.split(",")
        address = game_address(name)
        entry = self.state.get(address)
        game = entry.decode().split(",") if entry else None
        if action == "create":
            if game:
                return "Invalid action: Game already exists."
            self.state[address] = f"{name},---------,P1-NEXT,,".encode()
            return None
        if game is None:
            return f"Invalid action: {action} requires an existing game."
        if action == "delete":
            del self.state[address]
            return None
        _, board, state, p1, p2 = game
        index = int(space) - 1
        if state not in ("P1-NEXT", "P2-NEXT"):
            return "Invalid Action: Game has ended."
        turn_key = p1 if state == "P1-NEXT" else p2
        if turn_key and turn_key != move.signer:
            return "Not this player's turn"
        if board[index] != "-":
            return "Invalid Action: space already taken."
        p1 = p1 or move.signer
        p2 = p2 or (move.signer if state == "P2-NEXT" else "")
        mark = "X" if state == "P1-NEXT" else "O"
        board = board[:index] + mark + board[index + 1 :]
        won = {board[a] for a, b, c in WINS if board[a] == board[b] == board[c] != "-"}
        if won:
            state = "P1-WIN" if "X" in won else "P2-WIN"
        elif "-" not in board:
            state = "TIE"
        else:
            state = "P2-NEXT" if state == "P1-NEXT" else "P1-NEXT"
        self.state[address] = f"{name},{board},{state},{p1},{p2}".encode()
        return None

    def batch_statuses(self, query: dict[str, str], host: str) -> tuple[int, dict[str, object]]:
        ids = [batch_id for batch_id in query.get("id", "").split(",") if batch_id]
        if not ids:
            raise ApiError(400, 66, "Id Query Invalid or Missing", "Requests for batch statuses need an 'id'.")
        wait = query.get("wait")
        if wait and self.hold_pending:
            held_until = time.monotonic() + min(float(wait), 5.0)
            while time.monotonic() < held_until and any(self.statuses.get(i, ("",))[0] == "PENDING" for i in ids):
                time.sleep(0.02)
        data = []
        for batch_id in ids:
            status, invalid = self.statuses.get(batch_id, ("UNKNOWN", []))
            data.append({"id": batch_id, "invalid_transactions": invalid, "status": status})
        return 200, {"data": data, "link": f"http://{host}/batch_statuses?id={','.join(ids)}"}


    def receipts_of(self, query: dict[str, str], host: str) -> tuple[int, dict[str, object]]:
        ids = [txn_id for txn_id in query.get("id", "").split(",") if txn_id]
        if not ids:
            raise ApiError(400, 83, "Id Query Invalid or Missing", "Requests for receipts need an 'id'.")
        data = []
        for txn_id in ids:
            if txn_id not in self.receipts:
                raise ApiError(404, 80, "Transaction Receipt Not Found", f"There is no receipt for {txn_id}.")
            data.append({"id": txn_id, "state_changes": self.receipts[txn_id], "events": [], "data": []})
        return 200, {"data": data, "link": f"http://{host}/receipts?id={','.join(ids)}"}


class ApiError(Exception):
    def __init__(self, status: int, code: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.title, self.message = status, code, title, message
