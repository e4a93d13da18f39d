#!/usr/bin/env bash
# keel eval check: restores the pristine and hidden tests, then runs them.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
export PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 50 python3 -m pytest -q -p no:cacheprovider -o addopts= -o filterwarnings= -x tests/test_types.py tests/test_basic.py tests/test_options.py tests/test_arguments.py tests/test_parser.py 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | tail -n 15
  echo "FAIL: tests fail (pytest exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | tail -n 1)"
