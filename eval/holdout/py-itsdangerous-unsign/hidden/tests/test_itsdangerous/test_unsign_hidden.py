import pytest

from itsdangerous import BadSignature
from itsdangerous import Signer
from itsdangerous import URLSafeSerializer
from itsdangerous import URLSafeTimedSerializer


def test_value_with_separator():
    s = Signer("secret")
    for value in [b"a.b", b"a.b.c", b".", b"..", b"x.", b".y", b"no-sep"]:
        assert s.unsign(s.sign(value)) == value


def test_custom_separator():
    s = Signer("secret", sep="|")
    assert s.unsign(s.sign("left|right")) == b"left|right"


def test_tampered_still_rejected():
    s = Signer("secret")
    signed = s.sign(b"a.b")
    with pytest.raises(BadSignature):
        s.unsign(b"a.c" + signed[3:])
    with pytest.raises(BadSignature):
        s.unsign(signed[:-1] + (b"A" if signed[-1:] != b"A" else b"B"))
    with pytest.raises(BadSignature):
        s.unsign(b"nodot")


def test_serializers_round_trip():
    payload = {"user": "ann.lee", "roles": ["a.b", "c"]}
    assert URLSafeSerializer("k").loads(URLSafeSerializer("k").dumps(payload)) == payload
    ts = URLSafeTimedSerializer("k")
    assert ts.loads(ts.dumps(payload), max_age=60) == payload
