"""Player-supplied text as a person sees it: escaped, cut and aligned by display width."""

from hypothesis import given
from hypothesis import strategies as st

from xo_core.text import clip, counted, display_width, pad, printable, quoted


def test_ordinary_names_are_shown_as_they_are():
    assert printable("game1") == "game1"
    assert printable("партия ♟ 対局") == "партия ♟ 対局"


def test_terminal_escapes_newlines_and_tabs_are_shown_escaped():
    assert printable("\x1b[31mred") == "\\x1b[31mred"
    assert printable("two\nlines\tand\rreturn") == "two\\x0alines\\x09and\\x0dreturn"


def test_c1_del_and_bidi_overrides_are_escaped():
    assert printable("a\x7fb\x9bc") == "a\\x7fb\\x9bc"
    assert printable("evil\u202egnp.exe") == "evil\\u202egnp.exe"
    assert printable("x\u2066y\u2069") == "x\\u2066y\\u2069"


def test_a_typed_backslash_cannot_pass_for_an_escape():
    assert printable("a\\x1bb") == "a\\\\x1bb"
    assert printable("a\\x1bb") != printable("a\x1bb")


def test_wide_characters_count_two_columns():
    assert display_width("ab") == 2
    assert display_width("対局") == 4
    assert display_width("🎉") == 2
    assert display_width("e\u0301") == 1


def test_clip_keeps_short_names_and_cuts_long_ones_with_an_ellipsis():
    assert clip("short", 10) == "short"
    assert clip("x" * 10_000, 20) == "x" * 19 + "…"
    assert display_width(clip("対" * 50, 9)) <= 9
    assert clip("\x1b" * 10, 8) == "\\x1b\\x1…"


def test_pad_aligns_by_display_width():
    assert pad("対局", 6) == "対局  "
    assert display_width(pad("🎉", 5)) == 5


@given(st.text())
def test_printable_output_never_holds_a_control_or_bidi_character(text):
    shown = printable(text)
    assert all(ord(char) >= 0x20 and not 0x7F <= ord(char) <= 0x9F for char in shown)
    assert not set(shown) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u2028\u2029")


@given(st.text(), st.integers(min_value=1, max_value=60))
def test_clip_never_exceeds_its_width(text, width):
    assert display_width(clip(text, width)) <= width


def test_clip_measures_a_spacing_mark_with_the_character_it_follows():
    """A Devanagari vowel sign is width 0 alone and 1 after its consonant: the cut is measured as shown."""
    assert display_width(clip("00\u093e0", 3)) <= 3
    assert clip("00\u093e0", 3) == "00\u2026"


def test_quoted_quotes_like_repr_but_escapes_through_printable():
    assert quoted("g1") == "'g1'"
    assert quoted("it's") == '"it\'s"'
    assert quoted("both ' and \"") == "'both \\' and \"'"
    assert quoted("\x1b[31m\u202e") == "'\\x1b[31m\\u202e'"
    assert quoted("n" * 100, 64) == "'" + "n" * 64 + "'..."


def test_without_escaping_backslashes_a_second_pass_changes_nothing():
    once = "rejected: game " + quoted("a\\x1bb") + " and raw \x1b[2J"
    shown = printable(once, escape_backslashes=False)
    assert shown == "rejected: game 'a\\\\x1bb' and raw \\x1b[2J"
    assert printable(shown, escape_backslashes=False) == shown


def test_counted_puts_the_noun_in_the_right_number():
    assert counted(1, "batch", "batches") == "1 batch"
    assert counted(0, "batch", "batches") == "0 batches"
    assert counted(2, "block") == "2 blocks"


def test_ascii_text_needs_no_width_table():
    assert display_width("plain name") == 10
    assert clip("a" * 30, 10) == "a" * 9 + "…"
