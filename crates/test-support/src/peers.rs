//! Third-party test peers (the MCP Python SDK, …) and the one rule for a missing one: `.ci/run`
//! installs them, so under `CI=true` a missing peer fails the test; elsewhere the test is
//! skipped with a notice saying what to install.

use std::process::{Command, Stdio};

/// The Python interpreter that can import `module` (`python3`), or `None` after a notice on
/// standard error when it cannot and `CI` is not `true`. Panics under `CI=true`.
pub fn python_with(module: &str, install: &str) -> Option<String> {
    let python = "python3";
    let found = Command::new(python)
        .args(["-c", &format!("import {module}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if found {
        return Some(python.to_owned());
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "`{python} -c 'import {module}'` fails under CI=true: `.ci/run` installs it ({install})"
        );
    }
    #[allow(clippy::print_stderr)] // the notice is the point: a skip must not be silent
    {
        eprintln!("note: Python module `{module}` is missing ({install}); skipping");
    }
    None
}

/// True when `program` runs (`program version_arg` succeeds); otherwise a notice on standard
/// error and `false` when `CI` is not `true`, a panic under `CI=true` (`.ci/run` installs it).
pub fn program_available(program: &str, version_arg: &str, install: &str) -> bool {
    let found = Command::new(program)
        .arg(version_arg)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if found {
        return true;
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("`{program} {version_arg}` fails under CI=true: `.ci/run` installs it ({install})");
    }
    #[allow(clippy::print_stderr)] // the notice is the point: a skip must not be silent
    {
        eprintln!("note: `{program}` is missing ({install}); skipping");
    }
    false
}
