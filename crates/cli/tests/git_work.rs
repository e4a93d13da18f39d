//! Git as part of the work, end to end with the real `keel` binary and the real `git`: a
//! commit per turn (`--commit`) holding exactly the turn's files, `--branch`, `keel run --pr`
//! against a local bare remote with `gh` absent and with a fake `gh` on `PATH`, each refusal,
//! and `keel rewind` after a commit.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use keel_events::{Event, EventKind};
use keel_test_support::ScriptBuilder;
use keel_test_support::git::{
    GH_PR_URL, add_github_remote, commit_files, fake_gh, git, init_repo, isolate, path_without_gh,
};
use serde_json::json;

use crate::common::events;

/// A repository whose first commit holds `a.txt`, `mine.txt`, `old.txt` and `moved.txt`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    init_repo(
        dir.path(),
        &[
            ("a.txt", "a\n"),
            ("mine.txt", "mine\n"),
            ("old.txt", "old\n"),
            ("moved.txt", "moved\n"),
        ],
    );
    dir
}

/// A turn that modifies `a.txt`, creates `src/new.txt`, deletes `old.txt`, moves `moved.txt`
/// to `renamed.txt`, and writes `mine.txt`; then answers.
fn turn_script(dir: &Path) -> std::path::PathBuf {
    let script = dir.join("script.json");
    ScriptBuilder::new()
        .tool_call(
            "write_file",
            json!({"path": "a.txt", "content": "a, changed\n"}),
        )
        .tool_call(
            "write_file",
            json!({"path": "src/new.txt", "content": "new\n"}),
        )
        .tool_call("delete_file", json!({"path": "old.txt"}))
        .tool_call(
            "move_file",
            json!({"fromPath": "moved.txt", "toPath": "renamed.txt"}),
        )
        .tool_call(
            "write_file",
            json!({"path": "mine.txt", "content": "keel's\n"}),
        )
        .text("Changed the files.")
        .write(&script)
        .unwrap();
    script
}

/// A turn that writes `file` and answers.
fn one_file_script(dir: &Path, file: &str, side_calls: &[&str]) -> std::path::PathBuf {
    let script = dir.join(format!("script-{}.json", file.replace('/', "-")));
    let mut builder = ScriptBuilder::new()
        .tool_call("write_file", json!({"path": file, "content": "hello\n"}))
        .text("Wrote it.");
    if !side_calls.is_empty() {
        builder = builder.side_calls();
        for answer in side_calls {
            builder = builder.text(*answer);
        }
    }
    builder.write(&script).unwrap();
    script
}

/// `keel ARGS --provider scripted:SCRIPT --root ROOT --json` with git isolated from this
/// machine's configuration and `path` as `PATH`.
fn keel(root: &Path, script: &Path, path: &str, args: &[&str]) -> Output {
    let config = root.parent().unwrap().join("keel-config");
    std::fs::create_dir_all(&config).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_keel"));
    command
        .args(args)
        .arg("--provider")
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(root)
        .arg("--json")
        .env_remove("KEEL_MODEL")
        .env("KEEL_CONFIG_DIR", &config)
        .env("PATH", path)
        .stdin(Stdio::null());
    isolate(&mut command);
    command.output().unwrap()
}

fn succeeded(out: &Output) -> Vec<Event> {
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}\nstdout: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    events(&String::from_utf8_lossy(&out.stdout))
}

