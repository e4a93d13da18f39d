#!/usr/bin/env bash
# keel eval check: restores the pristine and hidden tests, then runs go test.
set -u
T="${KEEL_EVAL_TASK_DIR:?KEEL_EVAL_TASK_DIR not set}"
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on
export GOCACHE=/tmp/keel-eval-gocache GOPATH=/tmp/keel-eval-gopath

cp -R "$T/hidden/." . || { echo "FAIL: could not copy the hidden tests"; exit 2; }
out=$(timeout 55 go test -count=1 ./... 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
  printf '%s\n' "$out" | grep -vE '^(ok|\?) ' | head -n 15
  echo "FAIL: go test fails (exit $rc)"
  exit 1
fi
echo "OK: $(printf '%s\n' "$out" | grep -c '^ok') package(s) pass"
