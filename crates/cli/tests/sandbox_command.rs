//! The command sandbox end to end: `keel tool call execute_command --sandbox …` as the real
//! binary, escape attempts against the real kernel, and `keel sandbox check`.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::run_keel;

/// A workspace `ws` (with `.git/HEAD` and `keel.toml`) inside a parent folder, and a folder
/// elsewhere.
struct Layout {
    _parent: tempfile::TempDir,
    _elsewhere: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn layout() -> Layout {
    let parent = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let root = parent.path().canonicalize().unwrap().join("ws");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join("keel.toml"), "").unwrap();
    let outside = elsewhere.path().canonicalize().unwrap();
    Layout {
        _parent: parent,
        _elsewhere: elsewhere,
        root,
        outside,
    }
}

fn exec(root: &Path, sandbox: &str, command: &str) -> (Output, Value) {
    let args = serde_json::json!({"command": command, "requires_approval": false}).to_string();
    let out = run_keel(
        &[
            "tool",
            "call",
            "execute_command",
            &args,
            "--root",
            root.to_str().unwrap(),
            "--sandbox",
            sandbox,
        ],
        None,
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, json)
}

struct Escape {
    what: &'static str,
    mode: &'static str,
    command: String,
    /// Where the write would land (None: the network case).
    target: Option<PathBuf>,
    /// What the result must say.
    says: String,
}

fn escapes(l: &Layout, port: u16) -> Vec<Escape> {
    let parent = l.root.parent().unwrap();
    vec![
        Escape {
            what: "absolute path outside the root",
            mode: "workspace-write",
            command: format!("echo x > {}/abs.txt", l.outside.display()),
            target: Some(l.outside.join("abs.txt")),
            says: format!(
                "blocked by the sandbox: write to {}/abs.txt",
                l.outside.display()
            ),
        },
        Escape {
            what: "../",
            mode: "workspace-write",
            command: "echo x > ../dotdot.txt".to_owned(),
            target: Some(parent.join("dotdot.txt")),
            says: format!(
                "blocked by the sandbox: write to {}",
                parent.join("dotdot.txt").display()
            ),
        },
        Escape {
            what: "a symlink planted by an earlier command",
            mode: "workspace-write",
            command: "echo x > link/planted.txt".to_owned(),
            target: Some(l.outside.join("planted.txt")),
            says: format!(
                "blocked by the sandbox: write to {}/planted.txt",
                l.outside.display()
            ),
        },
        Escape {
            what: "/proc/self/cwd",
            mode: "workspace-write",
            command: "echo x > /proc/self/cwd/../proc.txt".to_owned(),
            target: Some(parent.join("proc.txt")),
            says: format!(
                "blocked by the sandbox: write to {}",
                parent.join("proc.txt").display()
            ),
        },
        Escape {
            what: "write into .git/",
            mode: "workspace-write",
            command: "echo evil > .git/HEAD".to_owned(),
            target: None,
            says: ".git stays read-only in workspace-write".to_owned(),
        },
        Escape {
            what: "TCP connection to 127.0.0.1",
            mode: "workspace-write",
            command: format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
            target: None,
            says: "blocked by the sandbox: network access".to_owned(),
        },
        Escape {
            what: "read-only mode writing in the root",
            mode: "read-only",
            command: "echo x > inside.txt".to_owned(),
            target: Some(l.root.join("inside.txt")),
            says: format!(
                "blocked by the sandbox: write to {} (read-only mode",
                l.root.join("inside.txt").display()
            ),
        },
        Escape {
            what: "read-only mode writing outside",
            mode: "read-only",
            command: format!("touch {}/ro.txt", l.outside.display()),
            target: Some(l.outside.join("ro.txt")),
            says: format!(
                "blocked by the sandbox: write to {}/ro.txt",
                l.outside.display()
            ),
        },
    ]
}

