//! Approval rules: commands of chains, pipelines, subshells and `sh -c` checked one by one,
//! deny beating ask beating allow, the safety override, tool path globs, bad files, edits.

use std::path::Path;

use keel_tools::approval_rules::{
    RuleDecision, RuleScope, RuleSet, RuleSpec, RuleTarget, RulesError, append_rule,
    project_rules_path, remove_rule,
};

use RuleDecision::*;

const RULES: &str = r#"# rules for the table
[[rule]]
match = ["git", "push"]
decision = "ask"

[[rule]]
match = ["rm"]
decision = "deny"

[[rule]]
match = ["cargo"]
decision = "allow"

[[rule]]
match = ["cargo", "publish"]
decision = "deny"

[[rule]]
match = ["git", "status"]
decision = "allow"

[[rule]]
match = ["git", "push"]
decision = "allow"
override_safety = true

[[rule]]
match = ["git", "reset", "--hard"]
decision = "allow"
override_safety = true

[[rule]]
match = ["git", "clean"]
decision = "allow"

[[rule]]
tool = "write_file"
paths = ["migrations/**"]
decision = "deny"

[[rule]]
tool = "write_file"
paths = ["docs/**"]
decision = "allow"

[[rule]]
tool = "delete_file"
decision = "ask"
"#;

fn rules() -> RuleSet {
    RuleSet::parse(RULES, Path::new(".keel/rules.toml"), RuleScope::Project).unwrap()
}

const COMMANDS: &[(&str, Option<RuleDecision>)] = &[
    ("cargo build", Some(Allow)),
    ("cargo build && cargo test", Some(Allow)),
    ("cargo build; cargo test --release", Some(Allow)),
    ("cargo build && rm -rf target", Some(Deny)),
    ("cargo build | rm x", Some(Deny)),
    ("cargo test | tee log.txt", None),
    ("(cargo build)", Some(Allow)),
    ("(cd src && cargo build)", None),
    ("{ cargo build; rm x; }", Some(Deny)),
    ("sh -c 'git push origin main'", Some(Ask)),
    ("bash -lc \"cargo build; git push\"", Some(Ask)),
    ("bash -c 'cargo check'", Some(Allow)),
    ("eval 'rm x'", Some(Deny)),
    ("echo $(rm x)", Some(Deny)),
    ("echo `git push`", Some(Ask)),
    ("sudo rm x", Some(Deny)),
    ("env A=1 timeout 5 rm x", Some(Deny)),
    ("/usr/bin/git push", Some(Ask)),
    ("git status", Some(Allow)),
    ("git status --short", Some(Allow)),
    ("git stash", None),
    ("git", None),
    ("git push --force", Some(Ask)),
    ("git push origin main && rm x", Some(Deny)),
    ("cargo publish", Some(Deny)),
    ("cargo publish --dry-run && cargo build", Some(Deny)),
    ("git reset --hard", Some(Allow)),
    ("git clean -fdx", None),
    ("git clean -n", Some(Allow)),
    ("ls", None),
    ("find . -name '*.tmp' -exec rm {} +", Some(Deny)),
    ("xargs rm < list.txt", Some(Deny)),
    ("if cargo check; then cargo build; fi", Some(Allow)),
    ("if true; then cargo build; fi", None),
    ("for f in a b; do rm $f; done", Some(Deny)),
    ("cargo build 2>&1 | cargo fmt", Some(Allow)),
    ("rmdir x", None),
];

