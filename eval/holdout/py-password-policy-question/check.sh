#!/usr/bin/env bash
# keel eval check for a question: the answer must name the function, its
# file and the real minimum length (10), not the stale help text's 8.
set -u
A="${KEEL_EVAL_ANSWER:-}"
if [ -z "$A" ] || [ ! -s "$A" ]; then
  echo "FAIL: empty answer"
  exit 1
fi
missing=()
grep -qiF 'is_strong_password' "$A" || missing+=("the function is_strong_password")
grep -qiE 'passwords\.py' "$A" || missing+=("the file passwords.py")
grep -qiE '(^|[^0-9])10([^0-9]|$)|\bten\b' "$A" || missing+=("the minimum length 10")
if [ ${#missing[@]} -ne 0 ]; then
  echo "FAIL: the answer does not give: $(printf '%s; ' "${missing[@]}")"
  exit 1
fi
echo "OK: answer names the function, the file and the minimum"
