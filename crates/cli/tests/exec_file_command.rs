//! `keel exec-file` run as the real binary: streamed output, JSONL events, exit codes,
//! time-out, confinement and a scrubbed environment.

use std::path::Path;
use std::process::Command;

fn keel(args: &[&str], envs: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn root(dir: &tempfile::TempDir) -> &str {
    dir.path().to_str().unwrap()
}

#[test]
fn human_output_and_exit_code() {
    let dir = workspace(&[("tools/hi.sh", "echo out-line\necho err-line >&2\nexit 5\n")]);
    let (code, stdout, stderr) = keel(&["exec-file", "tools/hi.sh", "--root", root(&dir)], &[]);
    assert_eq!(code, 5);
    assert_eq!(stdout, "out-line\n");
    assert!(stderr.starts_with("err-line\n"), "{stderr}");
    assert!(stderr.contains("[tools/hi.sh: exit code 5 in "), "{stderr}");
}

#[test]
fn json_events_one_per_line() {
    let dir = workspace(&[("main.py", "print('py says hi')\n")]);
    let (code, stdout, _) = keel(
        &["exec-file", "main.py", "--json", "--root", root(&dir)],
        &[],
    );
    assert_eq!(code, 0);
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        ["exec.file.start", "exec.file.stdout", "exec.file.exit"]
    );
    assert_eq!(events[0]["payload"]["file"], "main.py");
    assert_eq!(events[0]["payload"]["command"][1], "main.py");
    assert_eq!(events[1]["payload"]["content"], "py says hi\n");
    assert_eq!(events[2]["payload"]["exit_code"], 0);
    assert_eq!(events[2]["payload"]["timed_out"], false);
    assert!(events[2]["payload"]["duration_ms"].is_u64());
    let run_id = &events[0]["payload"]["run_id"];
    assert!(events.iter().all(|e| &e["payload"]["run_id"] == run_id));
    // Every line parses with the contract's own reader.
    for (n, line) in stdout.lines().enumerate() {
        keel_events::parse_line(n + 1, line).unwrap();
    }
}

#[test]
fn time_out_exits_1() {
    let dir = workspace(&[("slow.sh", "echo begun\nsleep 30\n")]);
    let started = std::time::Instant::now();
    let (code, stdout, _) = keel(
        &[
            "exec-file",
            "slow.sh",
            "--json",
            "--timeout",
            "1",
            "--root",
            root(&dir),
        ],
        &[],
    );
    assert_eq!(code, 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let exit: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(exit["type"], "exec.file.exit");
    assert_eq!(exit["payload"]["timed_out"], true);
    assert!(exit["payload"].get("exit_code").is_none());
}

#[test]
fn usage_errors_exit_2() {
    let dir = workspace(&[("notes.txt", "x"), ("a.py", "print(1)")]);
    let (code, _, stderr) = keel(&["exec-file", "../outside.py", "--root", root(&dir)], &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("climbs out of the workspace"), "{stderr}");
    let (code, _, stderr) = keel(&["exec-file", "notes.txt", "--root", root(&dir)], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot tell how to run `notes.txt`"),
        "{stderr}"
    );
    let (code, _, _) = keel(&["exec-file", "a.py"], &[]);
    assert_eq!(code, 2, "--root is required");
    let (code, _, _) = keel(
        &["exec-file", "a.py", "--root", root(&dir), "--timeout", "0"],
        &[],
    );
    assert_eq!(code, 2);
    assert!(!Path::new(&dir.path().join("outside.py")).exists());
}

#[test]
fn provider_secrets_do_not_reach_the_script() {
    let dir = workspace(&[("env.sh", "env\n")]);
    let (code, stdout, _) = keel(
        &["exec-file", "env.sh", "--root", root(&dir)],
        &[
            ("OPENAI_API_KEY", "sk-openai-secret"),
            ("ANTHROPIC_API_KEY", "sk-ant-secret"),
            ("SOME_SERVICE_TOKEN", "tok-secret"),
            ("KEEL_VISIBLE", "yes"),
        ],
    );
    assert_eq!(code, 0);
    assert!(stdout.contains("KEEL_VISIBLE=yes"), "{stdout}");
    assert!(!stdout.contains("secret"), "{stdout}");
}

#[test]
fn arguments_after_the_path_reach_the_script_untouched() {
    let dir = workspace(&[(
        "args.sh",
        "for a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\n",
    )]);
    let (code, stdout, stderr) = keel(
        &[
            "exec-file",
            "--root",
            root(&dir),
            "args.sh",
            "--",
            "-a b",
            "$HOME",
            "--json",
        ],
        &[],
    );
    assert_eq!(code, 0, "{stderr}");
    // After `--` and from the first argument on, everything is the script's, flags included.
    assert_eq!(stdout, "<-a b>\n<$HOME>\n<--json>\n");
}