#[test]
fn command_table() {
    let rules = rules();
    let mut failures = Vec::new();
    for (line, expected) in COMMANDS {
        let got = rules.check_command(line);
        if got.as_ref().map(|v| v.decision) != *expected {
            failures.push(format!("{line:?}: expected {expected:?}, got {got:?}"));
        }
        if let Some(verdict) = got {
            assert!(verdict.reason.contains(".keel/rules.toml:"), "{verdict:?}");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tool_table() {
    let rules = rules();
    let cases: &[(&str, &[&str], Option<RuleDecision>)] = &[
        ("write_file", &["migrations/001_init.sql"], Some(Deny)),
        ("write_file", &["./migrations/a/b.sql"], Some(Deny)),
        ("write_file", &["docs/guide.md"], Some(Allow)),
        ("write_file", &["docs/a.md", "migrations/x.sql"], Some(Deny)),
        ("write_file", &["src/main.rs"], None),
        ("delete_file", &["anything.txt"], Some(Ask)),
        ("read_file", &["migrations/001_init.sql"], None),
    ];
    for (tool, paths, expected) in cases {
        let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
        let got = rules.check_tool(tool, &paths).map(|v| v.decision);
        assert_eq!(got, *expected, "{tool} {paths:?}");
    }
}

#[test]
fn no_rules_decide_nothing() {
    assert_eq!(RuleSet::default().check_command("rm -rf /"), None);
}

#[test]
fn bad_files_name_the_file_and_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("[[rule]]\nmatch = [\"git\"\ndecision = \"ask\"\n", 3, ""),
        (
            "# c\n\n[[rule]]\nmatch = [\"git\"]\ndecision = \"maybe\"\n",
            5,
            "maybe",
        ),
        (
            "[[rule]]\nmatch = [\"ls\"]\ndecision = \"allow\"\n\n[[rule]]\nmatch = [\"x\"]\ntool = \"write_file\"\ndecision = \"deny\"\n",
            5,
            "not both",
        ),
        ("[[rule]]\ndecision = \"deny\"\n", 1, "match"),
        (
            "[[rule]]\nmatch = []\ndecision = \"deny\"\n",
            1,
            "non-empty",
        ),
        (
            "[[rule]]\nmatch = [\"ls\"]\ndecision = \"deny\"\ncolour = 1\n",
            4,
            "colour",
        ),
        (
            "[[rule]]\ntool = \"write_file\"\npaths = [\"a[\"]\ndecision = \"deny\"\n",
            1,
            "bad glob",
        ),
        (
            "[[rule]]\nmatch = [\"ls\"]\npaths = [\"x\"]\ndecision = \"deny\"\n",
            1,
            "paths",
        ),
        (
            "[[rule]]\nhost = \"docs.rs\"\ntool = \"fetch_url\"\ndecision = \"deny\"\n",
            1,
            "one of `match`, `tool` or `host`",
        ),
        (
            "[[rule]]\nhost = \" \"\ndecision = \"deny\"\n",
            1,
            "`host` is empty",
        ),
        (
            "[[rule]]\nhost = \"a[\"\ndecision = \"deny\"\n",
            1,
            "bad host glob",
        ),
    ];
    for (text, line, needle) in cases {
        let err =
            RuleSet::parse(text, Path::new("/p/.keel/rules.toml"), RuleScope::Project).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("/p/.keel/rules.toml:{line}:")),
            "{text:?}: {message}"
        );
        assert!(message.contains(needle), "{text:?}: {message}");
        assert!(matches!(err, RulesError::Invalid { .. }));
    }
}

