//! Confined `bash -c` children against the real kernel: what is written, what is refused, and
//! how the refusal is explained.

use std::path::Path;
use std::process::Command;

use keel_sandbox::{Blocked, Sandbox, SandboxMode, SandboxPolicy, Support};

struct Run {
    ok: bool,
    output: String,
    blocked: Option<Blocked>,
}

fn run(sandbox: &Sandbox, root: &Path, script: &str) -> Run {
    let mut command = Command::new("bash");
    command.args(["-c", script]).current_dir(root);
    let confinement = sandbox.confine_std(&mut command).unwrap();
    let out = command.output().unwrap();
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let blocked = (!out.status.success())
        .then(|| confinement.explain(&output))
        .flatten();
    Run {
        ok: out.status.success(),
        output,
        blocked,
    }
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(dir.path().join("keel.toml"), "").unwrap();
    dir
}

fn sandbox(mode: SandboxMode, root: &Path) -> Sandbox {
    Sandbox::new(SandboxPolicy::new(mode), root).unwrap()
}

#[test]
fn this_kernel_supports_every_mode() {
    let support = Support::get();
    assert!(support.landlock_abi.is_some(), "{support:?}");
    for mode in [SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite] {
        assert!(support.report(mode, false).enforceable, "{support:?}");
    }
}

#[test]
fn workspace_write_writes_the_root_and_temp_only() {
    let root = project();
    let outside = tempfile::tempdir().unwrap();
    let sb = sandbox(SandboxMode::WorkspaceWrite, root.path());

    let r = run(
        &sb,
        root.path(),
        "echo hi > a.txt && mkdir -p d/e && echo x > \"$TMPDIR/t\"",
    );
    assert!(r.ok, "{}", r.output);
    assert_eq!(
        std::fs::read_to_string(root.path().join("a.txt")).unwrap(),
        "hi\n"
    );

    let target = outside.path().join("escape.txt");
    let r = run(&sb, root.path(), &format!("echo x > {}", target.display()));
    assert!(!r.ok);
    assert!(!target.exists());
    let real = outside.path().canonicalize().unwrap().join("escape.txt");
    assert_eq!(
        r.blocked,
        Some(Blocked::Write {
            path: real,
            note: None
        }),
        "{}",
        r.output
    );

    let r = run(&sb, root.path(), "echo x > .git/HEAD");
    assert!(!r.ok);
    assert_eq!(
        std::fs::read_to_string(root.path().join(".git/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );
    let text = r.blocked.map(|b| b.to_string()).unwrap_or_default();
    assert!(
        text.contains(".git stays read-only"),
        "{text} / {}",
        r.output
    );

    let r = run(&sb, root.path(), "rm keel.toml");
    assert!(!r.ok, "{}", r.output);
    assert!(root.path().join("keel.toml").exists());
}

#[test]
fn read_only_writes_only_its_temp_dir() {
    let root = project();
    let sb = sandbox(SandboxMode::ReadOnly, root.path());
    let r = run(
        &sb,
        root.path(),
        "cat keel.toml && echo x > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
    );
    assert!(r.ok, "{}", r.output);
    let r = run(&sb, root.path(), "echo x > a.txt");
    assert!(!r.ok);
    assert!(!root.path().join("a.txt").exists());
    let text = r.blocked.map(|b| b.to_string()).unwrap_or_default();
    assert!(
        text.starts_with("blocked by the sandbox: write to "),
        "{text}"
    );
}

#[test]
fn network_off_denies_tcp_but_not_unix_sockets() {
    let root = project();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let sb = sandbox(SandboxMode::WorkspaceWrite, root.path());
    let r = run(&sb, root.path(), &connect);
    assert!(!r.ok, "{}", r.output);
    assert_eq!(r.blocked, Some(Blocked::Network), "{}", r.output);

    // AF_UNIX keeps working: a listening socket file in the workspace.
    let r = run(
        &sb,
        root.path(),
        "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind(\"u.sock\"); s.listen(); print(\"unix ok\")'",
    );
    assert!(r.ok && r.output.contains("unix ok"), "{}", r.output);

    let mut open = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    open.network = true;
    let sb = Sandbox::new(open, root.path()).unwrap();
    let r = run(&sb, root.path(), &connect);
    assert!(r.ok, "{}", r.output);
}

#[test]
fn off_confines_nothing() {
    let root = project();
    let outside = tempfile::tempdir().unwrap();
    let sb = Sandbox::off(root.path());
    let target = outside.path().join("free.txt");
    let r = run(
        &sb,
        root.path(),
        &format!("echo x > {} && echo y > .git/HEAD", target.display()),
    );
    assert!(r.ok, "{}", r.output);
    assert!(target.exists());
}

#[test]
fn bad_writable_root_is_a_clear_error() {
    let root = project();
    let mut policy = SandboxPolicy::new(SandboxMode::WorkspaceWrite);
    policy.writable_roots.push("does/not/exist".into());
    let e = Sandbox::new(policy, root.path()).unwrap_err().to_string();
    assert!(e.contains("does/not/exist"), "{e}");
}

#[test]
fn writable_roots_are_writable() {
    let root = project();
    let extra = tempfile::tempdir().unwrap();
    let mut policy = SandboxPolicy::new(SandboxMode::ReadOnly);
    policy.writable_roots.push(extra.path().to_path_buf());
    let sb = Sandbox::new(policy, root.path()).unwrap();
    let r = run(
        &sb,
        root.path(),
        &format!("echo x > {}/ok", extra.path().display()),
    );
    assert!(r.ok, "{}", r.output);
}

#[test]
fn tool_caches_live_in_the_private_temp_dir() {
    let root = project();
    let sb = sandbox(SandboxMode::WorkspaceWrite, root.path());
    // What `go test` and friends do first: make their cache under the user's cache folder.
    let r = run(
        &sb,
        root.path(),
        "mkdir -p \"$GOCACHE\" \"$XDG_CACHE_HOME/pip\" \"$npm_config_cache\" && echo x > \"$GOCACHE/x\" && case \"$GOCACHE\" in \"$TMPDIR\"/*) echo inside;; esac",
    );
    assert!(r.ok, "{}", r.output);
    assert!(r.output.contains("inside"), "{}", r.output);
    if std::process::Command::new("go")
        .arg("version")
        .output()
        .is_ok()
    {
        std::fs::write(
            root.path().join("go.mod"),
            "module example.com/m\n\ngo 1.19\n",
        )
        .unwrap();
        std::fs::write(
            root.path().join("m_test.go"),
            "package m\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {}\n",
        )
        .unwrap();
        let r = run(&sb, root.path(), "go test ./...");
        assert!(r.ok, "{}", r.output);
    }
}
