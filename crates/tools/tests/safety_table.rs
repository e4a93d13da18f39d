//! The command safety check against a table of dangerous and ordinary commands, and a property
//! test that it never panics.

use keel_tools::safety::{Category, classify};
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
        if got.dangerous || got.category.is_some() {
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
    }

    #[test]
    fn never_panics_on_shell_like_text(s in "[a-z /~$(){}|&;'\"`\\\\<>=:*.-]{0,120}") {
        let verdict = classify(&s);
        prop_assert_eq!(verdict.dangerous, verdict.category.is_some());
    }
}
