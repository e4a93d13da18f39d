import math

from statkit import stdev, value_range, variance


def test_variance_sample():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9]) == pytest_approx(4.571428571)


def test_variance_population():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9], sample=False) == 4


def test_stdev_population():
    assert stdev([2, 4, 4, 4, 5, 5, 7, 9], sample=False) == 2


def test_value_range():
    assert value_range([3, -1, 7]) == 8


def pytest_approx(x):
    import pytest

    return pytest.approx(x)
