//! `replace_in_file` on a 20,000-line file: exact and whitespace-tolerant blocks, both the
//! matcher alone and the whole tool call (read, apply, checkpoint-free write, diff, event).
#![allow(missing_docs, clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use keel_events::{Bus, Emitter, Sequencer};
use keel_tools::search_replace::apply;
use keel_tools::{ToolContext, ToolRegistry};
use serde_json::json;

const LINES: usize = 20_000;

fn file() -> String {
    (0..LINES)
        .map(|i| format!("    fn item_{i}(&self) -> usize {{ self.value * {i} }}\n"))
        .collect()
}

fn block(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

/// Four blocks spread over the file, matched exactly.
fn exact_diff() -> String {
    [1_000, 8_000, 15_000, 19_990]
        .iter()
        .map(|i| {
            block(
                &format!("    fn item_{i}(&self) -> usize {{ self.value * {i} }}"),
                &format!("    fn item_{i}(&self) -> usize {{ self.other * {i} }}"),
            )
        })
        .collect()
}

/// Four blocks whose indentation and trailing whitespace differ from the file's.
fn tolerant_diff() -> String {
    [1_000, 8_000, 15_000, 19_990]
        .iter()
        .enumerate()
        .map(|(n, i)| {
            let search = if n % 2 == 0 {
                format!("fn item_{i}(&self) -> usize {{ self.value * {i} }}")
            } else {
                format!("    fn item_{i}(&self) -> usize {{ self.value * {i} }}   ")
            };
            block(&search, &format!("fn item_{i}(&self) -> usize {{ 0 }}"))
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let text = file();
    let exact = exact_diff();
    let tolerant = tolerant_diff();
    let mut group = c.benchmark_group("replace_in_file/20k_lines");
    group.bench_function("apply_exact_4_blocks", |b| {
        b.iter(|| black_box(apply(Some(&text), &exact).unwrap()))
    });
    group.bench_function("apply_tolerant_4_blocks", |b| {
        b.iter(|| black_box(apply(Some(&text), &tolerant).unwrap()))
    });

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let ctx = ToolContext::new(
        &root,
        Emitter::new(Sequencer::new("s", "p"), Bus::default()),
    );
    let registry = ToolRegistry::builtin();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (name, diff) in [
        ("tool_call_exact_4_blocks", &exact),
        ("tool_call_tolerant_4_blocks", &tolerant),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                std::fs::write(root.join("big.rs"), &text).unwrap();
                let result = runtime.block_on(registry.call(
                    &ctx,
                    "replace_in_file",
                    json!({"path": "big.rs", "diff": diff}),
                ));
                assert!(result.success, "{}", result.message);
                black_box(result)
            })
        });
    }
    group.finish();
}

criterion_group!(replace_benches, benches);
criterion_main!(replace_benches);
