//! Processes as `/proc` shows them, to check that nothing a test started survives it, and the
//! one rule for tests that need a program installed from outside (npm, PyPI).

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Live (non-zombie) processes whose process group is `pgid`.
pub fn live_members(pgid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" {
            out.push(pid);
        }
    }
    out
}

/// Waits up to `within` for process group `pgid` to be empty; the members still alive if it
/// is not.
pub async fn group_gone_within(pgid: i32, within: Duration) -> Result<(), Vec<i32>> {
    let until = Instant::now() + within;
    loop {
        let live = live_members(pgid);
        if live.is_empty() {
            return Ok(());
        }
        if Instant::now() >= until {
            return Err(live);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `program` found on `PATH` (or the path in environment variable `env_override`, when set). When
/// it is missing, a test skips with a printed reason (`None`) — unless `CI` is set, where a
/// missing test peer is a failure.
pub fn external_program(program: &str, env_override: &str, install_hint: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(env_override).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
        assert!(
            !ci,
            "`{program}` is not installed and CI is set: {install_hint} (or set {env_override})"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "skipped: `{program}` is not installed ({install_hint}, or set {env_override})"
            );
        }
    }
    found
}
