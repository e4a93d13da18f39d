#!/usr/bin/env bash
# search_files vs ripgrep, side by side, with hyperfine.
#
# usage: crates/tools/benches/search_vs_rg.sh [REAL_CODE_DIR]
#   REAL_CODE_DIR defaults to the crates.io sources in ~/.cargo/registry/src/*/ (all of them).
# needs: rg (cargo install ripgrep), hyperfine (apt-get install -y hyperfine), python3.
# Builds `keel` in release mode, generates ~5,000 files / ~100 MB under target/bench-tree
# (once), then times `keel tool call search_files` against `rg -n -C1 --hidden` (keel's
# settings: line numbers, one line of context, hidden files searched, .gitignore honoured) on
# three regexes: a literal, a word-boundary identifier and an alternation with classes.
# Both are whole processes writing their output to /dev/null; keel's process also parses the
# JSON arguments and prints a JSON result. hyperfine's tables go to target/bench-search/*.md;
# then ab_compare.py times the two alternately (A,B,B,A,…) and prints medians and the ratio,
# which stays fair on a busy machine. RUNS=n sets the run count (default 10); HYPERFINE=0
# skips hyperfine.
set -euo pipefail
cd "$(dirname "$0")/../../.."
command -v rg >/dev/null || { echo "rg not found: cargo install ripgrep" >&2; exit 1; }
command -v hyperfine >/dev/null || { echo "hyperfine not found: apt-get install -y hyperfine" >&2; exit 1; }

cargo build --release -p keel-cli -q
KEEL="$PWD/target/release/keel"
TREE="$PWD/target/bench-tree"
REAL="${1:-$(ls -d "$HOME"/.cargo/registry/src/*/ | head -1)}"
OUT="$PWD/target/bench-search"
mkdir -p "$OUT"
if [ ! -f "$TREE/.done" ]; then
  rm -rf "$TREE"
  python3 crates/tools/benches/gen_tree.py "$TREE"
  touch "$TREE/.done"
fi

REGEXES=('TODO' '\bunwrap_or_default\b' '(?:struct|enum)\s+[A-Z][a-z]+(?:Error|Kind)\b')
NAMES=('literal' 'word' 'alternation')

for corpus in "$TREE" "$REAL"; do
  files=$(rg --files --hidden "$corpus" | wc -l)
  lines=$(rg --files --hidden "$corpus" -0 | xargs -0 cat | wc -l)
  bytes=$(du -sb "$corpus" | cut -f1)
  label=$(basename "$corpus")
  echo "## corpus $corpus: $files files, $lines lines, $bytes bytes"
  for i in 0 1 2; do
    re="${REGEXES[$i]}"
    args=$(python3 -c 'import json,sys; print(json.dumps({"path": ".", "regex": sys.argv[1]}))' "$re")
    matches=$(rg -n --hidden "$re" "$corpus" | wc -l)
    echo "### ${NAMES[$i]}: $re ($matches matching lines)"
    keel_cmd="$KEEL tool call search_files '$args' --root $corpus"
    rg_cmd="rg -n -C1 --hidden '$re' $corpus"
    if [ "${HYPERFINE:-1}" = 1 ]; then
      hyperfine -N --warmup 2 --runs "${RUNS:-10}" --style basic \
        --export-markdown "$OUT/$label-${NAMES[$i]}.md" -n keel "$keel_cmd" -n rg "$rg_cmd"
    fi
    # Interleaved runs: the ratio stays fair when other work loads the machine.
    python3 crates/tools/benches/ab_compare.py "${RUNS:-10}" keel "$keel_cmd" rg "$rg_cmd"
  done
done