/// The `system.log` events whose `metadata.git` is `step`.
fn git_logs<'a>(events: &'a [Event], step: &str) -> Vec<&'a keel_events::SystemLog> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::SystemLog(log)
                if log
                    .metadata
                    .as_ref()
                    .is_some_and(|m| m.get("git") == Some(&json!(step))) =>
            {
                Some(log)
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_turn_is_committed_with_only_its_files_and_the_users_changes_stay_uncommitted() {
    let dir = repo();
    let root = dir.path();
    // The user's work before the turn: a modified tracked file and a staged new one.
    std::fs::write(root.join("mine.txt"), "the user's edit\n").unwrap();
    std::fs::write(root.join("staged.txt"), "staged\n").unwrap();
    git(root, &["add", "staged.txt"]);
    let work = tempfile::tempdir().unwrap();
    let script = turn_script(work.path());

    let out = keel(
        root,
        &script,
        &path_without_gh(None),
        &["run", "--commit", "Change the files"],
    );
    let events = succeeded(&out);

    // One new commit, holding exactly the turn's files: the modification, the new file, the
    // deletion and both sides of the move — not mine.txt, not staged.txt, not .keel/.
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]).trim(), "2");
    assert_eq!(
        commit_files(root, "HEAD"),
        [
            "a.txt",
            "moved.txt",
            "old.txt",
            "renamed.txt",
            "src/new.txt"
        ]
    );
    let message = git(root, &["log", "-1", "--format=%B"]);
    assert_eq!(
        message.trim_end(),
        "chore: Change the files\n\nRequest: Change the files\n\nFiles:\n- a.txt\n- moved.txt\n- old.txt\n- renamed.txt\n- src/new.txt\n\nCo-authored-by: Keel <keel@keel.invalid>"
    );
    assert_eq!(
        git(root, &["log", "-1", "--format=%an <%ae>"]).trim(),
        "Test User <test@example.org>"
    );
    // The user's staged file is still staged and uncommitted; the file the user had changed
    // keeps the turn's text, uncommitted.
    let status = git(root, &["status", "--porcelain", "--untracked-files=no"]);
    assert_eq!(status, " M mine.txt\nA  staged.txt\n", "{status}");
    assert_eq!(
        std::fs::read_to_string(root.join("mine.txt")).unwrap(),
        "keel's\n"
    );

    // Said on the stream: the skipped file, then the commit.
    let skipped = git_logs(&events, "skipped");
    assert_eq!(skipped.len(), 1);
    assert!(
        skipped[0].message.contains("mine.txt"),
        "{}",
        skipped[0].message
    );
    let commits = git_logs(&events, "commit");
    assert_eq!(commits.len(), 1);
    let metadata = commits[0].metadata.as_ref().unwrap();
    assert_eq!(
        metadata["commit"],
        json!(git(root, &["rev-parse", "HEAD"]).trim())
    );
    assert_eq!(metadata["branch"], "main");
    assert_eq!(metadata["message_by"], "keel");
    // After the turn's agent.end, outside it.
    let end = events
        .iter()
        .position(|e| e.type_name() == "agent.end")
        .unwrap();
    let commit_at = events
        .iter()
        .position(|e| matches!(&e.kind, EventKind::SystemLog(l) if l.message.starts_with("git: committed")))
        .unwrap();
    assert!(commit_at > end);
    assert!(events[commit_at].turn_id.is_none());
}

#[test]
fn the_model_writes_the_message_in_one_side_call_reported_with_its_purpose() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("keel.toml"), "[git]\ncommit = \"turn\"\n").unwrap();
    git(root, &["add", "keel.toml"]);
    git(root, &["commit", "-q", "-m", "config"]);
    let work = tempfile::tempdir().unwrap();
    let script = one_file_script(
        work.path(),
        "hello.txt",
        &[
            "```\nfeat(greeting): add hello.txt\n\nThe project greets its readers.\nCo-authored-by: Nobody <n@x>\n```",
        ],
    );
    // keel.toml's `[git] commit = "turn"`, no flag.
    let out = keel(root, &script, &path_without_gh(None), &["run", "Say hello"]);
    let events = succeeded(&out);
    assert_eq!(
        git(root, &["log", "-1", "--format=%B"]).trim_end(),
        "feat(greeting): add hello.txt\n\nThe project greets its readers.\n\nCo-authored-by: Keel <keel@keel.invalid>"
    );
    assert_eq!(commit_files(root, "HEAD"), ["hello.txt"]);
    let purposes: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunUsageReport(u) => u.purpose.map(|p| p.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(purposes, ["commit_message"]);
    assert_eq!(
        git_logs(&events, "commit")[0].metadata.as_ref().unwrap()["message_by"],
        "model"
    );
}

