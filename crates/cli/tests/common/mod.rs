//! Shared by the integration tests: temp copies of the sample project and the `keel` binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A test script under `crates/cli/tests/scripts/`.
pub fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

/// Copies `from` into `to`, skipping `__pycache__`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "__pycache__" && entry.file_name() != ".keel" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A temp folder holding a copy of `examples/sample-project` in `project/`.
pub fn sample_project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    copy_dir(&repo().join("examples/sample-project"), &root);
    (dir, root)
}

/// `keel` with a clean environment for settings: no KEEL_* variables, no user `keel.toml`.
pub fn keel(config_dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_keel"));
    command
        .env_remove("KEEL_MODEL")
        .env_remove("KEEL_BASE_URL")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env("KEEL_CONFIG_DIR", config_dir);
    command
}

/// Every line of `stdout` parsed as an event.
pub fn events(stdout: &str) -> Vec<keel_events::Event> {
    stdout
        .lines()
        .enumerate()
        .map(|(n, line)| {
            keel_events::parse_line(n + 1, line)
                .unwrap_or_else(|e| panic!("line {} does not parse: {e}\n{line}", n + 1))
        })
        .collect()
}
