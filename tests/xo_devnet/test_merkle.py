"""The Merkle-Radix tree: real Sawtooth roots, first-principles encodings, and its algebra."""

import base64
import hashlib

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.xo_devnet.harness import address as kv_address
from tests.xo_devnet.harness import commit, connected, kv_batch, run, running_ledger
from xo_core import block_info
from xo_core.protobuf.block_info_pb2 import BlockInfoConfig
from xo_devnet.chain import header_of
from xo_devnet.merkle import (
    EMPTY_ROOT,
    CorruptState,
    MerkleTree,
    MissingNode,
    encode_node,
    hash_node,
    wrap_value,
)


class MemoryNodes:
    """A node source backed by a dict, the simplest storage there is."""

    def __init__(self) -> None:
        self.nodes: dict[tuple[str, str], bytes] = {}

    def node_bytes(self, key):
        return self.nodes.get(key)

    def node_bytes_many(self, keys):
        return {key: self.nodes[key] for key in keys if key in self.nodes}


def new_tree() -> tuple[MerkleTree, MemoryNodes]:
    nodes = MemoryNodes()
    return MerkleTree(nodes, cache_size=64), nodes


def apply(tree: MerkleTree, nodes: MemoryNodes, root: str, changes: dict) -> str:
    root, new_nodes = tree.update(root, changes)
    nodes.nodes.update(new_nodes)
    return root


# A real Sawtooth 1.0.5 dev-mode network (settings-tp + the reference xo-tp): the state
# after each block, as its REST API listed it, and the state_root_hash of that block.
SETTINGS = (
    "000000a87cb5eafdcca6a8cde0fb0dec1400c5ab274474a6aa82c12840f169a04216b7",
    "CmwKJnNhd3Rvb3RoLnNldHRpbmdzLnZvdGUuYXV0aG9yaXplZF9rZXlzEkIwMzU1MzUwMTE1YjYwNzQ4YzYyZGQ4YzFmZDZiMjdhMWNlOTc3ZmE2"
    "NGNhNTNlNDVmZGVlOTlkMzg5ODM3MWFiMmY=",
)
GAME_1 = (
    "5b73494dde4528d65dd5d88b48a59925f581ec8568b0c12e1449e81930c9a144feea54",
    "Y2FwMTc5NTI2ODc2OSwtLS0tLS0tLS0sUDEtTkVYVCws",
)
GAME_2 = (
    "5b7349f5d52e9509304ffa5323b17c1049d8e1e279acd19f6c2e07a43634442f3f8c7d",
    "cGVuZGNhcDE3OTUyNjg3NjksLS0tLS0tLS0tLFAxLU5FWFQsLA==",
)
GAME_3 = (
    "5b734992524b8b717e0815535ba514c1b8f13daec6f94f72523a5c2f1439aa6f4b84ed",
    "Y2FwMTc5NTI2ODc4OCwtLS0tLS0tLS0sUDEtTkVYVCws",
)
SAWTOOTH_CHAIN = [
    (SETTINGS, "f5a5d63937d5a2e07d4caab8b0e64c89e8e86042de03ec74a5c9d668f63318a1"),
    (GAME_1, "562fbd93ab28f59765b7a240045cb31516367c6ed17fa695ef0cb3a9651a2ab0"),
    (GAME_2, "0a5f45ac8a6e31c0c4a55e09d7a16b19f03cf2f80f81694679e1e1a6d2562d69"),
    (GAME_3, "7b68a63f3ef9d3a1cdf4ae7e9ebf5c254f6646447ae88229aff163fcc41aba8a"),
]


def test_the_empty_tree_has_sawtooths_empty_root():
    assert EMPTY_ROOT == "708ca7fbb701799bb387f2e50deaca402e8502abe229f705693d2d4f350e1ad6"


def test_roots_equal_a_real_sawtooth_validators_block_by_block():
    tree, nodes = new_tree()
    root = EMPTY_ROOT
    for (address, value), expected in SAWTOOTH_CHAIN:
        root = apply(tree, nodes, root, {address: base64.b64decode(value)})
        assert root == expected


