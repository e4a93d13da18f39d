#!/usr/bin/env bash
# keel eval check: the old name must be gone everywhere; then the pristine
# (renamed) and hidden tests must pass.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
left=$(grep -rIn --exclude-dir=.git --exclude-dir=.keel --exclude='.aider*' --exclude-dir=node_modules 'getUserName' . | head -n 5)
if [ -n "$left" ]; then
  printf '%s\n' "$left"
  echo "FAIL: the old name getUserName is still used"
  exit 1
fi
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 50 node --test test/users.test.js test/report.test.js test/rename-hidden.test.js 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | grep -E 'not ok|Error|expected|actual' | head -n 15
  echo "FAIL: tests fail after the rename (node --test exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | grep -E '^# pass' | head -n 1)"