#[test]
fn escape_attempts_are_blocked_and_reported_then_succeed_with_sandbox_off() {
    let l = layout();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();

    // The earlier command planting the symlink is itself allowed: it writes inside the root.
    let (out, json) = exec(
        &l.root,
        "workspace-write",
        &format!("ln -s {} link", l.outside.display()),
    );
    assert_eq!(out.status.code(), Some(0), "{json}");

    for escape in escapes(&l, port) {
        let (out, json) = exec(&l.root, escape.mode, &escape.command);
        let message = json["message"].as_str().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}: {json}", escape.what);
        assert!(
            message.contains(&escape.says),
            "{}: expected `{}` in: {message}",
            escape.what,
            escape.says
        );
        assert!(message.contains("requires_escalation"), "{message}");
        if let Some(target) = &escape.target {
            assert!(
                !target.exists(),
                "{}: {} was written",
                escape.what,
                target.display()
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(l.root.join(".git/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );

    for escape in escapes(&l, port) {
        let (out, json) = exec(&l.root, "off", &escape.command);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{} with --sandbox off: {json}",
            escape.what
        );
        if let Some(target) = &escape.target {
            assert!(
                target.exists(),
                "{}: {} missing",
                escape.what,
                target.display()
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(l.root.join(".git/HEAD")).unwrap(),
        "evil\n"
    );
}

#[test]
fn ordinary_work_runs_in_the_default_sandbox() {
    let l = layout();
    // No --sandbox and nothing in keel.toml: workspace-write.
    let args = serde_json::json!({
        "command": "mkdir -p src && echo 'fn main() {}' > src/main.rs && echo t > \"$TMPDIR/t\" && cat src/main.rs .git/HEAD",
        "requires_approval": false
    })
    .to_string();
    let out = run_keel(
        &[
            "tool",
            "call",
            "execute_command",
            &args,
            "--root",
            l.root.to_str().unwrap(),
        ],
        None,
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{json}");
    assert!(l.root.join("src/main.rs").exists());

    // keel.toml's `sandbox = "off"` lets the same escape through.
    std::fs::write(l.root.join("keel.toml"), "sandbox = \"off\"\n").unwrap();
    let args = serde_json::json!({
        "command": format!("echo x > {}/cfg.txt", l.outside.display()),
        "requires_approval": false
    })
    .to_string();
    let out = run_keel(
        &[
            "tool",
            "call",
            "execute_command",
            &args,
            "--root",
            l.root.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(l.outside.join("cfg.txt").exists());
}

#[test]
fn escalation_needs_a_person_and_is_refused_without_one() {
    let l = layout();
    let target = l.outside.join("esc.txt");
    let args = serde_json::json!({
        "command": format!("echo x > {}", target.display()),
        "requires_approval": false,
        "requires_escalation": true
    })
    .to_string();
    let out = run_keel(
        &[
            "tool",
            "call",
            "execute_command",
            &args,
            "--root",
            l.root.to_str().unwrap(),
            "--approval",
            "never",
        ],
        None,
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{json}");
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .contains("outside the sandbox was not allowed"),
        "{json}"
    );
    assert!(!target.exists());
}

#[test]
fn bad_sandbox_settings_are_clear_errors() {
    let l = layout();
    let root = l.root.to_str().unwrap();
    let out = run_keel(
        &[
            "tool",
            "call",
            "execute_command",
            "{\"command\":\"true\",\"requires_approval\":false}",
            "--root",
            root,
            "--sandbox",
            "strict",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown sandbox mode `strict`"));

    std::fs::write(l.root.join("keel.toml"), "sandbox_fallback = \"maybe\"\n").unwrap();
    let out = run_keel(
        &[
            "tool",
            "call",
            "execute_command",
            "{\"command\":\"true\",\"requires_approval\":false}",
            "--root",
            root,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("sandbox_fallback"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    std::fs::write(
        l.root.join("keel.toml"),
        "writable_roots = [\"no/such/dir\"]\n",
    )
    .unwrap();
    let out = run_keel(
        &[
            "tool",
            "call",
            "execute_command",
            "{\"command\":\"true\",\"requires_approval\":false}",
            "--root",
            root,
        ],
        None,
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1), "{json}");
    assert!(
        json["message"].as_str().unwrap().contains("no/such/dir"),
        "{json}"
    );
}

#[test]
fn sandbox_check_reports_this_kernel() {
    let out = run_keel(&["sandbox", "check", "--json"], None);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["support"]["landlock_abi"].as_u64().unwrap() >= 1,
        "{json}"
    );
    let modes = json["modes"].as_array().unwrap();
    assert_eq!(modes.len(), 4);
    assert!(modes.iter().all(|m| m["enforceable"] == true), "{json}");
    assert_eq!(out.status.code(), Some(0));

    let out = run_keel(&["sandbox", "check"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("workspace-write, network = false: enforced"),
        "{text}"
    );
}

#[test]
fn file_runs_are_confined_and_say_what_was_blocked_then_run_with_sandbox_off() {
    let l = layout();
    let target = l.outside.join("from-script.txt");
    std::fs::write(
        l.root.join("escape.sh"),
        format!("echo in > inside.txt\necho out > {}\n", target.display()),
    )
    .unwrap();
    let root = l.root.to_str().unwrap();

    // The root's keel.toml says nothing: workspace-write, the default.
    let out = run_keel(&["exec-file", "escape.sh", "--root", root], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "blocked by the sandbox: write to {}",
            target.display()
        )),
        "{stderr}"
    );
    assert!(!target.exists());
    assert_eq!(
        std::fs::read_to_string(l.root.join("inside.txt")).unwrap(),
        "in\n"
    );

    let out = run_keel(
        &["exec-file", "escape.sh", "--root", root, "--sandbox", "off"],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "out\n");

    let out = run_keel(
        &[
            "exec-file",
            "escape.sh",
            "--root",
            root,
            "--sandbox",
            "sideways",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unknown sandbox mode `sideways`"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