def test_the_final_sawtooth_root_does_not_depend_on_how_the_state_was_built():
    tree, nodes = new_tree()
    everything = {address: base64.b64decode(value) for (address, value), _ in SAWTOOTH_CHAIN}
    assert apply(tree, nodes, EMPTY_ROOT, everything) == SAWTOOTH_CHAIN[-1][1]


# First principles: CBOR (RFC 8949) written out byte by byte, without any CBOR library.
def cbor_text(text: str) -> bytes:
    data = text.encode()
    return cbor_head(3, len(data)) + data


def cbor_bytes(data: bytes) -> bytes:
    return cbor_head(2, len(data)) + data


def cbor_head(major: int, length: int) -> bytes:
    if length < 24:
        return bytes([major << 5 | length])
    if length < 256:
        return bytes([major << 5 | 24, length])
    return bytes([major << 5 | 25]) + length.to_bytes(2, "big")


def node(children: dict[str, str], value: bytes | None) -> bytes:
    body = cbor_head(5, len(children)) + b"".join(cbor_text(t) + cbor_text(h) for t, h in sorted(children.items()))
    return cbor_head(5, 2) + cbor_text("c") + body + cbor_text("v") + (b"\xf6" if value is None else cbor_bytes(value))


def sha(data: bytes) -> str:
    return hashlib.sha512(data).hexdigest()[:64]


def expected_root(state: dict[str, bytes]) -> str:
    def build(path: str) -> str:
        if len(path) == 70:
            return sha(node({}, cbor_bytes(state[path])))
        tokens = sorted({address[len(path) : len(path) + 2] for address in state if address.startswith(path)})
        return sha(node({token: build(path + token) for token in tokens}, None))

    return build("")


def test_node_encoding_matches_cbor_written_by_hand():
    children = {"ab": "1" * 64, "0f": "2" * 64}
    assert encode_node(children, None) == node(children, None)
    assert encode_node({}, cbor_bytes(b"x" * 30)) == node({}, cbor_bytes(b"x" * 30))
    assert hash_node(node({}, None)) == EMPTY_ROOT


hex_tokens = st.text("0123456789abcdef", min_size=2, max_size=2)
child_maps = st.dictionaries(hex_tokens, st.text("0123456789abcdef", min_size=64, max_size=64), max_size=40)


@settings(max_examples=100, deadline=None)
@given(child_maps, st.one_of(st.none(), st.binary(max_size=300)))
def test_node_encoding_is_cbor2s_canonical_encoding(children, value):
    assert encode_node(children, value) == cbor2.dumps({"c": children, "v": value}, canonical=True)


@pytest.mark.parametrize("size", [0, 23, 24, 255, 256, 65535, 65536])
def test_values_of_every_length_class_are_wrapped_as_cbor_byte_strings(size):
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert wrap_value(data) == cbor2.dumps(data)
    assert cbor2.loads(encode_node({}, wrap_value(data))) == {"c": {}, "v": cbor2.dumps(data)}


@pytest.mark.parametrize(
    "state",
    [
        {"00" * 35: b""},
        {"ab" * 35: b"v", "ab" * 34 + "cd": b"w" * 300},
        {"00" + "11" * 34: b"1", "01" + "11" * 34: b"2", "ff" * 35: b"3"},
    ],
)
def test_roots_match_a_from_scratch_computation(state):
    tree, nodes = new_tree()
    assert apply(tree, nodes, EMPTY_ROOT, state) == expected_root(state)


# Properties over random states with many shared prefixes.
tokens = st.sampled_from(["00", "01", "a0", "ff"])
addresses = st.builds(lambda head, tail: "".join(head) + tail, st.lists(tokens, min_size=3, max_size=3),
                      st.text("0123456789abcdef", min_size=64, max_size=64))
states = st.dictionaries(addresses, st.binary(max_size=40), max_size=12)


@settings(max_examples=60, deadline=None)
@given(states, st.randoms(use_true_random=False))
def test_insertion_order_does_not_change_the_root(state, random):
    tree, nodes = new_tree()
    items = list(state.items())
    random.shuffle(items)
    root = EMPTY_ROOT
    for address, value in items:
        root = apply(tree, nodes, root, {address: value})
    assert root == apply(tree, nodes, EMPTY_ROOT, state) == expected_root(state)


