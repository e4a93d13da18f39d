from tasklog.cli import main


def test_add_and_report(tmp_path, capsys):
    log = str(tmp_path / "log")
    assert main(["add", "docs", "1h"], log_path=log) == 0
    assert main(["add", "docs", "30m"], log_path=log) == 0
    assert main(["add", "review", "15m"], log_path=log) == 0
    assert main(["report"], log_path=log) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["docs", "1h", "30m"]
    assert out[1].split() == ["review", "15m"]
    assert out[2] == "2 tasks, 1h 45m in total"


def test_add_bad_duration(tmp_path):
    assert main(["add", "x", "soon"], log_path=str(tmp_path / "log")) == 1
