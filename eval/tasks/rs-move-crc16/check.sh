#!/usr/bin/env bash
# keel eval check: crc16 must live in src/checksum.rs and be gone from util;
# then the pristine (moved) and hidden tests must pass.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
export CARGO_TARGET_DIR=/tmp/keel-eval-target-rs-move-crc16
export CARGO_TERM_COLOR=never
if [ ! -f src/checksum.rs ] || ! grep -Eq 'pub fn crc16' src/checksum.rs; then
  echo "FAIL: src/checksum.rs does not define pub fn crc16"
  exit 1
fi
if [ -f src/util.rs ] && grep -Ev '^[[:space:]]*//' src/util.rs | grep -Eq 'crc16'; then
  echo "FAIL: src/util.rs still mentions crc16 (definition or re-export)"
  exit 1
fi
if grep -rEn 'util::(crc16|\{[^}]*crc16)' --include='*.rs' --include='*.md' . | grep -v '^./target/' | head -n 3 | grep .; then
  echo "FAIL: crc16 is still used through util"
  exit 1
fi
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 55 cargo test --offline --quiet 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | grep -E '^error|panicked|FAILED|failed|assert|left|right' | head -n 15
  echo "FAIL: cargo test fails (exit $rc)"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -q 'test result'; then
  echo "FAIL: no tests ran"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | grep -E '^test result' | tail -n 1)"
