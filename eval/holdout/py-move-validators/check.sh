#!/usr/bin/env bash
# keel eval check: static checks of the move (new module, nobody imports the
# moved functions through models), then the pristine and hidden tests.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
export PYTHONDONTWRITEBYTECODE=1
cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
if ! python3 check_move.py; then
  rm -f check_move.py
  echo "FAIL: the functions were not moved cleanly"
  exit 1
fi
rm -f check_move.py
out=$(timeout 50 python3 -m pytest -q -p no:cacheprovider -o addopts= -o filterwarnings= tests/test_models.py tests/test_validation.py tests/test_importer.py 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | tail -n 15
  echo "FAIL: tests fail after the move (pytest exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | tail -n 1)"
