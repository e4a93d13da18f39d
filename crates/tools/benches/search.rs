//! `search_files` in-process against the `rg` process on the same regexes.
//!
//! Corpus: a generated tree (1,000 files, ~20 MB; `KEEL_BENCH_TREE` names another, e.g. the
//! 5,000-file / 100 MB tree `gen_tree.py` writes) and, when `KEEL_BENCH_REAL_DIR` is set, that
//! folder. `rg` is skipped when not installed. For the full-size comparison (5,000 files /
//! 100 MB and ≥100k lines of real code, whole processes) run `benches/search_vs_rg.sh`.
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use grep_regex::RegexMatcherBuilder;
use keel_tools::builtin::search_files::{render, search};

const REGEXES: [(&str, &str); 3] = [
    ("literal", "TODO"),
    ("word", r"\bunwrap_or_default\b"),
    (
        "alternation",
        r"(?:struct|enum)\s+[A-Z][a-z]+(?:Error|Kind)\b",
    ),
];

fn generate(dir: &Path, files: usize) {
    let words = [
        "let", "mut", "value", "config", "result", "items", "parse", "render", "state", "token",
        "cache", "path", "error", "node", "tree", "walk", "match", "iter", "map", "collect",
    ];
    let rare = [
        "    // TODO: handle the empty case",
        "    let name = maybe_name.unwrap_or_default();",
        "pub struct ParseError { line: usize }",
        "pub enum TokenKind { Word, Number }",
    ];
    let mut seed: u64 = 42;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for i in 0..files {
        let sub = dir.join(format!("mod{:02}", i % 50));
        std::fs::create_dir_all(&sub).unwrap();
        let mut text = String::new();
        while text.len() < 20_000 {
            let r = next() % 1000;
            if r < 2 {
                text.push_str(rare[next() % rare.len()]);
            } else if r < 150 {
                text.push_str(&format!(
                    "pub fn {}_{}() {{",
                    words[next() % 20],
                    words[next() % 20]
                ));
            } else {
                text.push_str("    ");
                for _ in 0..(3 + next() % 6) {
                    text.push_str(words[next() % 20]);
                    text.push(' ');
                }
                text.push(';');
            }
            text.push('\n');
        }
        std::fs::write(sub.join(format!("file{i:05}.rs")), text).unwrap();
    }
}

fn rg_available() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn bench_corpus(c: &mut Criterion, label: &str, root: &Path) {
    let rg = rg_available();
    for (name, regex) in REGEXES {
        let mut group = c.benchmark_group(format!("search/{label}/{name}"));
        group.sample_size(10);
        let matcher = RegexMatcherBuilder::new()
            .line_terminator(Some(b'\n'))
            .build(regex)
            .unwrap();
        group.bench_function("keel", |b| {
            b.iter(|| {
                let found = search(root, root, &matcher, None);
                black_box(render(&found, regex, "."))
            })
        });
        if rg {
            group.bench_function("rg", |b| {
                b.iter(|| {
                    let out = Command::new("rg")
                        .args(["-n", "-C1", "--hidden", regex])
                        .arg(root)
                        .stdout(Stdio::piped())
                        .output()
                        .unwrap();
                    black_box(out.stdout.len())
                })
            });
        }
        group.finish();
    }
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = match std::env::var("KEEL_BENCH_TREE") {
        Ok(tree) => Path::new(&tree).canonicalize().unwrap(),
        Err(_) => {
            generate(dir.path(), 1000);
            dir.path().canonicalize().unwrap()
        }
    };
    bench_corpus(c, "generated", &root);
    if let Ok(real) = std::env::var("KEEL_BENCH_REAL_DIR") {
        let real = Path::new(&real).canonicalize().unwrap();
        bench_corpus(c, "real", &real);
    }
}

criterion_group!(search_benches, benches);
criterion_main!(search_benches);
