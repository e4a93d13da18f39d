#!/usr/bin/env bash
# keel eval check: restores the pristine and hidden tests (and the build
# config), compiles with tsc, then runs the compiled tests with node --test.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
rm -rf dist
if ! out=$(timeout 50 tsc -p . 2>&1); then
  printf '%s\n' "$out" | head -n 15
  echo "FAIL: tsc reports errors"
  exit 1
fi
out=$(timeout 50 node --test dist/test/timer.test.js dist/test/format-hidden.test.js 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | grep -E 'not ok|Error|expected|actual' | head -n 15
  echo "FAIL: tests fail (node --test exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | grep -E '^# pass' | head -n 1)"
