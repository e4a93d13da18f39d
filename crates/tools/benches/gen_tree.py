#!/usr/bin/env python3
"""Writes a deterministic synthetic source tree for the search benchmark.

usage: gen_tree.py DIR [FILES] [BYTES_PER_FILE]   (defaults: 5000 files of ~20 KB = ~100 MB)
Rust-like lines from a fixed vocabulary; the benchmark's needles (TODO, unwrap_or_default,
`struct FooError`) appear rarely, as in real code.
"""
import os
import random
import sys

out = sys.argv[1]
files = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
size = int(sys.argv[3]) if len(sys.argv) > 3 else 20_000
rng = random.Random(42)
words = ("let mut value self config result items index count buffer parse render emit "
         "handle request response state token cache path name error kind node tree walk "
         "match into from clone iter map filter collect len push insert remove get set").split()
types = "String Vec Option Result HashMap Config Parser Walker Token Node Entry".split()
rare = [
    "    // TODO: handle the empty case",
    "    let name = maybe_name.unwrap_or_default();",
    "pub struct ParseError { line: usize }",
    "pub enum TokenKind { Word, Number }",
]

def line():
    r = rng.random()
    if r < 0.002:
        return rng.choice(rare)
    if r < 0.15:
        return "pub fn %s_%s(%s: &%s) -> %s {" % (rng.choice(words), rng.choice(words), rng.choice(words), rng.choice(types), rng.choice(types))
    if r < 0.25:
        return "}"
    n = rng.randint(3, 9)
    return "    " + " ".join(rng.choice(words) for _ in range(n)) + ";"

for i in range(files):
    d = os.path.join(out, "mod%02d" % (i % 50), "sub%d" % (i % 7))
    os.makedirs(d, exist_ok=True)
    parts, total = [], 0
    while total < size:
        text = line()
        parts.append(text)
        total += len(text) + 1
    with open(os.path.join(d, "file%05d.rs" % i), "w") as f:
        f.write("\n".join(parts) + "\n")
