//! Edit → diagnostics latency with a warm server: pyright on a small Python project and
//! rust-analyzer on a small crate, each edit alternating between a file with a type error and
//! the same file fixed. After a warm-up of a few edits, prints p50/p95 over `KEEL_LSP_BENCH_EDITS` edits (default 25) each.
//! `cargo bench -p keel-lsp --bench edit_latency`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use keel_lsp::{Edit, LspManager, LspSettings};
use keel_tools::process::CommandSandbox;

struct Case {
    name: &'static str,
    setup: fn(&Path),
    file: &'static str,
    clean: &'static str,
    broken: &'static str,
}

fn python(root: &Path) {
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"bench\"\nversion = \"0.1\"\n",
    )
    .unwrap();
}

fn rust(root: &Path) {
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"bench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
}

const CASES: [Case; 2] = [
    Case {
        name: "pyright",
        setup: python,
        file: "app.py",
        clean: "def double(n: int) -> int:\n    return n * 2\n\nlabel: int = double(2)\n",
        broken: "def double(n: int) -> int:\n    return n * 2\n\nlabel: str = double(2)\n",
    },
    Case {
        name: "rust-analyzer",
        setup: rust,
        file: "src/lib.rs",
        clean: "pub fn double(n: i32) -> i32 {\n    n * 2\n}\n\npub fn label() -> i32 {\n    double(2)\n}\n",
        broken: "pub fn double(n: i32) -> i32 {\n    n * 2\n}\n\npub fn label() -> String {\n    double(2)\n}\n",
    },
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * (sorted.len() as f64 - 1.0)).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let edits: usize = std::env::var("KEEL_LSP_BENCH_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25);
    for case in CASES {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        (case.setup)(root);
        std::fs::write(root.join(case.file), case.clean).unwrap();
        // The default wait unless KEEL_LSP_BENCH_WAIT_MS says otherwise (a long one measures the
        // servers' own latency rather than the bound).
        let wait_ms = std::env::var("KEEL_LSP_BENCH_WAIT_MS")
            .ok()
            .and_then(|v| v.parse().ok());
        let wait = keel_lsp::ServerConfig {
            wait_ms,
            start_wait_ms: Some(60_000),
            ..keel_lsp::ServerConfig::default()
        };
        let tables = keel_lsp::LspTables {
            python: Some(wait.clone()),
            rust: Some(wait),
            ..keel_lsp::LspTables::default()
        };
        let manager = LspManager::new(root, LspSettings::from_tables(&tables), CommandSandbox::Off);
        let edit = [Edit::Changed(case.file.to_owned())];
        let started = Instant::now();
        let first = manager
            .after_edit(&edit)
            .await
            .expect("the server did not start");
        let cold = started.elapsed();
        assert!(!first.timed_out, "{}: no answer at start", case.name);
        // Warm-up: rust-analyzer loads the workspace for a few seconds after its first answer.
        for i in 0..6 {
            let text = if i % 2 == 0 { case.broken } else { case.clean };
            std::fs::write(root.join(case.file), text).unwrap();
            manager.after_edit(&edit).await.unwrap();
        }
        std::fs::write(root.join(case.file), case.clean).unwrap();
        manager.after_edit(&edit).await.unwrap();
        let mut times = Vec::with_capacity(edits);
        let mut missed = 0;
        for i in 0..edits {
            let text = if i % 2 == 0 { case.broken } else { case.clean };
            std::fs::write(root.join(case.file), text).unwrap();
            let started = Instant::now();
            let answer = manager.after_edit(&edit).await.unwrap();
            times.push(started.elapsed());
            let has_error = !answer.items.is_empty();
            if std::env::var_os("KEEL_LSP_BENCH_VERBOSE").is_some() {
                println!(
                    "{} {i}: {:?} {:?}",
                    case.name,
                    times.last(),
                    answer.items.iter().map(|d| d.line()).collect::<Vec<_>>()
                );
            }
            if answer.timed_out || has_error != (i % 2 == 0) {
                missed += 1;
            }
        }
        times.sort();
        println!(
            "{:<14} start+first {:>6} ms | {} edits: p50 {:>4} ms, p95 {:>4} ms, max {:>4} ms | wrong or late answers: {missed}",
            case.name,
            cold.as_millis(),
            edits,
            percentile(&times, 50.0).as_millis(),
            percentile(&times, 95.0).as_millis(),
            times.last().map_or(0, Duration::as_millis),
        );
        manager.shutdown().await;
    }
}
