//! `cargo xtask bench-knowledge`: the latency of the knowledge tools as whole `keel tool call`
//! processes (spawn to exit, JSON printed): `read_library_docs tokio` (with and without a
//! topic) and `list_package_info` (a path, with its git log, and a dependency name) on this
//! repository — its Cargo.lock and the cargo registry under `CARGO_HOME` — and the npm and
//! Python lookups on the test-support packages fixture; `read_file` as the process baseline.
//! Prints min, p50, p95 and max per case. Options: `--runs N` (default 20), `--keel PATH` (use
//! this binary instead of building one in release).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use keel_test_support::packages::packages_fixture;

use crate::bench_startup::{BenchArgs, build_keel, workspace_root};

/// Runs the benchmark with `args`.
pub fn run(args: &[String]) -> Result<()> {
    let BenchArgs { runs, keel } = BenchArgs::parse(args, 20)?;
    let workspace = workspace_root()?;
    let keel = match keel {
        Some(keel) => keel,
        None => build_keel(&workspace)?,
    };
    let fixture = packages_fixture(false);
    let cases: [(&str, &Path, &str, &str); 8] = [
        (
            "read_file Cargo.toml (baseline)",
            &workspace,
            "read_file",
            r#"{"path":"Cargo.toml"}"#,
        ),
        (
            "read_library_docs tokio",
            &workspace,
            "read_library_docs",
            r#"{"library":"tokio"}"#,
        ),
        (
            "read_library_docs tokio spawn_blocking",
            &workspace,
            "read_library_docs",
            r#"{"library":"tokio","topic":"spawn_blocking"}"#,
        ),
        (
            "list_package_info crates/tools/src/lib.rs",
            &workspace,
            "list_package_info",
            r#"{"path":"crates/tools/src/lib.rs"}"#,
        ),
        (
            "list_package_info tokio",
            &workspace,
            "list_package_info",
            r#"{"path":"tokio"}"#,
        ),
        (
            "read_library_docs left-pad (npm fixture)",
            &fixture.root,
            "read_library_docs",
            r#"{"library":"left-pad"}"#,
        ),
        (
            "read_library_docs tinyhttp (venv fixture)",
            &fixture.root,
            "read_library_docs",
            r#"{"library":"tinyhttp"}"#,
        ),
        (
            "list_package_info tinyhttp (venv fixture)",
            &fixture.root,
            "list_package_info",
            r#"{"path":"tinyhttp"}"#,
        ),
    ];
    println!("{runs} runs per case, {}", keel.display());
    println!(
        "{:<44} {:>8} {:>8} {:>8} {:>8}",
        "case", "min ms", "p50 ms", "p95 ms", "max ms"
    );
    for (label, root, tool, arguments) in cases {
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let started = Instant::now();
            let output = Command::new(&keel)
                .args(["tool", "call", tool, arguments, "--root"])
                .arg(root)
                .stdin(Stdio::null())
                .output()
                .with_context(|| format!("cannot run {}", keel.display()))?;
            times.push(started.elapsed());
            if !output.status.success() {
                bail!(
                    "{label} failed: {}",
                    String::from_utf8_lossy(&output.stdout)
                );
            }
        }
        times.sort();
        let at = |q: f64| ms(times[((times.len() - 1) as f64 * q).round() as usize]);
        println!(
            "{label:<44} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
            at(0.0),
            at(0.5),
            at(0.95),
            at(1.0)
        );
    }
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}
