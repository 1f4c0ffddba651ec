"""Log lines: whatever text a message quotes, each record is one line with no character a terminal acts on."""

import io
import logging
import sys

from xo_core.logs import PrintableFormatter, configure


def formatted(message, *args, exc_info=None):
    record = logging.LogRecord("xo_devnet.ledger", logging.INFO, __file__, 1, message, args, exc_info)
    return PrintableFormatter("%(levelname)s %(message)s").format(record)


def test_a_message_quoting_hostile_text_stays_one_escaped_line():
    line = formatted("batch %s is invalid: %s", "abc", "game 'x'\n[2026-01-01 INFO forged] \x1b[2J\u202e")
    assert line == "INFO batch abc is invalid: game 'x'\\x0a[2026-01-01 INFO forged] \\x1b[2J\\u202e"


def test_text_already_escaped_by_the_processor_is_not_escaped_twice():
    assert formatted("rejected: %s", "game '\\x1b[31mred'") == "INFO rejected: game '\\x1b[31mred'"


def test_a_traceback_keeps_its_lines():
    try:
        raise ValueError("boom")
    except ValueError:
        line = formatted("failed", exc_info=sys.exc_info())
    assert line.startswith("INFO failed\nTraceback")


def test_configure_writes_escaped_lines_to_the_stream(monkeypatch):
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)
    stream = io.StringIO()
    configure(stream, logging.INFO)
    logging.getLogger("xo_tp").warning("name %s", "a\nb")
    assert stream.getvalue().endswith("WARNING xo_tp] name a\\x0ab\n")
