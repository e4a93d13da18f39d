//! `cargo xtask real-model`: Keel on a real model, end to end, as CI's last step: `keel eval`
//! runs one task against the OpenAI-compatible endpoint in `KEEL_REALMODEL_URL` (the local
//! Qwen2.5-Coder-1.5B that `../shared/realmodel/setup.sh` serves), and the step fails unless
//! the task is solved within the cap. A change that breaks Keel for real models fails CI.
//!
//! Without `KEEL_REALMODEL_URL` the step prints a notice and passes, except under `CI=true`,
//! where it fails: CI cannot pass by skipping it.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::Context;

use crate::codegen::repo_root;

/// Where the endpoint comes from.
pub const URL_VAR: &str = "KEEL_REALMODEL_URL";
/// The model's name there (default [`DEFAULT_MODEL`]).
pub const MODEL_VAR: &str = "KEEL_REALMODEL_MODEL";
/// The model `setup.sh` serves by default.
pub const DEFAULT_MODEL: &str = "qwen2.5-coder-1.5b-instruct";
/// The task: one the model solves at temperature 0, every time it was tried (`eval/ci`, a
/// suite of its own so the development suite's figures stay comparable).
pub const TASK: &str = "eval/ci/py-word-count";
/// Most seconds the task may take.
pub const CAP_SECS: u64 = 360;

/// Runs the step; `--keel PATH` picks the binary (default `target/debug/keel`).
pub fn run(args: &[String]) -> anyhow::Result<ExitCode> {
    let root = repo_root();
    let keel = match args {
        [] => crate::ci::in_target_dir(&root, "target/debug/keel"),
        [flag, path] if flag == "--keel" => path.into(),
        _ => anyhow::bail!("usage: cargo xtask real-model [--keel PATH]"),
    };
    let Some(url) = std::env::var(URL_VAR).ok().filter(|v| !v.trim().is_empty()) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            anyhow::bail!(
                "{URL_VAR} must be set under CI=true (.ci/run starts the model with ../shared/realmodel/setup.sh): the real-model step may not be skipped"
            );
        }
        println!(
            "real model: {URL_VAR} is not set; skipped (start one with ../shared/realmodel/setup.sh)"
        );
        return Ok(ExitCode::SUCCESS);
    };
    let model = std::env::var(MODEL_VAR).unwrap_or_else(|_| DEFAULT_MODEL.to_owned());
    let out = root.join("target/real-model/results.jsonl");
    if let Some(dir) = out.parent()
        && dir.exists()
    {
        std::fs::remove_dir_all(dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    let started = Instant::now();
    let status = Command::new(&keel)
        .arg("eval")
        .arg(root.join(TASK))
        .args(["--base-url", &url, "--model", &model])
        .args(["--cap", &CAP_SECS.to_string()])
        // One attempt: every answer sampled at temperature 0, so a failure is Keel's, not luck's.
        .args(["--keel-arg", "--attempts", "--keel-arg", "1"])
        .arg("--out")
        .arg(&out)
        .status()
        .with_context(|| format!("could not start {}", Path::new(&keel).display()))?;
    let result = std::fs::read_to_string(&out)
        .with_context(|| format!("keel eval wrote no results ({})", out.display()))?;
    let row: serde_json::Value = serde_json::from_str(result.lines().next().unwrap_or("{}"))
        .context("the results line is not JSON")?;
    let solved = row["solved"].as_bool() == Some(true);
    println!(
        "real model: {TASK} with {model}: {} in {:.0?} (keel eval exit {:?}; {} model calls, {} prompt tokens, {} cached; ended: {})",
        if solved { "solved" } else { "NOT solved" },
        started.elapsed(),
        status.code(),
        row["model_calls"],
        row["prompt_tokens"],
        row["cached_tokens"],
        row["ended"],
    );
    Ok(if solved {
        ExitCode::SUCCESS
    } else {
        println!("  logs: {}", out.with_file_name("runs").display());
        ExitCode::FAILURE
    })
}
