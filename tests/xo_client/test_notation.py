"""Board spaces: the payload's 1..9 and the tic-tac-toe protocol's A1..C3 grid names."""

import pytest

from xo_client.notation import BadSpace, grid_name, parse_space


@pytest.mark.parametrize("text", [str(space) for space in range(1, 10)])
def test_digits_name_their_own_space(text):
    assert parse_space(text) == int(text)


@pytest.mark.parametrize(
    ("text", "space"),
    [("A1", 1), ("B1", 2), ("C1", 3), ("A2", 4), ("B2", 5), ("C2", 6), ("A3", 7), ("B3", 8), ("C3", 9)],
)
def test_grid_names_are_column_letter_then_row_number(text, space):
    assert parse_space(text) == space


@pytest.mark.parametrize("text", ["a1", "b2", "c3", "b3"])
def test_grid_letters_may_be_lower_case(text):
    assert parse_space(text) == parse_space(text.upper())


@pytest.mark.parametrize(
    "text",
    ["", "0", "10", "-1", "+5", "05", " 5", "5 ", "5.0", "\u0665", "D1", "A0", "A4", "1A", "B", "2B", "X:B2", "AA"],
)
def test_anything_else_is_refused_with_the_accepted_forms(text):
    with pytest.raises(BadSpace, match=r"1-9 .* A1-C3"):
        parse_space(text)


def test_grid_name_is_the_inverse_of_parse_space():
    assert [grid_name(space) for space in range(1, 10)] == ["A1", "B1", "C1", "A2", "B2", "C2", "A3", "B3", "C3"]
    assert all(parse_space(grid_name(space)) == space for space in range(1, 10))
