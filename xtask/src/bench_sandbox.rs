//! `cargo xtask bench-sandbox`: what the command sandbox adds to a tool call.
//!
//! Calls `execute_command` with `{"command": "true"}` through keel-tools' registry, N times per
//! mode (`off`, `workspace-write`, `read-only`, interleaved so drift hits all alike), on a copy
//! of `examples/sample-project` with a `.git` folder (so the read-only binds are made), and
//! prints min, p50, p95 and max per mode, and the p50 overhead against `off`. With
//! `--keel PATH` it also times the whole `keel tool call execute_command` process per mode.
//! Options: `--runs N` (default 200), `--keel PATH`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::bench_startup::{BenchArgs, workspace_root};
use anyhow::{Context, Result, bail};
use keel_events::{Bus, Emitter, Sequencer};
use keel_protocol::{ApprovalPolicy, CannotAsk};
use keel_sandbox::{SandboxMode, SandboxPolicy};
use keel_test_support::copy_dir;
use keel_tools::process::CommandSandbox;
use keel_tools::{ToolContext, ToolRegistry};

const MODES: [SandboxMode; 3] = [
    SandboxMode::Off,
    SandboxMode::WorkspaceWrite,
    SandboxMode::ReadOnly,
];

/// Runs the benchmark with `args`.
pub fn run(args: &[String]) -> Result<()> {
    let BenchArgs { runs, keel } = BenchArgs::parse(args, 200)?;
    let workspace = workspace_root()?;
    let scratch = tempfile_dir()?;
    let root = scratch.join("project");
    copy_dir(&workspace.join("examples/sample-project"), &root)
        .context("cannot copy examples/sample-project")?;
    std::fs::create_dir_all(root.join(".git")).context("cannot create .git")?;
    let root = root.canonicalize()?;

    let result = measure_in_process(&root, runs).and_then(|()| match &keel {
        Some(keel) => measure_process(keel, &root, runs.min(50)),
        None => Ok(()),
    });
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("keel-bench-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

fn measure_in_process(root: &Path, runs: usize) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let registry = ToolRegistry::builtin();
    let emitter = Emitter::new(Sequencer::new("bench", "bench"), Bus::default());
    let contexts = MODES
        .iter()
        .map(|mode| {
            let sandbox = CommandSandbox::resolve(SandboxPolicy::new(*mode), root);
            if let CommandSandbox::Refused(why) = &sandbox {
                bail!("{mode}: {why}");
            }
            Ok(ToolContext::new(root.to_path_buf(), emitter.clone())
                .with_approval(ApprovalPolicy::Never, Arc::new(CannotAsk))
                .with_sandbox(sandbox))
        })
        .collect::<Result<Vec<_>>>()?;
    let arguments = serde_json::json!({"command": "true", "requires_approval": false});
    let mut times = vec![Vec::with_capacity(runs); MODES.len()];
    // One warm-up call per mode.
    for ctx in &contexts {
        let result = runtime.block_on(registry.call(ctx, "execute_command", arguments.clone()));
        if !result.success {
            bail!("`true` failed: {}", result.message);
        }
    }
    for _ in 0..runs {
        for (i, ctx) in contexts.iter().enumerate() {
            let started = Instant::now();
            let result = runtime.block_on(registry.call(ctx, "execute_command", arguments.clone()));
            times[i].push(started.elapsed());
            if !result.success {
                bail!("`true` failed in {}: {}", MODES[i], result.message);
            }
        }
    }
    println!("execute_command `true` in process, {runs} calls per mode:");
    report(&mut times)
}

fn measure_process(keel: &Path, root: &Path, runs: usize) -> Result<()> {
    let arguments = r#"{"command": "true", "requires_approval": false}"#;
    let mut times = vec![Vec::with_capacity(runs); MODES.len()];
    for _ in 0..runs {
        for (i, mode) in MODES.iter().enumerate() {
            let started = Instant::now();
            let status = Command::new(keel)
                .args(["tool", "call", "execute_command", arguments, "--root"])
                .arg(root)
                .args(["--sandbox", mode.as_str()])
                .stdout(std::process::Stdio::null())
                .status()
                .with_context(|| format!("cannot run {}", keel.display()))?;
            times[i].push(started.elapsed());
            if !status.success() {
                bail!("keel tool call failed in {mode} ({status})");
            }
        }
    }
    println!("\nwhole `keel tool call execute_command` process, {runs} runs per mode:");
    report(&mut times)
}

fn report(times: &mut [Vec<Duration>]) -> Result<()> {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mut p50s = Vec::new();
    for (mode, samples) in MODES.iter().zip(times.iter_mut()) {
        samples.sort();
        let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        let p50 = at(0.5);
        p50s.push(p50);
        println!(
            "  {:<16} min {:>7.2} ms  p50 {:>7.2} ms  p95 {:>7.2} ms  max {:>7.2} ms",
            mode.as_str(),
            ms(samples[0]),
            ms(p50),
            ms(at(0.95)),
            ms(samples[samples.len() - 1]),
        );
    }
    let base = ms(p50s[0]);
    for (mode, p50) in MODES.iter().zip(&p50s).skip(1) {
        println!(
            "  {} adds {:.2} ms at p50 ({:+.0}%)",
            mode.as_str(),
            ms(*p50) - base,
            (ms(*p50) / base - 1.0) * 100.0
        );
    }
    Ok(())
}
