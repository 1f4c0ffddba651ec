"""Query parsing, paging and links, checked without a server: each rule of the Sawtooth REST API in turn."""

import pytest
from aiohttp.test_utils import make_mocked_request

from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.paging import DEFAULT_LIMIT, MAX_LIMIT, Page, paged_envelope, paging_controls, take_page
from xo_devnet.rest.queries import (
    DEFAULT_WAIT_SECONDS,
    MAX_WAIT_SECONDS,
    address_prefix,
    id_query,
    optional_id_filter,
    resource_id,
    state_address,
    wait_seconds,
)
from xo_devnet.rest.urls import build_url

HEAD = "ab" * 64


def error_code(call, *args):
    with pytest.raises(ApiError) as raised:
        call(*args)
    return raised.value.kind.code


def test_without_limit_a_page_holds_the_default_and_paging_echoes_null():
    controls = paging_controls({}, "default")
    assert (controls.start, controls.limit, controls.reverse) == (None, None, False)
    assert controls.page_size == DEFAULT_LIMIT


def test_a_limit_above_the_maximum_is_lowered_to_it():
    assert paging_controls({"limit": str(MAX_LIMIT * 5)}, "default").page_size == MAX_LIMIT


@pytest.mark.parametrize("limit", ["0", "-3", "ten", "", "1.5", "9" * 5000])
def test_a_limit_that_is_not_a_positive_integer_is_error_53(limit):
    assert error_code(paging_controls, {"limit": limit}, "default") == 53


@pytest.mark.parametrize(("value", "reverse"), [("", True), ("true", True), ("block_num", True), ("false", False)])
def test_reverse_accepts_the_forms_sawtooth_clients_send(value, reverse):
    assert paging_controls({"reverse": value}, "block_num").reverse is reverse


def test_reverse_by_another_key_is_error_57():
    assert error_code(paging_controls, {"reverse": "nonce"}, "default") == 57


def test_a_page_ends_where_the_next_one_starts():
    page = take_page(iter([("a", 1), ("b", 2), ("c", 3)]), 2)
    assert page == Page([1, 2], "a", "c")
    assert take_page(iter([("c", 3)]), 2) == Page([3], "c", None)
    assert take_page(iter([]), 2) == Page([], None, None)


def test_links_put_head_start_and_limit_first_then_the_rest_sorted():
    request = make_mocked_request("GET", "/state?zeta=1&address=5b7349&limit=5", headers={"Host": "node:8008"})
    assert build_url(request, head=HEAD, start="5b73490a") == (
        f"http://node:8008/state?head={HEAD}&start=5b73490a&limit=5&address=5b7349&zeta=1"
    )


def test_links_honour_forwarded_headers_from_a_proxy():
    headers = {"Host": "internal:8008", "Forwarded": 'proto=https;host="xo.example"', "X-Forwarded-Path": "/api"}
    request = make_mocked_request("GET", "/blocks", headers=headers)
    assert build_url(request) == "https://xo.example/api/blocks"


def test_links_escape_what_would_break_the_query():
    request = make_mocked_request("GET", "/state?address=a%26b%3Dc", headers={"Host": "h"})
    assert build_url(request) == "http://h/state?address=a%26b%3Dc"


def test_the_last_page_has_no_next_and_echoes_what_was_asked():
    request = make_mocked_request("GET", "/blocks?limit=2", headers={"Host": "h"})
    controls = paging_controls(request.query, "block_num")
    envelope = paged_envelope(request, controls, Page(["x"], "0x0000000000000000", None), ["x"], HEAD)
    assert envelope == {
        "data": ["x"],
        "head": HEAD,
        "link": f"http://h/blocks?head={HEAD}&start=0x0000000000000000&limit=2",
        "paging": {"limit": 2, "start": None},
    }


def test_a_page_with_more_after_it_links_to_the_next_page():
    request = make_mocked_request("GET", "/blocks", headers={"Host": "h"})
    controls = paging_controls(request.query, "block_num")
    envelope = paged_envelope(request, controls, Page([1], "0x0000000000000005", "0x0000000000000004"), [1], HEAD)
    assert envelope["paging"] == {
        "limit": None,
        "start": None,
        "next_position": "0x0000000000000004",
        "next": f"http://h/blocks?head={HEAD}&start=0x0000000000000004",
    }
    assert envelope["link"] == f"http://h/blocks?head={HEAD}&start=0x0000000000000005&limit={DEFAULT_LIMIT}"


@pytest.mark.parametrize("bad", ["", "ab" * 63, "AB" * 64, "gg" * 64, "ab" * 65])
def test_resource_ids_are_128_lowercase_hex_else_error_60(bad):
    assert error_code(resource_id, bad) == 60


def test_error_60_names_the_bad_id():
    with pytest.raises(ApiError) as raised:
        resource_id("nope")
    assert raised.value.message.endswith("nope")


def test_an_id_query_is_split_on_commas_and_each_id_checked():
    assert id_query({"id": f"{HEAD},{'cd' * 64}"}, 66) == [HEAD, "cd" * 64]
    assert error_code(id_query, {}, 66) == 66
    assert error_code(id_query, {"id": ""}, 83) == 83
    assert error_code(id_query, {"id": f"{HEAD},"}, 66) == 60


def test_an_absent_id_filter_means_no_filter():
    assert optional_id_filter({}) is None
    assert optional_id_filter({"id": HEAD}) == [HEAD]


def test_state_addresses_are_70_lowercase_hex_else_error_62():
    assert state_address("5b7349" + "0" * 64) == "5b7349" + "0" * 64
    for bad in ["5b7349", "5B7349" + "0" * 64, "zz" * 35]:
        assert error_code(state_address, bad) == 62


def test_address_prefixes_are_whole_bytes_of_hex():
    assert address_prefix("") == ""
    assert address_prefix("5b7349") == "5b7349"
    for bad in ["5b734", "xo", "5b" * 36]:
        assert error_code(address_prefix, bad) == 62


@pytest.mark.parametrize(
    ("query", "seconds"),
    [
        ({}, None),
        ({"wait": "false"}, None),
        ({"wait": "10"}, 10.0),
        ({"wait": "0.5"}, 0.5),
        ({"wait": "-4"}, 0.0),
        ({"wait": "100000"}, MAX_WAIT_SECONDS),
        ({"wait": ""}, DEFAULT_WAIT_SECONDS),
        ({"wait": "true"}, DEFAULT_WAIT_SECONDS),
        ({"wait": "nan"}, DEFAULT_WAIT_SECONDS),
    ],
)
def test_wait_is_bounded_and_defaults_like_sawtooth(query, seconds):
    assert wait_seconds(query) == seconds
