"""A batch id shortened as the commands print it, found among the committed batches, newest block first."""

import pytest

from client_core.batch_prefix import ShortBatchId
from client_core.blocks import ListedBatch, ListedBlock
from client_core.errors import InvalidInput

NEWEST, OLDER, OLDEST = "ab12cd34" + "0" * 120, "ab12cd99" + "1" * 120, "ff" * 64


class Chain:
    """A stand-in client: its blocks newest first, each with one batch; counts the blocks read."""

    def __init__(self, *batch_ids: str) -> None:
        self.batch_ids = batch_ids
        self.read = 0

    def listed_blocks(self):
        for number, batch_id in enumerate(self.batch_ids):
            self.read += 1
            batches = (ListedBatch(batch_id, "", ()),)
            yield ListedBlock("b" * 128, len(self.batch_ids) - number, "0" * 128, "02", batches)


@pytest.mark.parametrize(
    ("text", "prefix", "suffix"),
    [("AB12cd", "ab12cd", ""), ("ab12cd34...", "ab12cd34", ""), ("ab12cd...0000", "ab12cd", "0000")],
)
def test_the_forms_the_commands_print_are_read(text, prefix, suffix):
    short = ShortBatchId.parse(text)
    assert (short.prefix, short.suffix) == (prefix, suffix)


@pytest.mark.parametrize("text", ["", "ab12c", "...", "...ab12cd", "xyz123", "ab12cd 34", "a" * 129, "ab12cd....0"])
def test_anything_else_is_not_a_batch_id(text):
    with pytest.raises(InvalidInput, match="is not a batch id: a batch id is 128 hex characters"):
        ShortBatchId.parse(text)


def test_a_long_prefix_is_taken_at_its_first_match_without_reading_the_rest_of_the_chain():
    chain = Chain(OLDEST, NEWEST, OLDER, *["ee" * 64] * 50)
    assert ShortBatchId.parse(NEWEST[:16] + "...").find(chain) == NEWEST
    assert chain.read == 2


def test_a_short_prefix_is_checked_against_the_whole_chain():
    chain = Chain(NEWEST, OLDEST)
    assert ShortBatchId.parse("ab12cd34").find(chain) == NEWEST
    assert chain.read == 2


def test_a_prefix_that_names_two_batches_is_refused_with_both():
    with pytest.raises(InvalidInput, match=r"'ab12cd' names more than one committed batch \(ab12cd34.*, ab12cd99"):
        ShortBatchId.parse("ab12cd").find(Chain(NEWEST, OLDER, OLDEST))


def test_the_last_digits_tell_two_batches_apart():
    assert ShortBatchId.parse("ab12cd...1111").find(Chain(NEWEST, OLDER)) == OLDER


def test_a_prefix_no_committed_batch_has_says_why_a_pending_one_is_not_found():
    with pytest.raises(InvalidInput, match="no committed batch has the id 'abcdef12': a batch still pending"):
        ShortBatchId.parse("abcdef12").find(Chain(NEWEST, OLDEST))
