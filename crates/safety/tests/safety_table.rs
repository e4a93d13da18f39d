//! The command safety check against a table of dangerous, uncertain and ordinary commands,
//! and property tests: it never panics, wrappers never hide a dangerous command, and an
//! interpreter's inline code is judged like the commands and file operations it performs.

use keel_safety::{Category, classify};
use proptest::prelude::*;

use Category::*;

// The tables (shared with the `safety` bench).
include!("safety_cases.rs");

#[test]
fn dangerous_commands_are_flagged() {
    assert!(
        DANGEROUS.len() >= 120,
        "only {} dangerous cases",
        DANGEROUS.len()
    );
    let mut failures = Vec::new();
    for (command, expected) in DANGEROUS {
        let got = classify(command);
        if !got.dangerous || got.category != Some(*expected) || got.reason.is_empty() {
            failures.push(format!("{command:?}: expected {expected}, got {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn ordinary_commands_pass() {
    assert!(BENIGN.len() >= 60, "only {} benign cases", BENIGN.len());
    let mut failures = Vec::new();
    for command in BENIGN {
        let got = classify(command);
        if got.dangerous || got.category.is_some() || got.uncertain {
            failures.push(format!("{command:?}: {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn inline_code_that_cannot_be_judged_is_uncertain() {
    assert!(
        UNCERTAIN.len() >= 15,
        "only {} uncertain cases",
        UNCERTAIN.len()
    );
    let mut failures = Vec::new();
    for command in UNCERTAIN {
        let got = classify(command);
        if got.dangerous || got.category.is_some() || !got.uncertain || !got.reason.contains('`') {
            failures.push(format!("{command:?}: {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_category_is_exercised() {
    for category in Category::ALL {
        assert!(
            DANGEROUS.iter().any(|(_, c)| *c == category),
            "no case for {category}"
        );
    }
}

#[test]
fn verdict_json_shape() {
    let json = serde_json::to_value(classify("git push -f")).unwrap();
    assert_eq!(json["dangerous"], true);
    assert_eq!(json["category"], "force_push");
    assert!(json["reason"].as_str().unwrap().contains("push"));
    let json = serde_json::to_value(classify("ls")).unwrap();
    assert_eq!(json["dangerous"], false);
    assert!(json["category"].is_null());
    assert!(json.get("uncertain").is_none(), "{json}");
    let json = serde_json::to_value(classify("python3 -c 'exec(input())'")).unwrap();
    assert_eq!(json["dangerous"], false);
    assert_eq!(json["uncertain"], true);
    assert!(json["reason"].as_str().unwrap().contains("python3"));
}

/// Table entries that are one simple command without quotes (so a wrapper prefix or a
/// `sh -c '…'` around them keeps their meaning).
fn simple_dangerous() -> Vec<(&'static str, Category)> {
    DANGEROUS
        .iter()
        .copied()
        .filter(|(c, _)| {
            !c.contains([
                '|', ';', '&', '<', '>', '$', '`', '\'', '"', '(', '\n', '{', '\\',
            ]) && !c.starts_with("watch")
                && !c.contains('=')
        })
        .collect()
}

const WRAPPERS: &[&str] = &[
    "sudo",
    "sudo -u root",
    "doas",
    "env FOO=1",
    "env -i",
    "nice -n 5",
    "nice",
    "timeout 30",
    "timeout -s KILL 5",
    "nohup",
    "time",
    "ionice -c3",
    "stdbuf -oL",
    "setsid",
    "command",
    "pkexec",
    "strace -f -o trace.txt",
    "chrt 10",
    "taskset 1",
];

#[test]
fn wrapper_cases_exist() {
    assert!(
        simple_dangerous().len() >= 80,
        "{}",
        simple_dangerous().len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Wrappers (any number, any order), a `sh -c '…'` around the whole, or a benign command
    /// chained before never hide a dangerous command nor change its category.
    #[test]
    fn wrappers_never_hide_a_dangerous_command(
        index in any::<prop::sample::Index>(),
        wrappers in prop::collection::vec(prop::sample::select(WRAPPERS), 0..4),
        shell_c in any::<bool>(),
        chain in prop::sample::select(&["", "cargo build && ", "ls; ", "false || ", "cd src && "][..]),
    ) {
        let cases = simple_dangerous();
        let (command, expected) = cases[index.index(cases.len())];
        let mut line = wrappers.join(" ");
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(command);
        if shell_c {
            line = format!("bash -c '{line}'");
        }
        let line = format!("{chain}{line}");
        let verdict = classify(&line);
        prop_assert_eq!(verdict.category, Some(expected), "{}: {:?}", line, verdict);
    }

    #[test]
    fn never_panics_on_arbitrary_text(s in "\\PC{0,200}") {
        let verdict = classify(&s);
        prop_assert_eq!(verdict.dangerous, verdict.category.is_some());
        prop_assert!(!(verdict.dangerous && verdict.uncertain));
    }

    #[test]
    fn never_panics_on_shell_like_text(s in "[a-z /~$(){}|&;'\"`\\\\<>=:*.-]{0,120}") {
        let verdict = classify(&s);
        prop_assert_eq!(verdict.dangerous, verdict.category.is_some());
        prop_assert!(!(verdict.dangerous && verdict.uncertain));
    }
}

/// Inline code that runs `CMD` through each interpreter's shell call.
const INLINE_RUNNERS: &[&str] = &[
    "python3 -c 'import os; os.system(\"CMD\")'",
    "python3 -c 'import subprocess; subprocess.run(\"CMD\", shell=True)'",
    "node -e 'require(\"child_process\").execSync(\"CMD\")'",
    "perl -e 'system(q{CMD})'",
    "ruby -e 'system \"CMD\"'",
    "php -r 'shell_exec(\"CMD\");'",
    "lua -e 'os.execute(\"CMD\")'",
    "awk 'BEGIN { system(\"CMD\") }'",
];

/// Inline code deleting `PATH` recursively, and deleting the file `PATH`.
const TREE_DELETES: &[&str] = &[
    "python3 -c 'import shutil; shutil.rmtree(\"PATH\")'",
    "node -e 'require(\"fs\").rmSync(\"PATH\", {recursive: true})'",
    "perl -MFile::Path -e 'rmtree(\"PATH\")'",
    "ruby -rfileutils -e 'FileUtils.rm_rf(\"PATH\")'",
];
const FILE_DELETES: &[&str] = &[
    "python3 -c 'import os; os.remove(\"PATH\")'",
    "node -e 'require(\"fs\").unlinkSync(\"PATH\")'",
    "perl -e 'unlink \"PATH\"'",
    "ruby -e 'File.delete(\"PATH\")'",
    "php -r 'unlink(\"PATH\");'",
    "lua -e 'os.remove(\"PATH\")'",
];
const PATHS: &[&str] = &[
    "/",
    "/etc",
    "/usr/lib",
    "/etc/passwd",
    "/var/log/syslog",
    "~",
    "~/.ssh",
    "~/.ssh/id_rsa",
    "~/.aws/credentials",
    "~/Documents",
    "/home/bob",
    "build",
    "target/debug",
    "/tmp/x",
    "node_modules",
    "~/projects/app/dist",
];

/// Benign table entries that are one simple command without quotes.
fn simple_benign() -> Vec<&'static str> {
    BENIGN
        .iter()
        .copied()
        .filter(|c| {
            !c.contains([
                '|', ';', '&', '<', '>', '$', '`', '\'', '"', '(', '\n', '{', '\\', '%', '#', '@',
            ]) && !c.starts_with("watch")
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// A dangerous command run from any interpreter's inline code keeps its category.
    #[test]
    fn inline_code_running_a_dangerous_command_is_dangerous(
        index in any::<prop::sample::Index>(),
        runner in prop::sample::select(INLINE_RUNNERS),
    ) {
        let cases = simple_dangerous();
        let (command, expected) = cases[index.index(cases.len())];
        let line = runner.replace("CMD", command.trim());
        let verdict = classify(&line);
        prop_assert_eq!(verdict.category, Some(expected), "{}: {:?}", line, verdict);
    }

    /// An ordinary command run from inline code stays ordinary: neither dangerous nor
    /// uncertain.
    #[test]
    fn inline_code_running_an_ordinary_command_is_benign(
        index in any::<prop::sample::Index>(),
        runner in prop::sample::select(INLINE_RUNNERS),
    ) {
        let cases = simple_benign();
        let command = cases[index.index(cases.len())];
        let line = runner.replace("CMD", command);
        let verdict = classify(&line);
        prop_assert!(!verdict.dangerous && !verdict.uncertain, "{}: {:?}", line, verdict);
    }

    /// Deleting a path from inline code is judged as `rm -rf PATH` / `rm -f PATH` would be.
    #[test]
    fn inline_deletes_are_judged_as_rm(
        path in prop::sample::select(PATHS),
        tree in prop::sample::select(TREE_DELETES),
        file in prop::sample::select(FILE_DELETES),
    ) {
        let expected = classify(&format!("rm -rf {path}")).category;
        let line = tree.replace("PATH", path);
        prop_assert_eq!(classify(&line).category, expected, "{}", line);
        let expected = classify(&format!("rm -f {path}")).category;
        let line = file.replace("PATH", path);
        prop_assert_eq!(classify(&line).category, expected, "{}", line);
    }

    /// Whatever text is given as an interpreter's inline code, the check answers.
    #[test]
    fn never_panics_on_inline_code(
        code in "[a-zA-Z0-9 ._/~$@%(){}\\[\\]|&;:=<>!?,+*#`\"\\\\-]{0,160}",
        interpreter in prop::sample::select(&["python3 -c", "node -e", "perl -e", "ruby -e", "php -r", "lua -e", "awk", "deno eval"][..]),
    ) {
        let line = format!("{interpreter} '{}'", code.replace('\'', "'\\''"));
        let verdict = classify(&line);
        prop_assert_eq!(verdict.dangerous, verdict.category.is_some());
        prop_assert!(!(verdict.dangerous && verdict.uncertain));
    }
}
