"""Coupons that reduce a cart's subtotal."""
from dataclasses import dataclass


@dataclass(frozen=True)
class PercentOff:
    """Takes ``percent`` per cent off the subtotal (0 < percent <= 100)."""

    percent: int

    def __post_init__(self):
        if not 0 < self.percent <= 100:
            raise ValueError("percent must be in 1..100")

    def discount(self, subtotal_cents):
        """Discount in cents, rounded half up to a whole cent."""
        return subtotal_cents * (100 - self.percent) // 100


@dataclass(frozen=True)
class AmountOff:
    """Takes a fixed amount off, never more than the subtotal."""

    cents: int

    def discount(self, subtotal_cents):
        return min(self.cents, subtotal_cents)
