import pytest

from tasklog.durations import format_duration, parse_duration


def test_parse_duration():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("45m") == 2700
    assert parse_duration("90s") == 90
    assert parse_duration("2h") == 7200


def test_parse_duration_invalid():
    for bad in ["", "1d", "m", "1.5h"]:
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_format_duration():
    assert format_duration(5400) == "1h 30m"
    assert format_duration(7200) == "2h"
    assert format_duration(59) == "0m"
