from invoicer.model import Invoice, Line
from invoicer.render import render_invoice


def sample():
    return Invoice(number="7", customer="ACME", lines=[Line("Consulting", 3, 12050), Line("Travel", 1, 999)])


def test_render_english():
    text = render_invoice(sample())
    assert text.splitlines()[0] == "Invoice 7"
    assert "361.50 EUR" in text
    assert text.splitlines()[-1] == "Total: 371.49 EUR"


def test_render_german_labels():
    text = render_invoice(sample(), lang="de")
    assert text.splitlines()[0] == "Rechnung 7"
