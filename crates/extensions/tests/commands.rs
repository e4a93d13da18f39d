//! Command templates found in each folder, their front matter, and expansion errors.

use std::path::Path;

use keel_extensions::{Commands, ExpandError, Scope, Sources};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn each_folder_is_searched_with_front_matter_as_claude_code_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let user = dir.path().join("config");
    write(
        &root.join(".keel/commands/review.md"),
        "---\ndescription: Review a file\nargument-hint: [path] [depth]\nmodel: small-model\nallowed-tools: Read, Bash(git diff:*)\n---\nReview $1 carefully.\n",
    );
    write(
        &root.join(".claude/commands/fix-issue.md"),
        "# Fix an issue\n\nFix issue #$ARGUMENTS.\n",
    );
    write(&root.join(".claude/commands/review.md"), "Shadowed.\n");
    write(
        &user.join("commands/standup.md"),
        "---\nallowed-tools:\n  - read_file\n  - search_files\n---\nSummarise yesterday.\n",
    );
    write(&user.join("commands/help.md"), "Mine.\n");
    write(&user.join("commands/notes.txt"), "Not a template.\n");

    let (commands, warnings) =
        Commands::discover(&Sources::new(&root, Some(user)), &["help", "exit"]);
    let names: Vec<(&str, Scope)> = commands
        .all()
        .iter()
        .map(|c| (c.name.as_str(), c.scope))
        .collect();
    assert_eq!(
        names,
        [
            ("fix-issue", Scope::Project),
            ("review", Scope::Project),
            ("standup", Scope::User)
        ]
    );
    let review = commands.get("review").unwrap();
    assert_eq!(review.description, "Review a file");
    assert_eq!(review.argument_hint.as_deref(), Some("[path] [depth]"));
    assert_eq!(review.model.as_deref(), Some("small-model"));
    assert_eq!(
        review.allowed_tools.as_deref(),
        Some(&["Read".to_owned(), "Bash(git diff:*)".to_owned()][..])
    );
    assert_eq!(review.allowed_tool_names().unwrap(), ["Read", "Bash"]);
    assert_eq!(
        review.expand("src/lib.rs").unwrap(),
        "Review src/lib.rs carefully.\n"
    );
    // No front matter: the first line describes it.
    let fix = commands.get("fix-issue").unwrap();
    assert_eq!(fix.description, "Fix an issue");
    assert_eq!(
        fix.expand("  42 ").unwrap(),
        "# Fix an issue\n\nFix issue #42.\n"
    );
    assert_eq!(
        commands.get("standup").unwrap().allowed_tools.as_deref(),
        Some(&["read_file".to_owned(), "search_files".to_owned()][..])
    );
    let messages: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(
        messages
            .iter()
            .any(|m| m.contains("`/review` is already defined"))
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("`/help` is a built-in command"))
    );
}

#[test]
fn an_unknown_placeholder_names_the_file_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".keel/commands/deploy.md");
    write(
        &file,
        "---\ndescription: Deploy\n---\nDeploy $1\nto $FOO now.\n",
    );
    let (commands, warnings) = Commands::discover(&Sources::new(dir.path(), None), &[]);
    assert!(warnings.is_empty());
    let error = commands.get("deploy").unwrap().expand("prod").unwrap_err();
    assert_eq!(
        error,
        ExpandError::UnknownPlaceholder {
            placeholder: "$FOO".into(),
            path: file.clone(),
            line: 5
        }
    );
    assert_eq!(
        error.to_string(),
        format!(
            "{}:5: unknown placeholder `$FOO` (a template has $ARGUMENTS and $1 to $9)",
            file.display()
        )
    );
}

#[test]
fn bad_front_matter_skips_the_command() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join(".keel/commands/bad.md"),
        "---\nmodel: [x\n---\nBody\n",
    );
    write(
        &dir.path().join(".keel/commands/open.md"),
        "---\ndescription: never closed\n",
    );
    let (commands, warnings) = Commands::discover(&Sources::new(dir.path(), None), &[]);
    assert!(commands.is_empty());
    let mut lines: Vec<usize> = warnings.iter().map(|w| w.line).collect();
    lines.sort_unstable();
    assert_eq!(lines, [1, 2], "{warnings:?}");
}
