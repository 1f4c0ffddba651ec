"""POST /batches and /batch_statuses against a running devnet: accepted, decided, and every refusal code."""

import base64
import hashlib

import pytest

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list, make_transaction
from xo_core.protobuf.batch_pb2 import Batch, BatchHeader, BatchList
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import Signer
from xo_devnet.rest.server import MAX_REQUEST_LINE_BYTES
from xo_devnet.validation import MAX_BODY_BYTES, validate_batches
from xo_tp.family import game_address

UNKNOWN_ID = "0f" * 64
JSON_ID_ROUTES = [("/batch_statuses", 46), ("/receipts", 82)]


def test_a_valid_batch_is_accepted_with_a_link_to_its_status(api, player, game_name, make_xo_batch):
    batch = make_xo_batch(player, game_name, "create")
    answer = api.submit(batch)
    assert answer.status == 202
    assert answer.json == {"link": f"{api.url}/batch_statuses?id={batch.header_signature}"}
    statuses = api.get(f"/batch_statuses?id={batch.header_signature}&wait=60").json["data"]
    assert statuses == [{"id": batch.header_signature, "invalid_transactions": [], "status": "COMMITTED"}]


def test_several_batches_in_one_list_are_linked_together_in_order(api, player, game_name, make_xo_batch):
    batches = [make_xo_batch(player, f"{game_name}-{n}", "create") for n in range(3)]
    answer = api.submit(*batches)
    ids = ",".join(batch.header_signature for batch in batches)
    assert answer.json["link"] == f"{api.url}/batch_statuses?id={ids}"
    statuses = api.get(f"/batch_statuses?id={ids}&wait=60").json
    assert [status["id"] for status in statuses["data"]] == [batch.header_signature for batch in batches]
    assert {status["status"] for status in statuses["data"]} == {"COMMITTED"}
    assert statuses["link"] == f"{api.url}/batch_statuses?id={ids}&wait=60"


def test_a_move_the_rules_refuse_is_accepted_then_invalid_with_the_reason(api, player, game_name, make_xo_batch):
    batch = make_xo_batch(player, game_name, "take", 3)
    (status,) = api.submit_and_wait(batch)
    assert status["status"] == "INVALID"
    (reason,) = status["invalid_transactions"]
    assert reason["id"] == batch.transactions[0].header_signature
    assert game_name in reason["message"]


def test_statuses_can_be_asked_for_in_a_json_body(api, player, game_name, make_xo_batch):
    committed = make_xo_batch(player, game_name, "create")
    api.submit_and_wait(committed)
    answer = api.post_json("/batch_statuses", [committed.header_signature, UNKNOWN_ID])
    assert answer.status == 200
    assert answer.json == {
        "data": [
            {"id": committed.header_signature, "invalid_transactions": [], "status": "COMMITTED"},
            {"id": UNKNOWN_ID, "invalid_transactions": [], "status": "UNKNOWN"},
        ]
    }


def test_an_unknown_batch_is_unknown_at_once_even_when_waiting(api):
    answer = api.get(f"/batch_statuses?id={UNKNOWN_ID}&wait=30")
    assert answer.json["data"] == [{"id": UNKNOWN_ID, "invalid_transactions": [], "status": "UNKNOWN"}]


def test_batch_status_requests_without_ids_are_error_66(api):
    assert api.get("/batch_statuses").error_code == 66
    assert api.get("/batch_statuses?id=").error_code == 66


def test_batch_status_requests_with_a_malformed_id_are_error_60(api):
    answer = api.get("/batch_statuses?id=xyz")
    assert (answer.status, answer.error_code) == (400, 60)
    assert answer.json["error"]["message"].endswith("xyz")
    assert api.post_json("/batch_statuses", ["xyz"]).error_code == 60


