import deployer
import deployer.config
from deployer.plan import plan_from_text


def test_new_name_exported():
    assert deployer.parse_config is deployer.config.parse_config
    assert "parse_config" in deployer.__all__


def test_old_name_gone():
    assert not hasattr(deployer.config, "parse_cfg")
    assert not hasattr(deployer, "parse_cfg")
    assert "parse_cfg" not in deployer.__all__


def test_behaviour_unchanged():
    cfg = deployer.parse_config("[a]\n x = 1 \n# c\n[b]\ny=2\n")
    assert cfg == {"a": {"x": "1"}, "b": {"y": "2"}}
    assert plan_from_text("[app]\nname = web\n").describe() == "deploy web x1"


def test_load(tmp_path):
    p = tmp_path / "d.cfg"
    p.write_text("[app]\nname = api\n")
    assert deployer.config.load(str(p)) == {"app": {"name": "api"}}
