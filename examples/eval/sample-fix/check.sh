#!/bin/sh
# keel eval check: the project's own tests, restored from the pristine repo/ first, so editing
# or deleting them does not count.
set -e
mkdir -p tests
cp "$KEEL_EVAL_TASK_DIR/repo/tests/__init__.py" "$KEEL_EVAL_TASK_DIR/repo/tests/test_stats.py" tests/
PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -q tests.test_stats
