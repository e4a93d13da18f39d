"""Formatting money amounts."""


def format_amount(cents, currency="EUR"):
    """Format an integer amount of cents: ``format_amount(123456)`` -> ``"1234.56 EUR"``.

    Negative amounts get a leading minus sign: ``-5`` -> ``"-0.05 EUR"``.
    """
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(int(cents)), 100)
    return f"{sign}{units}.{rest:02d} {currency}"
