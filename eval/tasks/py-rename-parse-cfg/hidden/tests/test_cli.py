from deployer.cli import main


def test_plan(tmp_path, capsys):
    path = tmp_path / "deploy.cfg"
    path.write_text("[app]\nname = shop\nreplicas = 2\n[env]\nB = 2\nA = 1\n")
    assert main(["plan", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == ["deploy shop x2", "  env A=1", "  env B=2"]


def test_bad_usage():
    assert main(["frobnicate"]) == 2
