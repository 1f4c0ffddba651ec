"""A running xo-devnet (with its xo-tp) and an HTTP client that checks every answer against our OpenAPI document.

Every request a REST test makes goes through ``Api``: whatever the test asserts,
the answer must also be what the OpenAPI document promises for that route and
status (schema, and for errors, one of the listed codes), and never a 5xx.
"""

from __future__ import annotations

import http.client
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.signing import Signer
from xo_devnet.rest.openapi import openapi_document
from xo_devnet.spawn import DevnetProcess

DOCUMENT_URI = "urn:xo-devnet:openapi"


@dataclass
class Answer:
    status: int
    content_type: str
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def error_code(self) -> int | None:
        document = self.json
        return document["error"]["code"] if isinstance(document, dict) and "error" in document else None


class OpenApiChecker:
    """Finds the documented response of a request and validates an answer against it."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self._registry = Registry().with_resource(DOCUMENT_URI, Resource(document, DRAFT202012))
        self._templates = [
            (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"), template)
            for template in document["paths"]
        ]

    def template_of(self, path: str) -> str | None:
        return next((template for pattern, template in self._templates if pattern.match(path)), None)

    def check(self, method: str, path: str, answer: Answer) -> None:
        template = self.template_of(path)
        if template is None:
            assert answer.status == 404, f"{path} is undocumented but answered {answer.status}"
            return
        operation = self.document["paths"][template].get(method.lower())
        if operation is None:
            assert answer.status == 405, f"{method} {template} is undocumented but answered {answer.status}"
            return
        responses = operation["responses"]
        assert str(answer.status) in responses, f"{method} {template} answered {answer.status}, not documented"
        response = self._resolve(responses[str(answer.status)])
        media_type = next(iter(response["content"]))
        assert answer.content_type == media_type, f"{method} {template} answered {answer.content_type}"
        if media_type != "application/json":
            return
        pointer = "/".join(
            part.replace("~", "~0").replace("/", "~1")
            for part in ("paths", template, method.lower(), "responses", str(answer.status), "content", media_type)
        )
        if "$ref" in responses[str(answer.status)]:
            pointer = responses[str(answer.status)]["$ref"].lstrip("#/") + "/content/application~1json"
        schema = {"$ref": f"{DOCUMENT_URI}#/{pointer}/schema"}
        errors = sorted(Draft202012Validator(schema, registry=self._registry).iter_errors(answer.json), key=str)
        assert not errors, f"{method} {template} {answer.status} breaks its schema: {errors[0]}"
        if answer.status >= 400:
            assert answer.error_code in response["x-error-codes"], (
                f"{method} {template} answered code {answer.error_code}, not in {response['x-error-codes']}"
            )

    def _resolve(self, item: dict[str, Any]) -> dict[str, Any]:
        if "$ref" not in item:
            return item
        node: Any = self.document
        for part in item["$ref"].lstrip("#/").split("/"):
            node = node[part]
        return node


class Api:
    """A small HTTP client for one REST API; each answer is checked against the OpenAPI document."""

    def __init__(self, url: str, checker: OpenApiChecker, *, allow_server_errors: bool = False) -> None:
        parts = urlsplit(url)
        self.url = url
        self.allow_server_errors = allow_server_errors
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.checker = checker

    def request(
        self, method: str, target: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Answer:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            connection.request(method, target, body=body, headers=headers or {})
            response = connection.getresponse()
            answer = Answer(response.status, response.headers.get_content_type(), response.read())
        finally:
            connection.close()
        if not self.allow_server_errors:
            assert answer.status < 500, f"{method} {target} answered {answer.status}: {answer.body[:500]!r}"
        self.checker.check(method, urlsplit(target).path, answer)
        return answer

    def get(self, target: str) -> Answer:
        return self.request("GET", target)

    def post(self, target: str, body: bytes, content_type: str | None = "application/octet-stream") -> Answer:
        """POST ``body``; ``content_type`` None sends no Content-Type header, "" sends an empty one."""
        return self.request("POST", target, body, {"Content-Type": content_type} if content_type is not None else {})

    def post_json(self, target: str, document: Any) -> Answer:
        return self.post(target, json.dumps(document).encode(), "application/json")

    def submit(self, *batches: Batch) -> Answer:
        return self.post("/batches", make_batch_list(batches))

    def submit_and_wait(self, *batches: Batch) -> list[dict[str, Any]]:
        """Submit, wait until decided, and return the statuses (asserting that none is still PENDING)."""
        answer = self.submit(*batches)
        assert answer.status == 202, answer.body
        ids = ",".join(batch.header_signature for batch in batches)
        statuses = self.get(f"/batch_statuses?id={ids}&wait=60").json["data"]
        assert all(status["status"] != "PENDING" for status in statuses), statuses
        return statuses


@pytest.fixture(scope="session")
def openapi_checker() -> OpenApiChecker:
    return OpenApiChecker(openapi_document())


@pytest.fixture(scope="session")
def devnet():
    """One ephemeral xo-devnet with its xo-tp for the REST tests of this worker; tests use unique game names."""
    with DevnetProcess() as running:
        yield running


@pytest.fixture(scope="session")
def api(devnet: DevnetProcess, openapi_checker: OpenApiChecker) -> Api:
    return Api(devnet.rest_url, openapi_checker)


@pytest.fixture(scope="session")
def api_for(openapi_checker: OpenApiChecker):
    """``api_for(url, allow_server_errors=False)``: a checked client for another REST API."""

    def make(url: str, *, allow_server_errors: bool = False) -> Api:
        return Api(url, openapi_checker, allow_server_errors=allow_server_errors)

    return make


@pytest.fixture
def player() -> Signer:
    return Signer.generate()


@pytest.fixture
def game_name() -> str:
    return f"game-{uuid.uuid4().hex[:12]}"


def xo_batch(signer: Signer, name: str, action: str, space: int | None = None) -> Batch:
    return make_batch(signer, [make_xo_transaction(signer, name, action, space)])


@pytest.fixture
def make_xo_batch():
    """Builds a signed one-transaction XO batch: ``make_xo_batch(signer, name, action, space=None)``."""
    return xo_batch