def test_posted_status_requests_need_json(api):
    assert api.post("/batch_statuses", b'["' + UNKNOWN_ID.encode() + b'"]', "text/plain").error_code == 43
    for body in (b"", b"not json", b"[]", b'{"id": 1}', b"[1, 2]", b'"' + UNKNOWN_ID.encode() + b'"'):
        assert api.post("/batch_statuses", body, "application/json").error_code == 46, body


def test_a_body_that_is_not_a_batch_list_is_error_35(api):
    answer = api.post("/batches", b"garbage")
    assert (answer.status, answer.error_code) == (400, 35)
    assert api.post("/batches", b"this is not a protobuf BatchList").error_code == 35


def test_an_empty_body_or_an_empty_batch_list_is_error_34(api):
    assert api.post("/batches", b"").error_code == 34
    assert api.post("/batches", b"\x10\x01").error_code == 34


def test_batches_must_be_sent_as_octet_stream_error_42(api, player, game_name, make_xo_batch):
    body = make_batch_list([make_xo_batch(player, game_name, "create")])
    assert api.post("/batches", body, "application/json").error_code == 42
    assert api.post("/batches", body, None).error_code == 42


@pytest.mark.parametrize("content_type", ["", " ", "; charset=binary", "application/octet-streamx", "octet-stream"])
def test_an_empty_or_other_content_type_is_error_42_even_for_a_valid_batch_list(
    api, player, game_name, make_xo_batch, content_type
):
    body = make_batch_list([make_xo_batch(player, game_name, "create")])
    answer = api.post("/batches", body, content_type)
    assert (answer.status, answer.error_code) == (400, 42)


def test_the_octet_stream_media_type_is_matched_ignoring_case_and_parameters(api, player, game_name, make_xo_batch):
    """Deliberately more lenient than Sawtooth's exact string comparison (docs/rest-api.md: differs on purpose)."""
    batch = make_xo_batch(player, game_name, "create")
    assert api.post("/batches", make_batch_list([batch]), "Application/Octet-Stream; charset=binary").status == 202


def test_a_batcher_key_that_is_not_the_batch_signer_is_error_30(api, player, game_name):
    other = Signer.generate()
    transaction = make_xo_transaction(other, game_name, "create")
    answer = api.submit(make_batch(player, [transaction]))
    assert (answer.status, answer.error_code) == (400, 30)
    message = answer.json["error"]["message"]
    assert f"batcher_public_key {other.public_key[:16]}... is not the batch signer {player.public_key[:16]}" in message


def test_transaction_ids_that_do_not_list_the_transactions_in_order_are_error_30(api, player, game_name):
    first, second = (make_xo_transaction(player, f"{game_name}-{n}", "create") for n in range(2))
    header = BatchHeader(
        signer_public_key=player.public_key, transaction_ids=[second.header_signature, first.header_signature]
    ).SerializeToString()
    batch = Batch(header=header, header_signature=player.sign(header), transactions=[first, second])
    answer = api.submit(batch)
    assert (answer.status, answer.error_code) == (400, 30)
    assert "header transaction_ids" in answer.json["error"]["message"]
    assert "do not match the transactions it holds, in order" in answer.json["error"]["message"]


@pytest.mark.parametrize(("family", "version"), [("intkey", "1.0"), ("xo", "2.0")])
def test_a_family_or_version_the_devnet_does_not_accept_is_error_30_naming_it(api, player, game_name, family, version):
    """Such a batch would wait forever for a processor, holding back every XO batch behind it."""
    stranger = make_transaction(
        player, f"{game_name},create,".encode(), family_name=family, family_version=version,
        inputs=["5b7349"], outputs=["5b7349"],
    )  # fmt: skip
    batch = make_batch(player, [stranger])
    answer = api.submit(batch)
    assert (answer.status, answer.error_code) == (400, 30)
    accepted = "chips 1.0, rps 1.0, rps 2.0, xo 1.0"
    refusal = f"transaction family {family} {version} is not accepted by this ledger (it accepts {accepted})"
    assert refusal in answer.json["error"]["message"]
    assert api.get(f"/batch_statuses?id={batch.header_signature}").json["data"][0]["status"] == "UNKNOWN"
    assert api.submit_and_wait(make_xo_batch_for(player, game_name))[0]["status"] == "COMMITTED"


