import pytest

from shop.cart import Cart
from shop.coupons import PercentOff


@pytest.mark.parametrize(
    "subtotal, percent, total",
    [(3000, 10, 2700), (3000, 100, 0), (999, 15, 849), (1, 50, 0), (3, 50, 1), (10000, 1, 9900), (0, 20, 0)],
)
def test_percent_totals(subtotal, percent, total):
    cart = Cart()
    if subtotal:
        cart.add("x", subtotal)
    cart.coupon = PercentOff(percent)
    assert cart.total() == total


def test_discount_value_rounds_half_up():
    assert PercentOff(15).discount(999) == 150
    assert PercentOff(50).discount(3) == 2
    assert PercentOff(10).discount(3000) == 300


def test_bad_percent():
    with pytest.raises(ValueError):
        PercentOff(0)
    with pytest.raises(ValueError):
        PercentOff(101)
