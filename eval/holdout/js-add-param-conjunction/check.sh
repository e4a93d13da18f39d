#!/usr/bin/env bash
# keel eval check: restores the pristine and hidden tests, then runs them with node --test.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 50 node --test test/format.test.js test/conjunction-hidden.test.js 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | grep -E 'not ok|Error|expected|actual' | head -n 15
  echo "FAIL: tests fail (node --test exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | grep -E '^# pass' | head -n 1)"