def make_xo_batch_for(player: Signer, game_name: str) -> Batch:
    return make_batch(player, [make_xo_transaction(player, game_name, "create")])


def test_a_transaction_twice_in_one_submission_is_error_30_and_nothing_is_queued(api, player, game_name):
    transaction = make_xo_transaction(player, game_name, "create")
    twice_in_a_batch = make_batch(player, [transaction, transaction])
    other = make_xo_transaction(player, f"{game_name}-other", "create")
    in_two_batches = [make_batch(player, [transaction]), make_batch(player, [other, transaction])]
    for batches in ([twice_in_a_batch], in_two_batches):
        answer = api.submit(*batches)
        assert (answer.status, answer.error_code) == (400, 30)
        assert f"transaction {transaction.header_signature[:16]}... appears twice" in answer.json["error"]["message"]
        ids = ",".join(batch.header_signature for batch in batches)
        assert {status["status"] for status in api.get(f"/batch_statuses?id={ids}").json["data"]} == {"UNKNOWN"}


@pytest.mark.parametrize(("path", "code"), JSON_ID_ROUTES)
def test_json_nested_too_deep_to_decode_is_a_bad_body_not_a_crash(api, path, code):
    answer = api.post(path, b"[" * 100_000 + b"]" * 100_000, "application/json")
    assert (answer.status, answer.error_code) == (400, code)


@pytest.mark.parametrize(("path", "code"), JSON_ID_ROUTES)
def test_a_json_body_over_10_mib_is_a_bad_body_with_a_sawtooth_error(api, path, code):
    answer = api.post(path, b"[" + b" " * MAX_BODY_BYTES + b"]", "application/json")
    assert (answer.status, answer.content_type, answer.error_code) == (400, "application/json", code)
    assert str(MAX_BODY_BYTES) in answer.json["error"]["message"]


@pytest.mark.parametrize(("path", "code"), JSON_ID_ROUTES)
def test_a_chunked_json_body_growing_over_10_mib_is_a_bad_body_too(api, path, code):
    data = b"[" + b" " * MAX_BODY_BYTES + b"]"
    chunked = b"%x\r\n%b\r\n0\r\n\r\n" % (len(data), data)
    headers = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    answer = api.request("POST", path, chunked, headers)
    assert (answer.status, answer.error_code) == (400, code)
    assert str(MAX_BODY_BYTES) in answer.json["error"]["message"]


def test_a_json_body_of_exactly_10_mib_is_read(api):
    padding = b" " * (MAX_BODY_BYTES - len(UNKNOWN_ID) - 4)
    body = b'["' + UNKNOWN_ID.encode() + b'"]' + padding
    assert len(body) == MAX_BODY_BYTES
    assert api.post("/batch_statuses", body, "application/json").json["data"][0]["status"] == "UNKNOWN"


def smallest_valid_batch(signer: Signer) -> Batch:
    """A batch with one transaction and nothing optional: no family, inputs, outputs, nonce or payload."""
    header = TransactionHeader(
        signer_public_key=signer.public_key,
        batcher_public_key=signer.public_key,
        payload_sha512=hashlib.sha512(b"").hexdigest(),
    ).SerializeToString()
    return make_batch(signer, [Transaction(header=header, header_signature=signer.sign(header))])


def test_the_status_link_of_the_largest_acceptable_batch_list_fits_the_request_line():
    batch = smallest_valid_batch(Signer.generate())
    validate_batches([batch])
    most_batches = MAX_BODY_BYTES // len(make_batch_list([batch]))
    request_line = f"GET /batch_statuses?id={','.join([batch.header_signature] * most_batches)}&wait=300 HTTP/1.1"
    assert len(request_line) < MAX_REQUEST_LINE_BYTES


