"""The OpenAPI document agrees with the server: same routes, statuses per error code, and it is served."""

import json

import pytest
import yaml
from jsonschema import Draft202012Validator

from xo_devnet.rest.app import ROUTES
from xo_devnet.rest.errors import ERROR_KINDS
from xo_devnet.rest.openapi import openapi_document

METHODS = {"get", "post", "put", "patch", "delete"}


def documented_operations() -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in openapi_document()["paths"].items()
        for method in item
        if method in METHODS
    }


def documented_responses():
    document = openapi_document()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, listed in operation["responses"].items():
                response = listed
                if "$ref" in listed:
                    response = document["components"]["responses"][listed["$ref"].rsplit("/", 1)[1]]
                yield method.upper(), path, int(status), response


def test_every_route_is_documented_and_every_documented_route_exists():
    served = {(method, path) for method, path, _ in ROUTES}
    assert served == documented_operations()


def test_each_documented_error_code_has_the_http_status_it_is_listed_under():
    for method, path, status, response in documented_responses():
        for code in response.get("x-error-codes", []):
            assert ERROR_KINDS[code].http_status == status, (method, path, code)


def test_every_error_code_the_api_knows_is_documented_somewhere():
    documented = {code for *_, response in documented_responses() for code in response.get("x-error-codes", [])}
    assert documented == set(ERROR_KINDS)


def test_every_error_response_lists_its_codes():
    for method, path, status, response in documented_responses():
        assert (status < 400) == ("x-error-codes" not in response), (method, path, status)


@pytest.mark.parametrize("name", sorted(openapi_document()["components"]["schemas"]))
def test_every_schema_is_valid_json_schema(name):
    Draft202012Validator.check_schema(openapi_document()["components"]["schemas"][name])


def test_the_document_is_served_as_yaml_and_as_json(api):
    as_yaml = api.get("/openapi.yaml")
    as_json = api.get("/openapi.json")
    assert yaml.safe_load(as_yaml.body) == json.loads(as_json.body) == openapi_document()
    assert openapi_document()["openapi"].startswith("3.1")


def test_status_lists_the_registered_processors_no_peers_and_no_failure(api):
    answer = api.get("/status").json
    processors = [
        {"family": "chips", "version": "1.0"},
        {"family": "rps", "version": "1.0"},
        {"family": "rps", "version": "2.0"},
        {"family": "xo", "version": "1.0"},
    ]
    assert answer == {
        "data": {"endpoint": "", "peers": [], "processors": processors, "failure": None},
        "link": f"{api.url}/status",
    }


def test_a_devnet_has_no_peers(api):
    assert api.get("/peers").json == {"data": [], "link": f"{api.url}/peers"}


def test_unknown_paths_and_methods_are_plain_4xx(api):
    assert api.request("GET", "/nowhere").status == 404
    assert api.request("DELETE", "/blocks").status == 405
