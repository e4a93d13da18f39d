//! `cargo xtask ci`: every check CI runs, in order, stopping at the first failure.

use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::Context;

use crate::codegen::repo_root;

struct Step {
    name: &'static str,
    program: &'static str,
    args: &'static [&'static str],
    dir: &'static str,
}

const CARGO_STEPS: &[Step] = &[
    Step {
        name: "format",
        program: "cargo",
        args: &["fmt", "--all", "--check"],
        dir: ".",
    },
    Step {
        name: "clippy",
        program: "cargo",
        args: &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        dir: ".",
    },
    Step {
        name: "tests",
        program: "cargo",
        args: &["test", "--workspace"],
        dir: ".",
    },
];

const NODE_STEPS: &[Step] = &[
    Step {
        name: "npm ci (schema checks)",
        program: "npm",
        args: &["ci", "--no-audit", "--no-fund"],
        dir: "schemas/check",
    },
    Step {
        name: "tsc --strict (package)",
        program: "npx",
        args: &["tsc", "-p", "../ts/tsconfig.json"],
        dir: "schemas/check",
    },
    Step {
        name: "tsc --strict (consumer)",
        program: "npx",
        args: &["tsc", "-p", "tsconfig.json"],
        dir: "schemas/check",
    },
    Step {
        name: "ajv (sample streams)",
        program: "node",
        args: &["validate.mjs"],
        dir: "schemas/check",
    },
];

/// Runs every check; the exit code is the first failure's.
pub fn run(args: &[String]) -> anyhow::Result<ExitCode> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask ci");
    }
    let root = repo_root();
    let started = Instant::now();
    for step in CARGO_STEPS {
        if !run_step(&root, step)? {
            return Ok(ExitCode::FAILURE);
        }
    }
    println!("\n== codegen --check");
    if crate::codegen::run(&["--check".to_owned()])? != ExitCode::SUCCESS {
        return Ok(ExitCode::FAILURE);
    }
    for step in NODE_STEPS {
        if !run_step(&root, step)? {
            return Ok(ExitCode::FAILURE);
        }
    }
    println!("\nci: all checks passed in {:.0?}", started.elapsed());
    Ok(ExitCode::SUCCESS)
}

fn run_step(root: &Path, step: &Step) -> anyhow::Result<bool> {
    println!(
        "\n== {} ({} {})",
        step.name,
        step.program,
        step.args.join(" ")
    );
    let started = Instant::now();
    let status = Command::new(step.program)
        .args(step.args)
        .current_dir(root.join(step.dir))
        .status()
        .with_context(|| format!("could not start `{}` (is it installed?)", step.program))?;
    println!(
        "== {}: {} in {:.1?}",
        step.name,
        if status.success() { "ok" } else { "FAILED" },
        started.elapsed()
    );
    Ok(status.success())
}
