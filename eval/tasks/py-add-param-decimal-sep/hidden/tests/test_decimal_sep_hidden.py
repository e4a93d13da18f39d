import inspect

from invoicer.model import Invoice, Line
from invoicer.money import format_amount
from invoicer.render import render_invoice


def test_parameter_has_default_dot():
    param = inspect.signature(format_amount).parameters["decimal_sep"]
    assert param.default == "."


def test_default_output_unchanged():
    assert format_amount(123456) == "1234.56 EUR"
    assert format_amount(-5) == "-0.05 EUR"
    assert format_amount(100, "USD") == "1.00 USD"


def test_comma():
    assert format_amount(123456, decimal_sep=",") == "1234,56 EUR"
    assert format_amount(-5, "EUR", ",") == "-0,05 EUR"
    assert format_amount(7, currency="CHF", decimal_sep=",") == "0,07 CHF"


def sample():
    return Invoice(number="7", customer="ACME", lines=[Line("Consulting", 3, 12050), Line("Travel", 1, 999)])


def test_german_invoice_uses_comma():
    text = render_invoice(sample(), lang="de")
    assert "361,50 EUR" in text
    assert "9,99 EUR" in text
    assert text.splitlines()[-1] == "Gesamt: 371,49 EUR"
    assert "361.50" not in text


def test_english_invoice_uses_dot():
    text = render_invoice(sample(), lang="en")
    assert "361.50 EUR" in text
    assert text.splitlines()[-1] == "Total: 371.49 EUR"
    assert "," not in text.replace("Bill to", "")
