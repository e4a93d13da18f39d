import pytest

from diskquota.quota import read_quotas
from diskquota.units import parse_size


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1KiB", 1024),
        ("1MiB", 1024**2),
        ("3GiB", 3 * 1024**3),
        ("2TiB", 2 * 1024**4),
        ("10kb", 10_000),
        ("10Kb", 10_000),
        ("10k", 10_000),
        ("4gib", 4 * 1024**3),
        ("5mib", 5 * 1024**2),
        ("7b", 7),
        ("1.5 GiB", 1536 * 1024**2),
        ("1.5GB", 1_500_000_000),
        ("2 MB", 2_000_000),
        ("0.5K", 500),
        ("0.3KB", 300),
        ("0.25KiB", 256),
        ("1.0B", 1),
        ("  64 KiB  ", 65536),
    ],
)
def test_new_forms(text, expected):
    assert parse_size(text) == expected
    assert isinstance(parse_size(text), int)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "KiB",
        "-1K",
        "-1",
        "1.5B",
        "1.5",
        "1.0001K",
        "10 XB",
        "10Ki",
        "10iB",
        "1..5K",
        ".K",
        "1e3",
        "1 2K",
        "1,5K",
    ],
)
def test_invalid(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_old_forms_still_work():
    assert parse_size("500M") == 500_000_000
    assert parse_size("2GB") == 2_000_000_000
    assert parse_size("1T") == 10**12
    assert parse_size("512") == 512


def test_quota_file_with_new_units():
    assert read_quotas("alice 1.5 GiB\nbob 2gb\n") == {"alice": 1536 * 1024**2, "bob": 2 * 10**9}
