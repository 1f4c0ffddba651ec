"""Tables and key labels, as every client command shows them to people."""

from client_core.keys import KeyNames, key_label
from client_core.tables import table
from xo_core.text import short_key

KEY = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"


def test_columns_are_as_wide_as_their_widest_cell_in_terminal_columns():
    rows = [("GAME", "STATE"), ("囲碁", "PLAYING"), ("a-long-name", "X")]
    assert table(rows).splitlines() == [
        "GAME         STATE",
        "囲碁         PLAYING",
        "a-long-name  X",
    ]
    assert table([]) == ""


def test_a_key_is_shown_by_its_name_alone_from_the_key_directory_else_cut_short():
    names = KeyNames({KEY: "alice"})
    assert key_label(KEY, names) == "alice"
    assert key_label(KEY) == short_key(KEY) == "0279be..."
    assert key_label(KEY, KeyNames({KEY: "a-very-long-name"}), name_width=6) == "a-ver…"
    assert key_label(KEY, KeyNames({KEY: "evil\x1b[2J"})) == "evil\\x1b[2J"
