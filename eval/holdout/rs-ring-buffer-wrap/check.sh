#!/usr/bin/env bash
# keel eval check: restores the pristine and hidden tests, then runs cargo test.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
export CARGO_TARGET_DIR=/tmp/keel-eval-target-rs-ring-buffer-wrap
export CARGO_TERM_COLOR=never
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 55 cargo test --offline --quiet  2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | grep -E '^error|panicked|FAILED|failed|assert|left|right' | head -n 15
  echo "FAIL: cargo test fails (exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | grep -E '^test result' | tail -n 1)"
