import pytest

from statkit import mean, median, mode


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_empty():
    with pytest.raises(ValueError):
        mean([])


def test_median_odd_length():
    assert median([5, 1, 3]) == 3


def test_median_even_length():
    assert median([4, 1, 3, 2]) == 2.5


def test_mode():
    assert mode([1, 2, 2, 3, 3]) == 2
