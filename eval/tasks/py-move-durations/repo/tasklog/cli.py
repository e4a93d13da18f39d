"""Command line: ``add TASK DURATION`` and ``report``."""
import os
import sys

from tasklog import report
from tasklog.store import Store
from tasklog.utils import parse_duration

DEFAULT_LOG = os.path.expanduser("~/.tasklog")


def main(argv=None, log_path=None):
    argv = sys.argv[1:] if argv is None else argv
    store = Store(log_path or os.environ.get("TASKLOG_FILE", DEFAULT_LOG))
    if len(argv) == 3 and argv[0] == "add":
        try:
            seconds = parse_duration(argv[2])
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        store.add(argv[1], seconds)
        return 0
    if argv == ["report"]:
        print(report.render(store.entries()))
        return 0
    print("usage: tasklog add TASK DURATION | tasklog report", file=sys.stderr)
    return 2