@settings(max_examples=60, deadline=None)
@given(states, states)
def test_deleting_what_was_added_restores_the_previous_root(before, added):
    tree, nodes = new_tree()
    added = {address: value for address, value in added.items() if address not in before}
    root = apply(tree, nodes, EMPTY_ROOT, before)
    grown = apply(tree, nodes, root, added)
    assert apply(tree, nodes, grown, dict.fromkeys(added)) == root


@settings(max_examples=40, deadline=None)
@given(states, st.sampled_from(["", "0", "00", "a0ff", "ff00a"]), st.integers(min_value=1, max_value=5))
def test_listing_pages_through_a_prefix_in_address_order(state, prefix, page):
    tree, nodes = new_tree()
    root = apply(tree, nodes, EMPTY_ROOT, state)
    expected = sorted((address, value) for address, value in state.items() if address.startswith(prefix))
    listed, start = [], None
    for _ in range(len(expected) + 1):
        chunk = []
        for entry in tree.leaves(root, prefix, start):
            if len(chunk) == page:
                start = entry[0]
                break
            chunk.append(entry)
        else:
            start = None
        listed += chunk
        if start is None:
            break
    assert listed == expected
    for address, value in state.items():
        assert tree.get(root, address) == value


def test_reads_at_an_old_root_still_see_the_old_state():
    tree, nodes = new_tree()
    first = apply(tree, nodes, EMPTY_ROOT, {"aa" * 35: b"old"})
    second = apply(tree, nodes, first, {"aa" * 35: b"new", "bb" * 35: b"more"})
    assert tree.get(first, "aa" * 35) == b"old"
    assert tree.get(first, "bb" * 35) is None
    assert tree.get(second, "aa" * 35) == b"new"


def test_deleting_an_absent_address_changes_nothing():
    tree, nodes = new_tree()
    root = apply(tree, nodes, EMPTY_ROOT, {"aa" * 35: b"x"})
    assert apply(tree, nodes, root, {"ab" * 35: None}) == root
    assert apply(tree, nodes, root, {"aa" * 35: None}) == EMPTY_ROOT


def test_verify_counts_leaves_and_catches_tampering():
    tree, nodes = new_tree()
    root = apply(tree, nodes, EMPTY_ROOT, {"aa" * 35: b"x", "ab" * 35: b"x", "cc" * 35: b"y"})
    assert MerkleTree(nodes).verify(root) == 3
    victim = next(key for key, data in nodes.nodes.items() if b"y" in data)
    nodes.nodes[victim] = nodes.nodes[victim].replace(b"y", b"z")
    with pytest.raises(CorruptState, match="does not hash"):
        MerkleTree(nodes).verify(root)
    del nodes.nodes[victim]
    with pytest.raises(CorruptState, match="missing"):
        MerkleTree(nodes).verify(root)


def test_an_unknown_root_is_a_missing_node():
    tree, _ = new_tree()
    with pytest.raises(MissingNode):
        tree.get("12" * 32, "aa" * 35)


def test_with_blockinfo_in_state_and_pruned_the_root_is_still_the_one_of_its_entries():
    """A chain long enough for the block_info processor to prune: the root is computed from the entries alone."""

    async def scenario():
        async with running_ledger(block_interval=0.001) as ledger, connected(ledger):
            blocks = block_info.DEFAULT_TARGET_COUNT + 3
            for number in range(blocks):
                assert await commit(ledger, kv_batch(set={kv_address(number % 5): str(number)})) == ["COMMITTED"]
            head = header_of(ledger.chain_head())
            entries, more = ledger.state_list("", head.state_root_hash, None, 1_000)
            assert more is None
            state = dict(entries)
            config = BlockInfoConfig.FromString(state[block_info.CONFIG_ADDRESS])
            assert (config.latest_block, config.oldest_block) == (blocks - 1, blocks - 1 - config.target_count)
            described = sorted(entry for entry in state if entry.startswith(block_info.BLOCK_NAMESPACE))
            assert described == [block_info.block_address(n) for n in range(config.oldest_block, blocks)]
            assert expected_root(state) == head.state_root_hash

    run(scenario)
