import pytest

from diskquota.units import format_size, parse_size


@pytest.mark.parametrize(
    "text, expected",
    [("0", 0), ("512", 512), ("512B", 512), ("500M", 500_000_000), ("2GB", 2_000_000_000), ("1T", 10**12), (" 3K ", 3000)],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "M", "12Q", "-1K", "1 2"])
def test_parse_size_invalid(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_format_size():
    assert format_size(1500) == "1.5K"
    assert format_size(2_000_000_000) == "2G"
    assert format_size(12) == "12B"
