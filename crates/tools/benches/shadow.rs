//! The shadow workspace on a 1,000-file project: a `write_file` call in the shadow (with the
//! sync that precedes every shadowed call) against the same call on the real tree, making the
//! view (first shadowed turn), a sync when nothing changed and after 10 outside edits, computing
//! the staged batch, and applying it (10 changed files; all 1,000 changed).
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use keel_events::{Bus, Emitter, Sequencer};
use keel_tools::{Shadow, ToolContext, ToolRegistry};
use serde_json::json;

const FILES: usize = 1_000;

/// 1,000 source files of ~40 lines in 20 folders.
fn project(root: &Path) {
    for i in 0..FILES {
        let dir = root.join(format!("src/mod_{}", i % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let body: String = (0..40)
            .map(|l| format!("pub fn f_{i}_{l}(x: u64) -> u64 {{ x * {l} + {i} }}\n"))
            .collect();
        std::fs::write(dir.join(format!("file_{i}.rs")), body).unwrap();
    }
}

fn project_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    (dir, root)
}

/// Changes `count` files of the shadow copy (as tools or commands would).
fn change(shadow: &Shadow, count: usize) {
    for i in 0..count {
        let path = shadow
            .tree()
            .join(format!("src/mod_{}/file_{i}.rs", i % 20));
        std::fs::write(path, format!("// changed {i}\n")).unwrap();
    }
}

fn benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let registry = ToolRegistry::builtin();
    let emitter = || Emitter::new(Sequencer::new("s", "p"), Bus::default());
    let mut group = c.benchmark_group("shadow/1000_files");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(5));

    // write_file: the same call on the real tree and in the shadow copy.
    let (_real_dir, real_root) = project_dir();
    let plain = ToolContext::new(&real_root, emitter());
    let (_shadow_dir, shadow_root) = project_dir();
    let mut shadow = Shadow::open_or_create(&shadow_root, "bench").unwrap();
    let shadowed = ToolContext::new(&shadow_root, emitter()).in_shadow(shadow.tree());
    let mut n = 0u64;
    group.bench_function("write_file_real", |b| {
        b.iter(|| {
            n += 1;
            let result = runtime.block_on(registry.call(
                &plain,
                "write_file",
                json!({"path": "src/mod_3/file_3.rs", "content": format!("// {n}\n")}),
            ));
            assert!(result.success, "{}", result.message);
            black_box(result)
        })
    });
    group.bench_function("write_file_shadowed_with_sync", |b| {
        b.iter(|| {
            n += 1;
            shadow.sync().unwrap();
            let result = runtime.block_on(registry.call(
                &shadowed,
                "write_file",
                json!({"path": "src/mod_3/file_3.rs", "content": format!("// {n}\n")}),
            ));
            assert!(result.success, "{}", result.message);
            black_box(result)
        })
    });

    // Before every shadowed call: nothing changed, and 10 real files edited outside.
    let (_dir, root) = project_dir();
    let mut synced = Shadow::open_or_create(&root, "sync").unwrap();
    group.bench_function("sync_nothing_changed", |b| {
        b.iter(|| synced.sync().unwrap())
    });
    group.bench_function("sync_10_edited_outside", |b| {
        b.iter_batched(
            || {
                for i in 0..10 {
                    let path = root.join(format!("src/mod_{}/file_{i}.rs", i % 20));
                    std::fs::write(path, format!("// outside {}\n", n)).unwrap();
                    n += 1;
                }
            },
            |()| synced.sync().unwrap(),
            BatchSize::PerIteration,
        )
    });

    // The first shadowed turn of a session makes the view.
    let (_dir, root) = project_dir();
    group.bench_function("create_view", |b| {
        b.iter_batched(
            || {
                let _ = std::fs::remove_dir_all(root.join(".keel/shadow"));
            },
            |()| black_box(Shadow::open_or_create(&root, "copy").unwrap()),
            BatchSize::PerIteration,
        )
    });

    // The batch at the end of a turn, 10 files changed.
    let (_dir, root) = project_dir();
    let mut staged = Shadow::open_or_create(&root, "batch").unwrap();
    change(&staged, 10);
    group.bench_function("batch_10_changed", |b| {
        b.iter(|| {
            let batch = staged.batch().unwrap();
            assert_eq!(batch.changes.len(), 10);
            black_box(batch)
        })
    });

    for changed in [10, FILES] {
        let (_dir, root) = project_dir();
        group.bench_function(format!("apply_{changed}_changed"), |b| {
            b.iter_batched(
                || {
                    let _ = std::fs::remove_dir_all(root.join(".keel/shadow"));
                    project(&root);
                    let shadow = Shadow::open_or_create(&root, "apply").unwrap();
                    change(&shadow, changed);
                    shadow
                },
                |shadow| {
                    let report = shadow.apply(&[]).unwrap();
                    assert_eq!(report.applied.len(), changed);
                    black_box(report)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(shadow_benches, benches);
criterion_main!(shadow_benches);
