from invoicer.money import format_amount


def test_format_amount():
    assert format_amount(123456) == "1234.56 EUR"
    assert format_amount(5, "USD") == "0.05 USD"
    assert format_amount(-5) == "-0.05 EUR"
