#!/usr/bin/env bash
# keel eval check: restores the pristine and hidden tests, then runs them.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
export PYTHONDONTWRITEBYTECODE=1

cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 50 python3 -m unittest -q tests.test_words tests.test_hidden_words 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | tail -n 15
  echo "FAIL: tests fail (unittest exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | tail -n 1)"
