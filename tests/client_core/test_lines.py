"""``client_core.lines``: lines from a file descriptor, read on a thread, as a person or a script sends them."""

from __future__ import annotations

import os
import queue

from client_core.lines import MAX_LINE_BYTES, LineReader


def read_all(*chunks: bytes) -> list[str | None]:
    """Everything a reader delivers for ``chunks`` written to a pipe, then the pipe closed."""
    read_end, write_end = os.pipe()
    lines: queue.Queue[str | None] = queue.Queue()
    LineReader(read_end, lines.put).start()
    for chunk in chunks:
        os.write(write_end, chunk)
    os.close(write_end)
    delivered: list[str | None] = []
    while not delivered or delivered[-1] is not None:
        delivered.append(lines.get(timeout=5))
    os.close(read_end)
    return delivered


def test_each_line_is_delivered_without_its_break_then_none_at_the_end():
    assert read_all(b"5\nb2\r\n", b"q\n") == ["5", "b2", "q", None]


def test_a_line_split_across_writes_is_one_line_and_a_last_line_without_a_break_counts():
    assert read_all(b"A", b"1\n", b"9") == ["A1", "9", None]


def test_bytes_that_are_not_utf8_are_replaced_not_fatal():
    assert read_all(b"\xff5\n") == ["\ufffd5", None]


def test_input_without_line_breaks_is_cut_into_bounded_lines():
    delivered = read_all(b"x" * (2 * MAX_LINE_BYTES + 10))
    assert [len(line) for line in delivered[:-1]] == [MAX_LINE_BYTES, MAX_LINE_BYTES, 10]


def test_empty_input_is_just_the_end():
    assert read_all() == [None]
