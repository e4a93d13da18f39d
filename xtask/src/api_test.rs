//! `cargo xtask api-test [--server PATH] [-- SCHEMATHESIS ARGS…]`: the HTTP API against its own
//! OpenAPI document, with schemathesis (PyPI) and every check on, all phases including the
//! stateful one (links from `POST /v1/sessions` to the operations under `/v1/sessions/{id}`),
//! on a real `keel-server` (scripted provider, SQLite in a temp dir) over loopback.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result};
use keel_test_support::copy_dir;

use crate::bench_server::server::{Process, Spec};
use crate::codegen::repo_root;

/// The bearer token the server under test accepts.
const TOKEN: &str = "keel-api-test-token";

/// Runs schemathesis against a fresh server; the exit code is schemathesis's.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let (ours, extra) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let root = repo_root();
    let binary = match ours {
        [] => build_server(&root)?,
        [flag, path] if flag == "--server" => PathBuf::from(path),
        _ => anyhow::bail!("usage: cargo xtask api-test [--server PATH] [-- SCHEMATHESIS ARGS…]"),
    };
    let scratch = std::env::temp_dir().join(format!("keel-api-test-{}", std::process::id()));
    let project = scratch.join("project");
    copy_dir(&root.join("examples/sample-project"), &project)?;
    let server = Process::start(&Spec {
        binary,
        data_dir: scratch.join("data"),
        database_url: None,
        token: TOKEN.to_owned(),
        script: root.join("examples/scripts/fix-bug.json"),
        allowed_root: project.clone(),
        extra_args: Vec::new(),
    })?;
    println!("keel-server at {}", server.base);
    let status = Command::new("schemathesis")
        .arg("run")
        .arg(format!("{}/openapi.json", server.base))
        .args([
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
        ])
        .args(["--header", &format!("Authorization: Bearer {TOKEN}")])
        .args(extra)
        .current_dir(&scratch)
        .status()
        .context("could not start `schemathesis` (python3 -m pip install schemathesis)");
    let tail = server.stderr_tail();
    server.stop()?;
    let _ = std::fs::remove_dir_all(&scratch);
    let status = status?;
    if !status.success() {
        eprintln!("keel-server's last log lines:\n{tail}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `cargo build -p keel-server`, and the binary's path (debug: the API, not speed, is tested).
fn build_server(root: &std::path::Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(["build", "-p", "keel-server", "--bin", "keel-server"])
        .current_dir(root)
        .status()
        .context("cannot run cargo")?;
    anyhow::ensure!(
        status.success(),
        "cargo build -p keel-server failed ({status})"
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("debug/keel-server"))
}