#[test]
fn load_reads_both_scopes_from_real_files() {
    let project = tempfile::tempdir().unwrap();
    let user = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join(".keel")).unwrap();
    std::fs::write(
        project_rules_path(project.path()),
        "[[rule]]\nmatch = [\"npm\", \"publish\"]\ndecision = \"deny\"\n",
    )
    .unwrap();
    std::fs::write(
        user.path().join("rules.toml"),
        "[[rule]]\nmatch = [\"npm\"]\ndecision = \"allow\"\n",
    )
    .unwrap();
    let set = RuleSet::load(Some(project.path()), Some(user.path())).unwrap();
    assert_eq!(set.rules().len(), 2);
    assert_eq!(set.rules()[0].scope, RuleScope::Project);
    assert_eq!(set.rules()[1].scope, RuleScope::User);
    // The project's deny beats the user's allow.
    assert_eq!(
        set.check_command("npm publish").map(|v| v.decision),
        Some(Deny)
    );
    assert_eq!(
        set.check_command("npm test").map(|v| v.decision),
        Some(Allow)
    );
    // Neither file: no rules.
    let empty = tempfile::tempdir().unwrap();
    assert!(
        RuleSet::load(Some(empty.path()), Some(empty.path()))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn edits_keep_comments_and_broken_files_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".keel/rules.toml");
    let spec = |prefix: &[&str], decision| RuleSpec {
        target: RuleTarget::Command {
            prefix: prefix.iter().map(|w| (*w).to_owned()).collect(),
        },
        decision,
        override_safety: false,
    };
    let first = append_rule(&file, RuleScope::Project, &spec(&["git", "push"], Ask)).unwrap();
    assert_eq!((first.index, first.line), (1, 1));
    std::fs::write(
        &file,
        "[[rule]]  # pushes\nmatch = [\"git\", \"push\"]\ndecision = \"ask\"\n\n\
         # the rm rule\n[[rule]]\nmatch = [\"rm\"]\ndecision = \"deny\"  # never\n# the end\n",
    )
    .unwrap();
    let third = append_rule(&file, RuleScope::Project, &spec(&["ls"], Allow)).unwrap();
    assert_eq!(third.index, 3);
    let removed = remove_rule(&file, RuleScope::Project, 1).unwrap();
    assert_eq!(removed.describe(), "ask git push");
    let text = std::fs::read_to_string(&file).unwrap();
    for kept in ["# the rm rule", "# never", "match = [\"ls\"]"] {
        assert!(text.contains(kept), "{kept} lost:\n{text}");
    }
    assert!(!text.contains("push"), "{text}");
    let left = RuleSet::load(Some(dir.path()), None).unwrap();
    assert_eq!(left.rules().len(), 2);
    assert_eq!(left.rules()[0].describe(), "deny rm");
    remove_rule(&file, RuleScope::Project, 2).unwrap();
    assert!(matches!(
        remove_rule(&file, RuleScope::Project, 5),
        Err(RulesError::NoSuchRule { count: 1, .. })
    ));
    // A broken file is reported and not rewritten.
    let broken = "[[rule]]\nmatch = [\"ls\"\n# precious comment\n";
    std::fs::write(&file, broken).unwrap();
    let err = append_rule(&file, RuleScope::Project, &spec(&["ls"], Allow)).unwrap_err();
    assert!(err.to_string().contains("rules.toml:"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
}

#[test]
fn hosts_are_globs_deny_beating_allow_and_always_names_the_host() {
    let text = "[[rule]]\nhost = \"*.python.org\"\ndecision = \"allow\"\n\n[[rule]]\nhost = \"evil.python.org\"\ndecision = \"deny\"\n";
    let set = RuleSet::parse(text, Path::new(".keel/rules.toml"), RuleScope::Project).unwrap();
    let decide = |host: &str| set.check_host(host).map(|v| v.decision);
    assert_eq!(decide("docs.python.org"), Some(Allow));
    assert_eq!(decide("DOCS.Python.org."), Some(Allow));
    assert_eq!(decide("evil.python.org"), Some(Deny));
    assert_eq!(decide("python.org.example.com"), None);
    assert_eq!(set.check_command("curl docs.python.org"), None);
    assert_eq!(set.rules()[0].describe(), "allow host *.python.org");

    let always = keel_tools::approval_rules::always_rules(
        keel_events::ApprovalKind::Tool,
        "fetch_url https://docs.rs/serde/latest",
    );
    assert_eq!(
        always.iter().map(|r| r.target.clone()).collect::<Vec<_>>(),
        [RuleTarget::Host {
            host: "docs.rs".to_owned()
        }]
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rules.toml");
    let written = append_rule(&file, RuleScope::Project, &always[0]).unwrap();
    assert_eq!(written.describe(), "allow host docs.rs");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "[[rule]]\nhost = \"docs.rs\"\ndecision = \"allow\"\n"
    );
}
