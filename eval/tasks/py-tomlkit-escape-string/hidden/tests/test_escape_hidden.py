import pytest

import tomlkit
from tomlkit._utils import CONTROL_CHARS
from tomlkit._utils import escape_string
from tomlkit.items import StringType


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("", ""),
        ("plain", "plain"),
        ('say "hi"', 'say \\"hi\\"'),
        ("back\\slash", "back\\\\slash"),
        ("a\tb\nc\rd\be\ff", "a\\tb\\nc\\rd\\be\\ff"),
        ("\x00\x01\x1f", "\\u0000\\u0001\\u001f"),
        ("del\x7f", "del\\u007f"),
        ("\x0b", "\\u000b"),
        ("café ☕ 日本", "café ☕ 日本"),
        ('""', '\\"\\"'),
        ("\\\\", "\\\\\\\\"),
        ("\n\n", "\\n\\n"),
    ],
)
def test_default_sequences(raw, expected):
    assert escape_string(raw) == expected


def test_bytes_input():
    assert escape_string(b'x"y') == 'x\\"y'


def test_custom_sequences():
    assert escape_string('a"""b', {'"""'}) == 'a""\\"b'
    assert escape_string('a""""b', {'"""'}) == 'a""\\""b'
    assert escape_string('""', {'"""'}) == '""'
    assert escape_string("x\ny", {"\t"}) == "x\ny"


def test_multi_char_sequence_without_short_form():
    assert escape_string("ab-\x01\x02-cd", {"\x01\x02"}) == "ab-\\u0001\\u0002-cd"


def test_multiline_basic_sequences():
    seqs = StringType.MLB.escaped_sequences
    assert escape_string('line1\nline2 """q""" \\', seqs) == 'line1\nline2 ""\\"q""\\" \\\\'


def test_all_control_chars_round_trip():
    text = "".join(sorted(CONTROL_CHARS)) + '"\\ end'
    doc = tomlkit.document()
    doc["k"] = text
    dumped = tomlkit.dumps(doc)
    assert "\x01" not in dumped
    assert tomlkit.parse(dumped)["k"] == text


def test_key_escaping():
    assert tomlkit.key('a"b').as_string() == '"a\\"b"'
    assert tomlkit.dumps({'we"ird\tkey': 1}) == '"we\\"ird\\tkey" = 1\n'
