#!/usr/bin/env bash
# Verifies keel eval task folders (see eval/README.md for the format).
#
#   eval/verify-tasks.sh DIR...      e.g. eval/verify-tasks.sh eval/tasks eval/holdout
#
# For every task folder under each DIR, in throw-away copies of its repo/:
#   1. check.sh FAILS on the untouched repo (empty answer);
#   2. check.sh PASSES after `git apply fix.patch`, or with answer.txt as the
#      answer for question tasks (and a question task FAILS when the answer is
#      just the question restated);
#   3. anti-cheat: with every test file deleted (test_*.py, *_test.py,
#      *_test.go, *.test.js, *.test.ts, tests/*.rs, test/ and tests/ folders)
#      check.sh still FAILS on the untouched repo.
# Also checks the folder layout (task.txt, task.toml keys, executable check.sh,
# no .git or build output in repo/). Prints one line per task; exits 1 if any
# task violates the contract.
set -u

if [ $# -eq 0 ]; then
  echo "usage: $0 DIR..." >&2
  exit 2
fi

CHECK_TIMEOUT=${CHECK_TIMEOUT:-120}
bad=0
count=0
t_all=$(date +%s)

new_copy() { # task_dir -> prints path of a fresh git-initialised copy of repo/
  local d
  d=$(mktemp -d /tmp/keel-verify.XXXXXX)
  cp -R "$1/repo/." "$d/"
  (
    cd "$d" &&
      git init -q &&
      git add -A &&
      git -c user.name=keel-eval -c user.email=keel-eval@localhost \
        -c commit.gpgsign=false commit -q -m "task repo" --no-verify
  ) >/dev/null 2>&1 || { echo "git init failed in $d" >&2; }
  echo "$d"
}

run_check() { # task_dir work_dir answer_file log -> exit code of check.sh
  (
    cd "$2" &&
      KEEL_EVAL_TASK_DIR="$1" KEEL_EVAL_ANSWER="$3" \
        timeout "$CHECK_TIMEOUT" "$1/check.sh"
  ) >"$4" 2>&1
}

for root in "$@"; do
  if [ ! -d "$root" ]; then
    echo "FAIL $root: not a directory"
    bad=1
    continue
  fi
  for task in "$root"/*/; do
    [ -d "$task" ] || continue
    task=$(cd "$task" && pwd)
    name="$(basename "$root")/$(basename "$task")"
    count=$((count + 1))
    t0=$(date +%s)
    problems=()
    log=$(mktemp /tmp/keel-verify-log.XXXXXX)
    empty=$(mktemp /tmp/keel-verify-answer.XXXXXX)

    # --- layout -----------------------------------------------------------
    [ -d "$task/repo" ] || problems+=("no repo/")
    [ -s "$task/task.txt" ] || problems+=("no task.txt")
    [ -f "$task/check.sh" ] || problems+=("no check.sh")
    [ -f "$task/check.sh" ] && [ ! -x "$task/check.sh" ] && problems+=("check.sh not executable")
    if [ -f "$task/task.toml" ]; then
      for key in language kind source; do
        grep -Eq "^$key *= *\"[^\"]+\"" "$task/task.toml" || problems+=("task.toml lacks $key")
      done
      kind=$(sed -n 's/^kind *= *"\(.*\)".*/\1/p' "$task/task.toml")
      lang=$(sed -n 's/^language *= *"\(.*\)".*/\1/p' "$task/task.toml")
      case "$lang" in python | javascript | typescript | rust | go) ;; *) problems+=("bad language '$lang'") ;; esac
      case "$kind" in
        fix-test | implement | rename | move | config | feature | question | add-parameter) ;;
        *) problems+=("bad kind '$kind'") ;;
      esac
      if [ "$kind" != question ] && ! grep -Eq '^test_cmd *= *"[^"]+"' "$task/task.toml"; then
        problems+=("task.toml lacks test_cmd")
      fi
    else
      problems+=("no task.toml")
      kind=""
    fi
    if [ -d "$task/repo" ]; then
      junk=$(find "$task/repo" \( -name .git -o -name target -o -name node_modules -o -name __pycache__ \
        -o -name .pytest_cache -o -name '*.pyc' -o -name dist \) -print | head -3)
      [ -n "$junk" ] && problems+=("build output or .git in repo/: $(echo $junk)")
    fi
    if [ "$kind" = question ]; then
      [ -s "$task/answer.txt" ] || problems+=("question task without answer.txt")
    else
      [ -s "$task/fix.patch" ] || problems+=("no fix.patch")
    fi

    if [ ${#problems[@]} -eq 0 ]; then
      # --- 1. untouched repo must fail -------------------------------------
      w=$(new_copy "$task")
      if run_check "$task" "$w" "$empty" "$log"; then
        problems+=("check passes on the untouched repo")
      fi
      rm -rf "$w"

      # --- 2. reference solution must pass ---------------------------------
      w=$(new_copy "$task")
      if [ "$kind" = question ]; then
        if ! run_check "$task" "$w" "$task/answer.txt" "$log"; then
          problems+=("check fails with answer.txt: $(tail -n 3 "$log" | tr '\n' ' ')")
        fi
        rm -rf "$w"
        w=$(new_copy "$task")
        if run_check "$task" "$w" "$task/task.txt" "$log"; then
          problems+=("check passes when the answer is the question itself")
        fi
      else
        if ! (cd "$w" && git apply "$task/fix.patch") >"$log" 2>&1; then
          problems+=("fix.patch does not apply: $(head -n 2 "$log" | tr '\n' ' ')")
        elif ! run_check "$task" "$w" "$empty" "$log"; then
          problems+=("check fails after fix.patch: $(tail -n 3 "$log" | tr '\n' ' ')")
        fi
      fi
      rm -rf "$w"

      # --- 3. anti-cheat: no tests in the repo, untouched code ---------------
      w=$(new_copy "$task")
      (
        cd "$w" &&
          find . -path ./.git -prune -o -type f \( -name 'test_*.py' -o -name '*_test.py' -o -name '*_test.go' \
            -o -name '*.test.js' -o -name '*.test.ts' \) -print0 | xargs -0 rm -f &&
          find . -path ./.git -prune -o -type d \( -name test -o -name tests \) -print0 | xargs -0 rm -rf
      )
      if run_check "$task" "$w" "$empty" "$log"; then
        problems+=("anti-cheat: check passes with the repo's tests deleted")
      fi
      rm -rf "$w"
    fi

    dt=$(($(date +%s) - t0))
    if [ ${#problems[@]} -eq 0 ]; then
      printf 'ok    %-45s %3ds\n' "$name" "$dt"
    else
      bad=1
      printf 'FAIL  %-45s %3ds  %s\n' "$name" "$dt" "$(printf '%s; ' "${problems[@]}")"
    fi
    rm -f "$log" "$empty"
  done
done

echo "$count task(s) checked in $(($(date +%s) - t_all))s"
if [ $bad -ne 0 ]; then
  echo "verify-tasks: some tasks violate the contract"
  exit 1
fi
echo "verify-tasks: all tasks ok"
