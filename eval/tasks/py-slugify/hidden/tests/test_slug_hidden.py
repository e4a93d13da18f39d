import pytest

from textutils import slugify
from textutils.slug import slugify as slugify_direct


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello, World!", "hello-world"),
        ("  Crème Brûlée -- recipe  ", "creme-brulee-recipe"),
        ("?!", ""),
        ("", ""),
        ("already-a-slug", "already-a-slug"),
        ("Ünïcödé Straße", "unicode-strae"),
        ("C++ & Python 3.12", "c-python-3-12"),
        ("日本語 title", "title"),
        ("--Leading and trailing--", "leading-and-trailing"),
        ("tabs\tand\nnewlines", "tabs-and-newlines"),
        ("MiXeD CaSe", "mixed-case"),
    ],
)
def test_default(text, expected):
    assert slugify(text) == expected


def test_sep():
    assert slugify("Rust 2024 edition", sep="_") == "rust_2024_edition"
    assert slugify("  a  b  ", sep="+") == "a+b"


def test_max_length():
    assert slugify("A very long title indeed", max_length=12) == "a-very-long"
    assert slugify("A very long title indeed", max_length=11) == "a-very-long"
    assert slugify("A very long title indeed", max_length=13) == "a-very-long-t"
    assert slugify("abc", max_length=10) == "abc"
    assert len(slugify("x" * 50, max_length=20)) == 20


def test_max_length_none_keeps_everything():
    title = "one two three four five six seven eight nine ten"
    assert slugify(title) == title.replace(" ", "-")


def test_same_function_exported():
    assert slugify is slugify_direct
