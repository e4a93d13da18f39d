//! `cargo xtask codegen [--check]`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

/// The repository root (xtask lives one level below it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Writes the generated files, or with `--check` reports the ones that differ.
pub fn run(args: &[String]) -> anyhow::Result<ExitCode> {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => anyhow::bail!("usage: cargo xtask codegen [--check]"),
    };
    let root = repo_root();
    if check {
        let mut drift: Vec<(String, String)> =
            keel_events::codegen::drift(|path| std::fs::read_to_string(root.join(path)).ok())
                .into_iter()
                .map(|d| (d.path.to_string(), d.summary))
                .collect();
        let schema = keel_config::schema::contents();
        match std::fs::read_to_string(root.join(keel_config::schema::PATH)) {
            Ok(old) if old == schema => {}
            Ok(_) => drift.push((keel_config::schema::PATH.to_owned(), "differs".to_owned())),
            Err(_) => drift.push((keel_config::schema::PATH.to_owned(), "missing".to_owned())),
        }
        if drift.is_empty() {
            println!("codegen: generated files are up to date");
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("codegen: generated files are out of date (run `cargo xtask codegen`):");
        for (path, summary) in drift {
            eprintln!("  {path}: {summary}");
        }
        return Ok(ExitCode::FAILURE);
    }
    let config_schema = (keel_config::schema::PATH, keel_config::schema::contents());
    let files = keel_events::codegen::generate()
        .into_iter()
        .map(|file| (file.path, file.contents))
        .chain([config_schema]);
    for (file_path, contents) in files {
        let path = root.join(file_path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let unchanged = std::fs::read_to_string(&path).is_ok_and(|old| old == contents);
        if !unchanged {
            std::fs::write(&path, &contents)
                .with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {file_path}");
        }
    }
    write_openapi(&root)
}

/// `crates/server/openapi.json` comes from the server's own code (utoipa), so the server's drift
/// test writes it; `cargo test` also checks it there, which is why `--check` leaves it alone.
fn write_openapi(root: &std::path::Path) -> anyhow::Result<ExitCode> {
    let status = std::process::Command::new("cargo")
        .args([
            "test",
            "--quiet",
            "-p",
            "keel-server",
            "--test",
            "integration",
            "openapi_json_is_committed_and_current",
        ])
        .env("KEEL_UPDATE_OPENAPI", "1")
        .current_dir(root)
        .status()
        .context("could not start `cargo test` to write crates/server/openapi.json")?;
    if !status.success() {
        eprintln!("codegen: could not write crates/server/openapi.json");
        return Ok(ExitCode::FAILURE);
    }
    println!("crates/server/openapi.json is current");
    Ok(ExitCode::SUCCESS)
}
