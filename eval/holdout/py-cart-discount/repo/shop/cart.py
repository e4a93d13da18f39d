"""The shopping cart."""


class Cart:
    def __init__(self):
        self._lines = {}
        self.coupon = None

    def add(self, sku, unit_cents, quantity=1):
        if quantity < 1:
            raise ValueError("quantity must be positive")
        unit, qty = self._lines.get(sku, (unit_cents, 0))
        self._lines[sku] = (unit, qty + quantity)

    def remove(self, sku):
        self._lines.pop(sku, None)

    def subtotal(self):
        return sum(unit * qty for unit, qty in self._lines.values())

    def total(self):
        """Subtotal minus the coupon's discount (never below zero)."""
        subtotal = self.subtotal()
        if self.coupon is None:
            return subtotal
        return max(subtotal - self.coupon.discount(subtotal), 0)

    def __len__(self):
        return sum(qty for _, qty in self._lines.values())
