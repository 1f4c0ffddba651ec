"""BlockInfo's addresses and messages, checked against Sawtooth's own definitions."""

import ast
from importlib.util import find_spec
from pathlib import Path

import pytest
from google.protobuf.descriptor_pb2 import FileDescriptorProto

from xo_core import block_info
from xo_core.protobuf import block_info_pb2


def sawtooth_descriptor() -> FileDescriptorProto:
    """The descriptor of the sawtooth-sdk's ``block_info.proto``, read from its generated module's source.

    The SDK's modules were generated for protobuf 3 and no longer import under the
    runtime we pin, but the serialized descriptor they hold is still Sawtooth's word.
    """
    spec = find_spec("sawtooth_sdk")
    assert spec is not None and spec.origin is not None
    source = Path(spec.origin).parent / "protobuf" / "block_info_pb2.py"
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "serialized_pb":
            literal = node.value.args[0] if isinstance(node.value, ast.Call) else node.value
            assert isinstance(literal, ast.Constant)
            value = literal.value
            return FileDescriptorProto.FromString(value.encode("latin1") if isinstance(value, str) else value)
    raise AssertionError(f"no serialized descriptor in {source}")


def test_the_config_lives_at_the_zero_address_of_the_metadata_namespace():
    assert block_info.CONFIG_ADDRESS == "00b10c01" + "0" * 62
    assert len(block_info.CONFIG_ADDRESS) == 70


@pytest.mark.parametrize(
    ("block_num", "address"),
    [
        (0, "00b10c00" + "0" * 62),
        (41, "00b10c00" + "0" * 60 + "29"),
        (2**64 - 1, "00b10c00" + "0" * 46 + "f" * 16),
    ],
)
def test_block_addresses_are_the_block_number_in_hex_padded_to_62_digits(block_num, address):
    assert block_info.block_address(block_num) == address
    assert address.startswith(block_info.BLOCK_NAMESPACE)


@pytest.mark.parametrize("block_num", [-1, 16**62])
def test_a_block_number_without_an_address_is_refused(block_num):
    with pytest.raises(ValueError, match="has no BlockInfo address"):
        block_info.block_address(block_num)


@pytest.mark.parametrize("message", ["BlockInfoConfig", "BlockInfo", "BlockInfoTxn"])
def test_our_messages_have_sawtooths_fields_numbers_and_types(message):
    ours = getattr(block_info_pb2, message).DESCRIPTOR
    (theirs,) = [proto for proto in sawtooth_descriptor().message_type if proto.name == message]
    assert ours.full_name == f"xo.wire.{message}"
    assert [(f.name, f.number, f.type) for f in ours.fields] == [(f.name, f.number, f.type) for f in theirs.field]


def test_a_block_info_round_trips():
    written = block_info_pb2.BlockInfoTxn(
        block=block_info_pb2.BlockInfo(block_num=41, header_signature="cd" * 64, timestamp=1_700_000_000)
    )
    read = block_info_pb2.BlockInfoTxn.FromString(written.SerializeToString()).block
    assert (read.block_num, read.header_signature, read.timestamp) == (41, "cd" * 64, 1_700_000_000)
