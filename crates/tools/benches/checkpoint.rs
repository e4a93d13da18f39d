//! Checkpoints: restoring a 100-file checkpoint (all files changed since, or 10 of them),
//! recording one and rewinding it, a turn's checkpoint in a 1,000-file tree whose store already
//! holds 200 checkpoints, and listing that store with sizes (`keel checkpoints list`).
#![allow(missing_docs, clippy::unwrap_used)]

use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use keel_tools::CheckpointStore;

const FILES: usize = 100;
const FILE_BYTES: usize = 4 * 1024;
const TREE_FILES: usize = 1_000;
const STORED_CHECKPOINTS: usize = 200;

/// Records turn `turn` over the first `files` files, then changes the first `changed` of them.
fn record_turn(
    store: &CheckpointStore,
    root: &Path,
    turn: &str,
    files: usize,
    changed: usize,
) -> String {
    let id = store
        .begin_turn(turn, "bench", 0, "conv_bench", 0, b"{\"messages\":[]}")
        .unwrap()
        .id;
    for n in 0..files {
        let path = file(root, n);
        store.record_before(turn, &path).unwrap();
        if n < changed {
            std::fs::write(&path, format!("// changed by {turn}\n")).unwrap();
        }
    }
    id
}

fn file(root: &Path, n: usize) -> std::path::PathBuf {
    root.join(format!("src/m{:02}/file_{n:04}.rs", n % 50))
}

/// A project of `files` 4 KB source files in 50 folders.
fn project(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..files {
        let body: String = (0..FILE_BYTES / 32)
            .map(|line| format!("// file {n:04} line {line:05} ...\n"))
            .collect();
        let path = file(dir.path(), n);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    dir
}

fn rewind(c: &mut Criterion) {
    let dir = project(FILES);
    let store = CheckpointStore::open(dir.path()).unwrap();
    let mut turn = 0u64;
    let mut next = || {
        turn += 1;
        format!("t{turn}")
    };
    c.bench_function("rewind files: 100-file checkpoint", |b| {
        b.iter_batched(
            || record_turn(&store, dir.path(), &next(), FILES, FILES),
            |id| store.rollback(&id).unwrap(),
            BatchSize::PerIteration,
        );
    });
    c.bench_function("rewind files: 100-file checkpoint, 10 changed since", |b| {
        b.iter_batched(
            || record_turn(&store, dir.path(), &next(), FILES, 10),
            |id| store.rollback(&id).unwrap(),
            BatchSize::PerIteration,
        );
    });
    c.bench_function("record and rewind: 100-file turn checkpoint", |b| {
        b.iter_batched(
            &mut next,
            |name| {
                let id = record_turn(&store, dir.path(), &name, FILES, FILES);
                store.rollback(&id).unwrap();
            },
            BatchSize::PerIteration,
        );
    });
}

fn big_tree(c: &mut Criterion) {
    let dir = project(TREE_FILES);
    let store = CheckpointStore::open(dir.path()).unwrap();
    // 200 earlier turns of 5 changed files each.
    for n in 0..STORED_CHECKPOINTS {
        let turn = format!("old{n}");
        store
            .begin_turn(&turn, "bench", 0, "conv_bench", 0, b"{\"messages\":[]}")
            .unwrap();
        for k in 0..5 {
            let path = file(dir.path(), (n * 5 + k) % TREE_FILES);
            store.record_before(&turn, &path).unwrap();
            std::fs::write(&path, format!("// {turn}\n")).unwrap();
        }
    }
    c.bench_function("checkpoints list: sizes of 200 checkpoints", |b| {
        b.iter(|| store.sizes().unwrap());
    });
    let mut turn = 0u64;
    c.bench_function(
        "turn checkpoint: mark + 10 changed files, 1,000-file tree, 200 stored",
        |b| {
            b.iter_batched(
                || {
                    turn += 1;
                    format!("new{turn}")
                },
                |name| {
                    store
                        .begin_turn(&name, "bench", 0, "conv_bench", 0, b"{\"messages\":[]}")
                        .unwrap();
                    for k in 0..10 {
                        store
                            .record_before(&name, &file(dir.path(), k * 97))
                            .unwrap();
                    }
                },
                BatchSize::PerIteration,
            );
        },
    );
}

criterion_group!(benches, rewind, big_tree);
criterion_main!(benches);