def test_a_get_naming_as_many_ids_as_a_status_link_can_hold_is_answered(api):
    ids = [f"{n:0128x}" for n in range(MAX_BODY_BYTES // 700)]
    answer = api.get(f"/batch_statuses?id={','.join(ids)}")
    assert answer.status == 200
    assert [status["id"] for status in answer.json["data"]] == ids


def test_a_bad_signature_is_error_30_naming_the_fault(api, player, game_name, make_xo_batch):
    batch = make_xo_batch(player, game_name, "create")
    forged = Batch(header=batch.header, header_signature="ab" * 64, transactions=batch.transactions)
    answer = api.submit(forged)
    assert (answer.status, answer.error_code) == (400, 30)
    assert "header_signature is not a valid signature" in answer.json["error"]["message"]
    assert api.get(f"/batch_statuses?id={'ab' * 64}").json["data"][0]["status"] == "UNKNOWN"


def test_a_payload_that_does_not_match_its_hash_is_error_30(api, player, game_name, make_xo_batch):
    batch = make_xo_batch(player, game_name, "create")
    batch.transactions[0].payload = f"{game_name},take,5".encode()
    answer = api.submit(batch)
    assert answer.error_code == 30
    assert "payload_sha512" in answer.json["error"]["message"]


def test_a_batch_submitted_twice_is_error_30_and_nothing_changes(api, player, game_name, make_xo_batch):
    batch = make_xo_batch(player, game_name, "create")
    api.submit_and_wait(batch)
    answer = api.submit(batch)
    assert answer.error_code == 30
    assert "already" in answer.json["error"]["message"]


def test_a_transaction_reused_in_a_new_batch_is_error_30(api, player, game_name):
    transaction = make_xo_transaction(player, game_name, "create")
    api.submit_and_wait(make_batch(player, [transaction]))
    answer = api.submit(make_batch(player, [make_xo_transaction(player, f"{game_name}-new", "create"), transaction]))
    assert answer.error_code == 30
    assert transaction.header_signature in answer.json["error"]["message"]


def test_one_bad_batch_refuses_the_whole_list(api, player, game_name, make_xo_batch):
    good = make_xo_batch(player, game_name, "create")
    bad = make_xo_batch(player, f"{game_name}-bad", "create")
    bad.transactions[0].payload = b"tampered"
    assert api.submit(good, bad).error_code == 30
    assert api.get(f"/batch_statuses?id={good.header_signature}").json["data"][0]["status"] == "UNKNOWN"


def test_a_body_over_10_mib_is_error_30(api, player, game_name):
    payload = b"x" * (MAX_BODY_BYTES + 1)
    transaction = Transaction(header=b"", header_signature="ab" * 64, payload=payload)
    body = BatchList(batches=[Batch(header=b"", header_signature="cd" * 64, transactions=[transaction])])
    answer = api.post("/batches", body.SerializeToString())
    assert (answer.status, answer.error_code) == (400, 30)
    assert str(MAX_BODY_BYTES) in answer.json["error"]["message"]


def test_a_body_just_under_the_limit_is_read_and_judged_on_its_merits(api, player):
    payload = b"x" * (MAX_BODY_BYTES - 4096)
    transaction = make_xo_transaction(player, "big", "create")
    transaction.payload = payload
    batch = make_batch(player, [transaction])
    answer = api.submit(batch)
    assert answer.error_code == 30
    assert "payload_sha512" in answer.json["error"]["message"]
    assert api.get(f"/batch_statuses?id={batch.header_signature}").json["data"][0]["status"] == "UNKNOWN"


def test_the_game_really_is_in_state_after_commit(api, player, game_name, make_xo_batch):
    api.submit_and_wait(make_xo_batch(player, game_name, "create"))
    answer = api.get(f"/state/{game_address(game_name)}")
    assert answer.status == 200
    assert base64.b64decode(answer.json["data"]) == f"{game_name},---------,P1-NEXT,,".encode()
