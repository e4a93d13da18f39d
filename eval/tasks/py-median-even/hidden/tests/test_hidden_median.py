import pytest

from statkit import median


def test_even_two_values():
    assert median([1, 2]) == 1.5


def test_even_unsorted_floats():
    assert median([10.0, 2.5, 7.5, 5.0]) == pytest.approx(6.25)


def test_even_same_middle():
    assert median([1, 3, 3, 9]) == 3


def test_odd_still_works():
    assert median([9, 7, 8, 1, 2]) == 7


def test_input_not_modified():
    data = [4, 1, 3, 2]
    median(data)
    assert data == [4, 1, 3, 2]


def test_empty_raises():
    with pytest.raises(ValueError):
        median([])


def test_accepts_generator():
    assert median(x for x in [6, 2, 4, 8]) == 5
