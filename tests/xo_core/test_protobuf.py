"""Our wire messages (package xo.wire) against the installed sawtooth-sdk's: same fields and enum values.

Same field names, numbers, types and repetition, same enum value numbers.

The SDK's generated modules only import with the pure-Python protobuf runtime, so
they are described in a child process and compared with ours here.
"""

import importlib
import json
import os
import subprocess
import sys

import pytest
from google.protobuf.descriptor import Descriptor, EnumDescriptor

MODULES = [
    "batch",
    "block",
    "client_event",
    "events",
    "network",
    "processor",
    "state_context",
    "transaction",
    "transaction_receipt",
    "validator",
]

_DESCRIBE = """
import json, sys, importlib

def name(full):
    return full.split("xo.wire.", 1)[-1]

def enum(descriptor):
    return {value.name: value.number for value in descriptor.values}

def kind(field):
    named = field.message_type or field.enum_type
    return name(named.full_name) if named else ""

def message(descriptor, into):
    into[name(descriptor.full_name)] = {
        "fields": {
            field.name: [field.number, field.type, field.is_repeated, kind(field)] for field in descriptor.fields
        },
        "enums": {item.name: enum(item) for item in descriptor.enum_types},
    }
    for nested in descriptor.nested_types:
        message(nested, into)

described = {}
for module_name in sys.argv[2:]:
    module = importlib.import_module(f"{sys.argv[1]}.{module_name}_pb2")
    for descriptor in module.DESCRIPTOR.message_types_by_name.values():
        message(descriptor, described)
print(json.dumps(described))
"""


def describe(package: str) -> dict:
    environment = {**os.environ, "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION": "python"}
    output = subprocess.run(
        [sys.executable, "-c", _DESCRIBE, package, *MODULES],
        check=True,
        capture_output=True,
        text=True,
        env=environment,
    ).stdout
    return json.loads(output)


@pytest.fixture(scope="module")
def sdk() -> dict:
    return describe("sawtooth_sdk.protobuf")


@pytest.fixture(scope="module")
def ours() -> dict:
    return describe("xo_core.protobuf")


def test_every_message_we_define_is_one_of_the_sdks(ours, sdk):
    assert set(ours) <= set(sdk)


def test_every_field_has_the_sdks_number_type_and_repetition(ours, sdk):
    for message, described in ours.items():
        for field, shape in described["fields"].items():
            assert sdk[message]["fields"].get(field) == shape, f"{message}.{field}"


def test_every_enum_value_has_the_sdks_number(ours, sdk):
    for message, described in ours.items():
        for enum, values in described["enums"].items():
            expected = sdk[message]["enums"][enum]
            assert {name: expected.get(name) for name in values} == values, f"{message}.{enum}"


@pytest.mark.parametrize("module", ["client_event", "events"])
def test_the_event_messages_are_complete(ours, sdk, module):
    mine = importlib.import_module(f"xo_core.protobuf.{module}_pb2")
    for descriptor in mine.DESCRIPTOR.message_types_by_name.values():
        assert ours[descriptor.name] == sdk[descriptor.name], descriptor.name


def test_the_client_event_message_types_are_sawtooths():
    from xo_core.protobuf.validator_pb2 import Message  # noqa: PLC0415

    enum: EnumDescriptor = Message.DESCRIPTOR.enum_types_by_name["MessageType"]
    numbers = {value.name: value.number for value in enum.values if value.name.startswith("CLIENT_EVENTS")}
    assert numbers == {
        "CLIENT_EVENTS_SUBSCRIBE_REQUEST": 500,
        "CLIENT_EVENTS_SUBSCRIBE_RESPONSE": 501,
        "CLIENT_EVENTS_UNSUBSCRIBE_REQUEST": 502,
        "CLIENT_EVENTS_UNSUBSCRIBE_RESPONSE": 503,
        "CLIENT_EVENTS": 504,
        "CLIENT_EVENTS_GET_REQUEST": 505,
        "CLIENT_EVENTS_GET_RESPONSE": 506,
    }
    assert isinstance(Message.DESCRIPTOR, Descriptor)
