"""statkit: small descriptive statistics helpers."""
from .central import mean, median, mode
from .spread import stdev, value_range, variance

__all__ = ["mean", "median", "mode", "variance", "stdev", "value_range"]
