"""Measures of central tendency."""
from collections import Counter


def _require_data(data):
    values = list(data)
    if not values:
        raise ValueError("need at least one value")
    return values


def mean(data):
    """Arithmetic mean of ``data``."""
    values = _require_data(data)
    return sum(values) / len(values)


def median(data):
    """Middle value of ``data``.

    For an even number of values the median is the mean of the two middle
    values. The input is not modified.
    """
    values = sorted(_require_data(data))
    n = len(values)
    mid = n // 2
    if n % 2 == 1:
        return values[mid]
    return values[mid]


def mode(data):
    """Most common value; ties go to the value seen first."""
    values = _require_data(data)
    counts = Counter(values)
    best = max(counts.values())
    for v in values:
        if counts[v] == best:
            return v
