import pytest

from tasklog.utils import format_duration, parse_duration, pluralize, truncate


def test_parse_duration():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("45m") == 2700
    assert parse_duration("90s") == 90


def test_parse_duration_invalid():
    for bad in ["", "1d", "m", "1.5h"]:
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_format_duration():
    assert format_duration(5400) == "1h 30m"
    assert format_duration(7200) == "2h"
    assert format_duration(59) == "0m"


def test_truncate():
    assert truncate("abcdef", 4) == "abc…"
    assert truncate("abc", 4) == "abc"


def test_pluralize():
    assert pluralize(1, "task") == "1 task"
    assert pluralize(3, "task") == "3 tasks"
