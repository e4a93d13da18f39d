#!/usr/bin/env bash
# keel eval check: the old name must be gone from code, tests and docs;
# then the pristine (renamed) and hidden tests must pass.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
export PYTHONDONTWRITEBYTECODE=1
left=$(grep -rIn --exclude-dir=.git --exclude-dir=.keel --exclude='.aider*' --exclude-dir=.pytest_cache --exclude-dir=__pycache__ --exclude-dir=.venv 'parse_cfg' . | head -n 5)
if [ -n "$left" ]; then
  printf '%s\n' "$left"
  echo "FAIL: the old name parse_cfg is still used"
  exit 1
fi
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 50 python3 -m pytest -q -p no:cacheprovider -o addopts= -o filterwarnings= tests/test_config.py tests/test_cli.py tests/test_rename_hidden.py 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | tail -n 15
  echo "FAIL: tests fail after the rename (pytest exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | tail -n 1)"