#[test]
fn branch_makes_a_new_branch_and_refuses_one_with_other_history() {
    let dir = repo();
    let root = dir.path();
    let work = tempfile::tempdir().unwrap();
    let script = one_file_script(work.path(), "b.txt", &[]);
    let out = keel(
        root,
        &script,
        &path_without_gh(None),
        &["run", "--commit", "--branch", "keel/b", "Write b"],
    );
    succeeded(&out);
    assert_eq!(git(root, &["branch", "--show-current"]).trim(), "keel/b");
    assert_eq!(commit_files(root, "keel/b"), ["b.txt"]);
    assert_eq!(git(root, &["rev-list", "--count", "main"]).trim(), "1");

    // `main` exists at another commit than HEAD (keel/b is one ahead): refused before any turn.
    let script = one_file_script(work.path(), "c.txt", &[]);
    let out = keel(
        root,
        &script,
        &path_without_gh(None),
        &["run", "--commit", "--branch", "main", "Write c"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("branch `main` already exists at") && stderr.contains("not at HEAD"),
        "{stderr}"
    );
    assert!(!root.join("c.txt").exists());
    assert_eq!(git(root, &["branch", "--show-current"]).trim(), "keel/b");
}

#[test]
fn pr_without_gh_pushes_to_the_remote_and_prints_the_compare_url() {
    let dir = repo();
    let root = dir.path();
    let remotes = tempfile::tempdir().unwrap();
    let bare = add_github_remote(root, remotes.path());
    let work = tempfile::tempdir().unwrap();
    let script = one_file_script(work.path(), "feature.txt", &[]);
    let out = keel(
        root,
        &script,
        &path_without_gh(None),
        &["run", "--pr", "--branch", "keel/feature", "Add the feature"],
    );
    let events = succeeded(&out);
    // Pushed: the bare remote has the branch at the local commit.
    let local = git(root, &["rev-parse", "HEAD"]);
    assert_eq!(git(&bare, &["rev-parse", "refs/heads/keel/feature"]), local);
    assert_eq!(commit_files(root, "HEAD"), ["feature.txt"]);
    let pr = git_logs(&events, "pull_request");
    assert_eq!(pr.len(), 1);
    let metadata = pr[0].metadata.as_ref().unwrap();
    assert_eq!(metadata["via"], "compare");
    assert_eq!(
        metadata["url"],
        "https://github.com/acme/widgets/compare/keel/feature?expand=1"
    );
    assert!(
        pr[0].message.contains("pushed keel/feature → origin/keel/feature")
            && pr[0].message.contains("open the pull request at https://github.com/acme/widgets/compare/keel/feature?expand=1"),
        "{}",
        pr[0].message
    );
}

#[test]
fn pr_with_gh_signed_in_opens_it_through_gh_pr_create() {
    let dir = repo();
    let root = dir.path();
    let remotes = tempfile::tempdir().unwrap();
    let bare = add_github_remote(root, remotes.path());
    let work = tempfile::tempdir().unwrap();
    let log = work.path().join("gh-args.txt");
    let bin = fake_gh(work.path(), &log);
    let script = one_file_script(
        work.path(),
        "gh.txt",
        &[
            "feat: add gh.txt\n\nFor the gh test.",
            "Title: Add gh.txt\n\nAdds the file the test asks for.",
        ],
    );
    let out = keel(
        root,
        &script,
        &path_without_gh(Some(&bin)),
        &["run", "--pr", "--branch", "keel/gh", "Add gh.txt"],
    );
    let events = succeeded(&out);
    assert!(
        git(&bare, &["rev-parse", "refs/heads/keel/gh"])
            .trim()
            .len()
            == 40
    );
    let recorded = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<Vec<&str>> = recorded
        .split("--end--\n")
        .filter(|c| !c.is_empty())
        .map(|c| c.lines().collect())
        .collect();
    assert_eq!(calls[0], ["auth", "status"]);
    assert_eq!(
        calls[1],
        [
            "pr",
            "create",
            "--head",
            "keel/gh",
            "--title",
            "Add gh.txt",
            "--body",
            "Adds the file the test asks for.",
            "",
            "Opened with Keel.",
        ]
    );
    let pr = git_logs(&events, "pull_request");
    let metadata = pr[0].metadata.as_ref().unwrap();
    assert_eq!(metadata["via"], "gh");
    assert_eq!(metadata["url"], GH_PR_URL);
    let purposes: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::RunUsageReport(u) => u.purpose.map(|p| p.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(purposes, ["commit_message", "pull_request"]);
}

/// `keel run --pr …` in `root`; it must be refused before any turn, saying `expected`.
fn refused(root: &Path, args: &[&str], expected: &str) {
    let work = tempfile::tempdir().unwrap();
    let script = one_file_script(work.path(), "refused.txt", &[]);
    let head = git(root, &["rev-parse", "HEAD"]);
    let mut all = vec!["run", "--pr"];
    all.extend_from_slice(args);
    all.push("Write refused.txt");
    let out = keel(root, &script, &path_without_gh(None), &all);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(expected), "{stderr}");
    assert!(!root.join("refused.txt").exists());
    assert_eq!(git(root, &["rev-parse", "HEAD"]), head);
}

#[test]
fn pr_is_refused_on_a_dirty_tree_a_detached_head_no_remote_or_the_default_branch() {
    // No remote.
    let dir = repo();
    refused(
        dir.path(),
        &["--branch", "keel/x"],
        "the repository has no remote to push to",
    );

    // A dirty tree (a tracked file changed by the user).
    let dir = repo();
    let remotes = tempfile::tempdir().unwrap();
    add_github_remote(dir.path(), remotes.path());
    git(dir.path(), &["switch", "-q", "-c", "topic"]);
    std::fs::write(dir.path().join("a.txt"), "the user's edit\n").unwrap();
    refused(
        dir.path(),
        &[],
        "the work tree has changes Keel did not make (a.txt)",
    );

    // A detached HEAD.
    let dir = repo();
    let remotes = tempfile::tempdir().unwrap();
    add_github_remote(dir.path(), remotes.path());
    git(dir.path(), &["switch", "-q", "--detach", "HEAD"]);
    refused(dir.path(), &[], "HEAD is detached");

    // The default branch, without --branch.
    let dir = repo();
    let remotes = tempfile::tempdir().unwrap();
    add_github_remote(dir.path(), remotes.path());
    refused(dir.path(), &[], "from `main`, the default branch");
}

#[test]
fn commit_outside_a_repository_is_a_clear_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let script = one_file_script(work.path(), "x.txt", &[]);
    let out = keel(
        dir.path(),
        &script,
        &path_without_gh(None),
        &["run", "--commit", "Write x"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not in a git work tree"), "{stderr}");
}

/// `keel ARGS --root ROOT` without a model; its JSON output.
fn keel_json(root: &Path, args: &[&str]) -> serde_json::Value {
    let config = root.parent().unwrap().join("keel-config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_keel"));
    command
        .args(args)
        .arg("--root")
        .arg(root)
        .env("KEEL_CONFIG_DIR", &config)
        .stdin(Stdio::null());
    isolate(&mut command);
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "keel {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn rewind_after_a_commit_restores_the_files_and_keeps_the_commit_naming_it() {
    let dir = repo();
    let root = dir.path();
    let work = tempfile::tempdir().unwrap();
    let script = turn_script(work.path());
    let before = git(root, &["rev-parse", "HEAD"]);
    let out = keel(
        root,
        &script,
        &path_without_gh(None),
        &["run", "--commit", "Change the files"],
    );
    let events = succeeded(&out);
    let commit = git(root, &["rev-parse", "HEAD"]).trim().to_owned();
    assert_ne!(commit, before.trim());
    let turn = events.iter().find_map(|e| e.turn_id.clone()).unwrap();
    let list = keel_json(root, &["checkpoints", "list", "--json"]);
    let checkpoint = list["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["turn_id"] == turn.as_str())
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let report = keel_json(root, &["rewind", &checkpoint]);
    // The files are as before the turn; the commit stays, named in the report.
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
    assert_eq!(
        std::fs::read_to_string(root.join("old.txt")).unwrap(),
        "old\n"
    );
    assert!(!root.join("src/new.txt").exists());
    assert_eq!(git(root, &["rev-parse", "HEAD"]).trim(), commit);
    assert_eq!(report["commits_kept"], json!([commit]));
    let said = report["git"].as_str().unwrap();
    assert!(
        said.contains(&commit[..12])
            && said.contains("stay in git")
            && said.contains("restored in the work tree only"),
        "{said}"
    );
    // The work tree now differs from HEAD by exactly the commit's files.
    let status = git(root, &["status", "--porcelain", "--untracked-files=all"]);
    let mut changed: Vec<&str> = status
        .lines()
        .map(|l| &l[3..])
        .filter(|p| !p.starts_with(".keel"))
        .collect();
    changed.sort_unstable();
    assert_eq!(
        changed,
        [
            "a.txt",
            "mine.txt",
            "moved.txt",
            "old.txt",
            "renamed.txt",
            "src/new.txt"
        ]
    );
}
