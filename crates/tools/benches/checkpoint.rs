//! Rewinding files: restoring a 100-file checkpoint (every blob checked against its hash, then
//! written back), and recording one (a turn's mark, then each file's before-content).
#![allow(missing_docs, clippy::unwrap_used)]

use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use keel_tools::CheckpointStore;

const FILES: usize = 100;
const FILE_BYTES: usize = 4 * 1024;

/// Records turn `turn` over the 100 files, then changes every one of them.
fn record_turn(store: &CheckpointStore, root: &Path, turn: &str) -> String {
    let id = store
        .begin_turn(turn, "bench", 0, "conv_bench", 0, b"{\"messages\":[]}")
        .unwrap()
        .id;
    for n in 0..FILES {
        let path = root.join(format!("src/file_{n:03}.rs"));
        store.record_before(turn, &path).unwrap();
        std::fs::write(&path, format!("// changed by {turn}\n")).unwrap();
    }
    id
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for n in 0..FILES {
        let body: String = (0..FILE_BYTES / 32)
            .map(|line| format!("// file {n:03} line {line:05} ....\n"))
            .collect();
        std::fs::write(dir.path().join(format!("src/file_{n:03}.rs")), body).unwrap();
    }
    dir
}

fn bench(c: &mut Criterion) {
    let dir = project();
    let store = CheckpointStore::open(dir.path()).unwrap();
    let mut turn = 0u64;
    c.bench_function("rewind files: 100-file checkpoint", |b| {
        b.iter_batched(
            || {
                turn += 1;
                record_turn(&store, dir.path(), &format!("t{turn}"))
            },
            |id| store.rollback(&id).unwrap(),
            BatchSize::PerIteration,
        );
    });
    c.bench_function("record and rewind: 100-file turn checkpoint", |b| {
        b.iter_batched(
            || {
                turn += 1;
                format!("t{turn}")
            },
            |name| {
                let id = record_turn(&store, dir.path(), &name);
                store.rollback(&id).unwrap();
            },
            BatchSize::PerIteration,
        );
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
