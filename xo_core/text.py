"""Player-supplied text made safe to show a person: the one place it is escaped, cut and measured.

Game names (and anything else a player types) reach other players' terminals,
log files and web pages. A name could hold an escape sequence that recolours
a terminal, a newline that forges a table row, a bidi override that reverses
what follows, or ten thousand characters. Everything shown to a person goes
through :func:`printable` first; tables also :func:`clip` and :func:`pad` by
display width, so an emoji or a CJK name keeps its columns aligned. Machine
output (JSON) keeps the exact text: it is not for terminals.

``wcwidth`` and ``unicodedata`` are imported only for text that needs them (not
plain ASCII, not printable as it is): ``xo list`` starts a fresh interpreter each
time, and most names never do.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

ELLIPSIS = "…"

# Characters that reorder or hide text (bidi embeddings, overrides, isolates and marks):
# harmless-looking names could otherwise show a different text than the one on the ledger.
_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_LINE_BREAKS = frozenset("\u2028\u2029\x85")


def _needs_escape(char: str, category: Callable[[str], str]) -> bool:
    code = ord(char)
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or char in _BIDI_CONTROLS
        or char in _LINE_BREAKS
        or category(char) in {"Cs", "Co", "Cn"}
    )


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, *, escape_backslashes: bool = True) -> str:
    r"""``text`` with every control, bidi and unassigned character written as a visible escape.

    A backslash is doubled, so an escape shown always stands for the character it
    names: the name ``a\x1bb`` typed literally reads ``a\\x1bb``, never like ESC.

    ``escape_backslashes=False`` is for text that may already have been through
    this function, such as a processor's rejection message or a whole log line that
    quotes a name: its controls are still escaped, but its escapes are not escaped
    again, so a second pass changes nothing.
    """
    if text.isprintable() and (not escape_backslashes or "\\" not in text) and _BIDI_CONTROLS.isdisjoint(text):
        return text
    from unicodedata import category  # noqa: PLC0415 - see the module's docstring

    backslash = "\\\\" if escape_backslashes else "\\"
    return "".join(
        backslash if char == "\\" else _escape(char) if _needs_escape(char, category) else char for char in text
    )


SHORT_TEXT_LENGTH: Final = 64
"""Characters of player-supplied text a family's message shows: a hostile payload cannot flood a log line."""
SHORT_KEY_LENGTH: Final = 6
"""Characters of a public key a message or a listing shows: enough to tell two players apart."""


def quoted(text: str, limit: int | None = SHORT_TEXT_LENGTH) -> str:
    """``text`` quoted for a message, as ``repr`` quotes it, but escaped by :func:`printable`.

    Only the first ``limit`` characters are shown (:data:`SHORT_TEXT_LENGTH` unless
    told otherwise; ``None``: all), followed by ``...`` outside the quotes: a message
    stays one readable line whatever was typed.
    """
    cut = limit is not None and len(text) > limit
    shown = printable(text[:limit] if cut else text)
    double = "'" in shown and '"' not in shown
    result = f'"{shown}"' if double else "'" + shown.replace("'", "\\'") + "'"
    return result + "..." if cut else result


def game_label(name: str) -> str:
    """How every family's messages name a game: ``game 'g1'``, the name cut at :data:`SHORT_TEXT_LENGTH`."""
    return f"game {quoted(name)}"


def short_key(public_key: str) -> str:
    """The first characters of a public key, as messages and listings show a player: ``0208fb...``."""
    return public_key[:SHORT_KEY_LENGTH] + "..."


def shell_word(text: str) -> str:
    """``text`` as one word to type in a shell, quoted only when needed, and escaped for the terminal.

    For the commands a message suggests (``xo create 'my game'``): a name with a space
    or a quote in it must still paste as one word.
    """
    import shlex  # noqa: PLC0415 - only a hint needs it

    return printable(shlex.quote(text), escape_backslashes=False)


def duration(seconds: float) -> str:
    """A span of time as every command and the page say it: ``42 s``, ``59 min 55 s``, ``2 h 5 min``, ``3 d 4 h``.

    Rounded up to the second (a countdown reaches 0 only once its moment has come); seconds alone below two
    minutes, so a short countdown reads in seconds. The page's ``xo_web/static/js/time.js`` mirrors it, and
    tests/xo_web/test_durations.py holds the two to the same words.
    """
    total = max(math.ceil(seconds), 0)
    days, rest = divmod(total, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if total >= 120:
        return f"{minutes} min {secs} s"
    return f"{total} s"


def counted(number: int, singular: str, plural: str | None = None) -> str:
    """``1 batch``, ``2 batches``: a count with the noun in the right number."""
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: 2 for wide (CJK, most emoji), 0 for combining marks."""
    if text.isascii() and text.isprintable():
        return len(text)
    from wcwidth import wcswidth, wcwidth  # noqa: PLC0415 - see the module's docstring

    width = wcswidth(text)
    if width >= 0:
        return width
    return sum(max(wcwidth(char), 0) for char in text)


def clip(text: str, width: int) -> str:
    """``printable(text)`` cut to at most ``width`` columns, ending in "…" when something was cut."""
    shown = printable(text)
    if display_width(shown) <= width:
        return shown
    if shown.isascii():
        return shown[: max(width - 1, 0)] + ELLIPSIS
    kept = ""
    for char in shown[: 4 * (width + 16)]:  # bounded: a name of a million marks costs no more than a short one
        # measured whole, as display_width measures: a mark can widen the character before it
        if display_width(kept + char + ELLIPSIS) > width:
            break
        kept += char
    return kept + ELLIPSIS


def pad(text: str, width: int) -> str:
    """``text`` (already printable) followed by spaces up to ``width`` display columns."""
    return text + " " * max(width - display_width(text), 0)
