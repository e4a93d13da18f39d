import pytest

from deployer.config import ConfigError, as_int, parse_config

SAMPLE = """
# deployment of the shop
[app]
name = shop
replicas = 3

[env]
DEBUG = false
"""


def test_parse_config_sections():
    cfg = parse_config(SAMPLE)
    assert cfg == {"app": {"name": "shop", "replicas": "3"}, "env": {"DEBUG": "false"}}


def test_parse_config_entry_outside_section():
    with pytest.raises(ConfigError):
        parse_config("name = x\n[app]\n")


def test_as_int():
    cfg = parse_config(SAMPLE)
    assert as_int(cfg, "app", "replicas") == 3
    assert as_int(cfg, "app", "missing", default=7) == 7
