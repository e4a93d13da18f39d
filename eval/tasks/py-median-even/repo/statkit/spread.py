"""Measures of spread."""
import math

from .central import _require_data, mean


def variance(data, sample=True):
    """Variance of ``data`` (sample variance unless ``sample=False``)."""
    values = _require_data(data)
    if sample and len(values) < 2:
        raise ValueError("sample variance needs at least two values")
    m = mean(values)
    ss = sum((x - m) ** 2 for x in values)
    return ss / (len(values) - 1 if sample else len(values))


def stdev(data, sample=True):
    """Standard deviation of ``data``."""
    return math.sqrt(variance(data, sample=sample))


def value_range(data):
    """Difference between the largest and the smallest value."""
    values = _require_data(data)
    return max(values) - min(values)
