import os

from fetchbot import settings
from fetchbot.settings import from_dict, load


def test_timeout_key_is_honoured():
    assert from_dict({"http": {"timeout": 7}}).timeout == 7


def test_timeout_default_is_30():
    assert from_dict({"http": {"retries": 1}}).timeout == 30


def test_other_keys_still_read():
    s = from_dict({"http": {"timeout": 2.5, "retries": 3, "user_agent": "x"}})
    assert (s.timeout, s.retries, s.user_agent) == (2.5, 3, "x")


def test_documented_example_file(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('[http]\ntimeout = 5\nretries = 2\nuser_agent = "fetchbot/0.5"\n\n[targets]\nurls = ["https://example.org/health"]\n')
    s = load(str(p))
    assert s.timeout == 5
    assert s.retries == 2
    assert s.urls == ["https://example.org/health"]


def test_env_var_path(tmp_path, monkeypatch):
    p = tmp_path / "other.toml"
    p.write_text("[http]\ntimeout = 11\n")
    monkeypatch.setenv("FETCHBOT_CONFIG", str(p))
    assert load().timeout == 11
