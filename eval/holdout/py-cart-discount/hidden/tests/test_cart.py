from shop.cart import Cart
from shop.coupons import AmountOff, PercentOff


def make_cart():
    cart = Cart()
    cart.add("mug", 1250, 2)
    cart.add("tea", 500)
    return cart


def test_subtotal():
    assert make_cart().subtotal() == 3000
    assert len(make_cart()) == 3


def test_amount_off():
    cart = make_cart()
    cart.coupon = AmountOff(1000)
    assert cart.total() == 2000


def test_percent_off():
    cart = make_cart()
    cart.coupon = PercentOff(10)
    assert cart.total() == 2700
