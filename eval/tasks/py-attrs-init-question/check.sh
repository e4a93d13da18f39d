#!/usr/bin/env bash
# keel eval check for a question: the answer must name the function that
# builds the __init__ source, the one that compiles it, and their file.
set -u
A="${KEEL_EVAL_ANSWER:-}"
if [ -z "$A" ] || [ ! -s "$A" ]; then
  echo "FAIL: empty answer"
  exit 1
fi
missing=()
grep -qiF '_attrs_to_init_script' "$A" || missing+=("the source-building function")
grep -qiE '_make_method|_compile_and_eval' "$A" || missing+=("the compiling function")
grep -qiE '(^|[^A-Za-z0-9_])_make\.py' "$A" || missing+=("the file")
if [ ${#missing[@]} -ne 0 ]; then
  echo "FAIL: the answer does not name $(printf '%s, ' "${missing[@]}" | sed 's/, $//')"
  exit 1
fi
echo "OK: answer names the functions and the file"
