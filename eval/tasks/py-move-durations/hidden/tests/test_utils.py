from tasklog.utils import pluralize, truncate


def test_truncate():
    assert truncate("abcdef", 4) == "abc…"
    assert truncate("abc", 4) == "abc"


def test_pluralize():
    assert pluralize(1, "task") == "1 task"
    assert pluralize(3, "task") == "3 tasks"
