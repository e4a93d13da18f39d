import pytest

from deployer.config import ConfigError, as_int, parse_cfg

SAMPLE = """
# deployment of the shop
[app]
name = shop
replicas = 3

[env]
DEBUG = false
"""


def test_parse_cfg_sections():
    cfg = parse_cfg(SAMPLE)
    assert cfg == {"app": {"name": "shop", "replicas": "3"}, "env": {"DEBUG": "false"}}


def test_parse_cfg_entry_outside_section():
    with pytest.raises(ConfigError):
        parse_cfg("name = x\n[app]\n")


def test_as_int():
    cfg = parse_cfg(SAMPLE)
    assert as_int(cfg, "app", "replicas") == 3
    assert as_int(cfg, "app", "missing", default=7) == 7
