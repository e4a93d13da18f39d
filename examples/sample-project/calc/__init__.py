"""calc: small numeric helpers."""

from calc.stats import mean

__all__ = ["mean"]
