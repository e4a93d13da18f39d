#!/usr/bin/env bash
# keel eval check for a question: the answer must name both functions and
# both files (case-insensitive, any phrasing).
set -u
A="${KEEL_EVAL_ANSWER:-}"
if [ -z "$A" ] || [ ! -s "$A" ]; then
  echo "FAIL: empty answer"
  exit 1
fi
missing=()
grep -qiE '(^|[^a-z0-9_])refill([^a-z0-9_]|$)' "$A" || missing+=("refill")
grep -qiE 'bucket\.go' "$A" || missing+=("bucket.go")
grep -qiE '(^|[^a-z0-9_])clientKey([^a-z0-9_]|$)' "$A" || missing+=("clientKey")
grep -qiE 'clientid\.go' "$A" || missing+=("clientid.go")
if [ ${#missing[@]} -ne 0 ]; then
  echo "FAIL: the answer does not name: ${missing[*]}"
  exit 1
fi
echo "OK: answer names both functions and files"
