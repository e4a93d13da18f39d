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
        name: "unused dependencies",
        program: "cargo",
        args: &["machete"],
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
        name: "keel-cli without the server (no Node.js needed)",
        program: "cargo",
        args: &["check", "-p", "keel-cli", "--no-default-features"],
        dir: ".",
    },
    Step {
        name: "library crates packaged (cargo package, without the verification build)",
        program: "cargo",
        args: &[
            "package",
            "--workspace",
            "--exclude",
            "keel-cli",
            "--exclude",
            "keel-server",
            "--exclude",
            "keel-test-support",
            "--exclude",
            "xtask",
            "--no-verify",
            "--allow-dirty",
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
        name: "npm ci (@keel/events)",
        program: "npm",
        args: &["ci", "--no-audit", "--no-fund"],
        dir: "schemas/ts",
    },
    Step {
        name: "build @keel/events (tsc --strict: ESM, .d.ts, source maps)",
        program: "npm",
        args: &["run", "build"],
        dir: "schemas/ts",
    },
    Step {
        name: "@keel/events packed and installed into a fresh Node ESM project",
        program: "node",
        args: &["consumer-node.mjs"],
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
    Step {
        name: "npm ci (@keel/client)",
        program: "npm",
        args: &["ci", "--no-audit", "--no-fund"],
        dir: "clients/ts",
    },
    Step {
        name: "@keel/client's types match crates/server/openapi.json (openapi-typescript)",
        program: "npm",
        args: &["run", "check-generated"],
        dir: "clients/ts",
    },
    Step {
        name: "build @keel/client (tsc --strict: ESM, .d.ts, source maps)",
        program: "npm",
        args: &["run", "build"],
        dir: "clients/ts",
    },
    Step {
        name: "npm ci (web page)",
        program: "npm",
        args: &["ci", "--no-audit", "--no-fund"],
        dir: "web",
    },
    Step {
        name: "web unit tests (tsc + vitest)",
        program: "npm",
        args: &["test"],
        dir: "web",
    },
];

/// After the Rust tests: the Activity Timeline page end to end, in a real Chromium, against the
/// real server binary.
const E2E_STEPS: &[Step] = &[
    Step {
        name: "build keel-server",
        program: "cargo",
        args: &["build", "-p", "keel-server"],
        dir: ".",
    },
    Step {
        name: "@keel/events + @keel/client packed into fresh Node ESM and Vite projects, against keel-server",
        program: "node",
        args: &["clients/ts/consumer-test.mjs", "target/debug/keel-server"],
        dir: ".",
    },
    Step {
        name: "schemathesis against keel-server (all checks, stateful phase)",
        program: "cargo",
        args: &["xtask", "api-test", "--server", "target/debug/keel-server"],
        dir: ".",
    },
    Step {
        name: "web end-to-end (chromium + playwright-core)",
        program: "node",
        args: &["web/e2e/timeline.e2e.mjs", "target/debug/keel-server"],
        dir: ".",
    },
];

/// Runs every check; the exit code is the first failure's.
pub fn run(args: &[String]) -> anyhow::Result<ExitCode> {
    if !args.is_empty() {
        anyhow::bail!("usage: cargo xtask ci");
    }
    let root = repo_root();
    let started = Instant::now();
    println!("\n== tidy (ARCHITECTURE.md against the crates)");
    if crate::tidy::run(&[])? != ExitCode::SUCCESS {
        return Ok(ExitCode::FAILURE);
    }
    println!("\n== thin-deps (no tantivy or tree-sitter in keel-acp, keel-mcp-serve)");
    if crate::thin_deps::run(&[])? != ExitCode::SUCCESS {
        return Ok(ExitCode::FAILURE);
    }
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
    if !validate_live_runs(&root)? {
        return Ok(ExitCode::FAILURE);
    }
    for step in E2E_STEPS {
        if !run_step(&root, step)? {
            return Ok(ExitCode::FAILURE);
        }
    }
    println!("\n== a real model (cargo xtask real-model)");
    if crate::real_model::run(&[])? != ExitCode::SUCCESS {
        return Ok(ExitCode::FAILURE);
    }
    println!("\nci: all checks passed in {:.0?}", started.elapsed());
    Ok(ExitCode::SUCCESS)
}

/// The offline demos (`examples/scripts/*.json`), run for real with `keel run --json` on fresh
/// copies of the sample project; every line they print must validate against the JSON Schema.
fn validate_live_runs(root: &Path) -> anyhow::Result<bool> {
    println!("\n== keel run --json (scripted demos) validated against events.schema.json");
    let out_dir = root.join("target/ci-runs");
    if out_dir.exists() {
        std::fs::remove_dir_all(&out_dir)
            .with_context(|| format!("clearing {}", out_dir.display()))?;
    }
    std::fs::create_dir_all(&out_dir)?;
    let keel = in_target_dir(root, "target/debug/keel");
    let mut outputs = Vec::new();
    for (script, task) in [
        ("fix-bug", "Fix the failing test"),
        ("plan", "Fix mean() and tidy the tests"),
    ] {
        let project = out_dir.join(format!("{script}-project"));
        let copied = Command::new("cp")
            .arg("-r")
            .arg(root.join("examples/sample-project"))
            .arg(&project)
            .status()
            .context("could not start `cp`")?;
        if !copied.success() {
            anyhow::bail!("could not copy the sample project");
        }
        let output = Command::new(&keel)
            .args(["run", "--json", "--provider"])
            .arg(format!(
                "scripted:{}",
                root.join(format!("examples/scripts/{script}.json"))
                    .display()
            ))
            .arg("--root")
            .arg(&project)
            .arg(task)
            .output()
            .with_context(|| {
                format!(
                    "could not start {} (built by the tests step)",
                    keel.display()
                )
            })?;
        let file = out_dir.join(format!("{script}.jsonl"));
        std::fs::write(&file, &output.stdout)?;
        let lines = output.stdout.iter().filter(|&&b| b == b'\n').count();
        println!(
            "{script}: exit {:?}, {lines} event(s)",
            output.status.code()
        );
        if !output.status.success() || lines == 0 {
            eprintln!("{}", String::from_utf8_lossy(&output.stderr));
            println!("== keel run --json: FAILED ({script})");
            return Ok(false);
        }
        outputs.push(file);
    }
    let status = Command::new("node")
        .arg("validate.mjs")
        .args(&outputs)
        .current_dir(root.join("schemas/check"))
        .status()
        .context("could not start `node`")?;
    println!(
        "== keel run --json: {}",
        if status.success() { "ok" } else { "FAILED" }
    );
    Ok(status.success())
}

/// `arg` with a leading `target/` moved to `$CARGO_TARGET_DIR` when that is set, since cargo
/// builds there.
pub(crate) fn in_target_dir(root: &Path, arg: &str) -> std::ffi::OsString {
    match (
        arg.strip_prefix("target/"),
        std::env::var_os("CARGO_TARGET_DIR"),
    ) {
        (Some(rest), Some(dir)) => root.join(dir).join(rest).into_os_string(),
        _ => arg.into(),
    }
}

fn run_step(root: &Path, step: &Step) -> anyhow::Result<bool> {
    println!(
        "\n== {} ({} {})",
        step.name,
        step.program,
        step.args.join(" ")
    );
    let started = Instant::now();
    let mut command = Command::new(step.program);
    command
        .args(step.args.iter().map(|arg| in_target_dir(root, arg)))
        .current_dir(root.join(step.dir));
    // `cargo xtask` runs this under `cargo run`, which describes the xtask package in the
    // environment; a step is about the workspace, and cargo-machete reads CARGO_PKG_NAME as
    // "invoked as a cargo subcommand" and fails.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("CARGO_PKG_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_CRATE_NAME",
                "CARGO_BIN_NAME",
                "CARGO_PRIMARY_PACKAGE",
            ]
            .contains(&name.as_ref())
        {
            command.env_remove(name.as_ref());
        }
    }
    let status = command
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
