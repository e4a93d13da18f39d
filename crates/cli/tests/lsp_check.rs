//! `keel lsp check` with the real pyright: errors printed one per line and exit 1, `--json`,
//! a clean file exit 0.

use crate::common::keel;

fn require_pyright() {
    let found = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join("pyright-langserver").is_file())
    });
    assert!(
        found,
        "`pyright-langserver` is not installed: this test needs the real server. Install it with `npm install -g pyright` (.ci/run does)."
    );
}

#[test]
fn lsp_check_prints_errors_and_fails_then_passes_when_fixed() {
    require_pyright();
    let config = tempfile::tempdir().unwrap();
    // Generous waits: this checks what pyright says, not how fast, on a possibly busy machine.
    std::fs::write(
        config.path().join("keel.toml"),
        "[lsp.python]\nwait_ms = 30000\nstart_wait_ms = 60000\n",
    )
    .unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    std::fs::write(root.join("app.py"), "label: str = 1\n").unwrap();
    std::fs::write(root.join("notes.md"), "# notes\n").unwrap();

    let out = keel(config.path())
        .args(["lsp", "check", "--root"])
        .arg(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("app.py:1:14 error "), "{stdout}");

    let out = keel(config.path())
        .args(["lsp", "check", "--json", "--root"])
        .arg(root)
        .arg("app.py")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["path"], "app.py");
    assert_eq!(json["diagnostics"][0]["severity"], "error");
    assert_eq!(json["servers"][0], "pyright-langserver");

    std::fs::write(root.join("app.py"), "label: str = 'one'\n").unwrap();
    let out = keel(config.path())
        .args(["lsp", "check", "--root"])
        .arg(root)
        .args(["app.py", "notes.md"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("No errors or warnings."), "{stdout}");
    assert!(
        stdout.contains("`notes.md`: no language server covers it"),
        "{stdout}"
    );
}
