//! Benchmarks: token counting throughput on a large source text, and building a full prompt
//! (100 messages, 100k characters of focused files) with and without fitting.
//!
//! `cargo bench -p keel-context --bench context`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use keel_context::{
    Budget, Conversation, FocusedFiles, Memory, PromptBuilder, PromptSources, RetentionPolicy,
    TokenCounter, ToolCallRequest,
};

/// About 1 MB of real Rust: the workspace's own sources, concatenated.
fn large_source() -> String {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    collect(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    collect(&crates, &mut files);
    files.sort();
    let mut text = String::new();
    for file in files {
        if text.len() >= 1_000_000 {
            break;
        }
        text.push_str(&std::fs::read_to_string(file).unwrap_or_default());
    }
    text
}

fn source_file(seed: usize, chars: usize) -> String {
    let mut out = String::new();
    let mut i = seed;
    while out.len() < chars {
        i += 1;
        out.push_str(&format!(
            "fn handler_{i}(request: &Request) -> Result<Response, Error> {{\n    let value = request.param(\"id_{i}\")?;\n    Ok(Response::json(value * {i}))\n}}\n\n"
        ));
    }
    out.truncate(chars);
    out
}

/// 100 messages (20 turns of user, assistant+read, result, assistant+command, output) and
/// five focused files of 20,000 characters each.
fn session() -> (Conversation, FocusedFiles) {
    let policy = RetentionPolicy::default();
    let mut conversation = Conversation::new();
    let mut focused = FocusedFiles::new();
    for turn in 0..20 {
        let path = format!("src/module_{}.rs", turn % 5);
        let content = source_file(turn, 20_000);
        focused.upsert(&path, content.clone(), turn % 3 == 0);
        conversation.push_user(format!("Turn {turn}: check {path} and run the tests."));
        let read = format!("read_{turn}");
        conversation
            .push_assistant(
                "Reading the file.",
                vec![ToolCallRequest::new(
                    &read,
                    "read_file",
                    format!("{{\"path\":\"{path}\"}}"),
                )],
            )
            .unwrap();
        conversation
            .add_tool_result(&read, content, true, &policy)
            .unwrap();
        let run = format!("run_{turn}");
        conversation
            .push_assistant(
                "",
                vec![ToolCallRequest::new(
                    &run,
                    "execute_command",
                    "{\"command\":\"cargo test\"}",
                )],
            )
            .unwrap();
        conversation
            .add_tool_result(
                &run,
                "test result: ok. 42 passed\n".repeat(200),
                true,
                &policy,
            )
            .unwrap();
    }
    assert_eq!(conversation.len(), 100);
    assert_eq!(focused.total_chars(), 100_000);
    (conversation, focused)
}

fn bench(c: &mut Criterion) {
    let counter = TokenCounter::default();
    let text = large_source();
    let tokens = counter.count(&text);
    let mut group = c.benchmark_group("tokens");
    group.throughput(Throughput::Elements(tokens as u64));
    // A fresh text each time (a numbered first line), so the BPE runs: the first count of a text.
    let mut fresh = 0u64;
    group.bench_function(
        format!("count_o200k_{}_bytes_{tokens}_tokens", text.len()),
        |b| {
            b.iter_batched(
                || {
                    fresh += 1;
                    format!("// {fresh}\n{text}")
                },
                |unseen| counter.count(&unseen),
                criterion::BatchSize::LargeInput,
            )
        },
    );
    // The same text again: every later count of a history message is a memo hit.
    group.bench_function(format!("count_o200k_{}_bytes_memoised", text.len()), |b| {
        b.iter(|| counter.count(std::hint::black_box(&text)))
    });
    group.finish();

    let (conversation, focused) = session();
    let memory = Memory::new();
    let repo_map = "src/module_0.rs:\n  fn handler_1\n".repeat(50);
    let sources = PromptSources {
        instructions: "You are Keel, a coding agent.",
        memory: Some(&memory),
        repo_map: Some(&repo_map),
        libraries: None,
        focused: &focused,
        turn_notes: None,
    };
    let mut group = c.benchmark_group("prompt");
    group.sample_size(20);
    let roomy = PromptBuilder::new(counter, Budget::new(1_000_000));
    let built = roomy.build_without_summary(sources, &conversation);
    assert!(built.fits && built.steps.is_empty());
    group.bench_function(
        format!("build_100_messages_100k_focused_{}_tokens", built.tokens),
        |b| b.iter(|| roomy.build_without_summary(sources, &conversation)),
    );
    let tight = PromptBuilder::new(counter, Budget::new(16_000));
    let fitted = tight.build_without_summary(sources, &conversation);
    assert!(fitted.fits && !fitted.steps.is_empty());
    group.bench_function(
        format!("build_and_fit_into_16k_window_{}_steps", fitted.steps.len()),
        |b| {
            b.iter_batched(
                || conversation.clone(),
                |conversation| tight.build_without_summary(sources, &conversation),
                BatchSize::SmallInput,
            )
        },
    );
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
