//! Agent files found in each folder (the project's only when trusted), Claude Code's format read
//! unchanged (tool names mapped, `model: inherit`), and files that cannot be used named with
//! their line.

use std::path::Path;

use keel_extensions::{Agents, Scope, Sources};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn each_folder_is_searched_and_claude_codes_format_is_read_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let user = dir.path().join("config");
    write(
        &root.join(".keel/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews changes\ntools:\n  - read_file\n  - search_files\nmodel: small-model\n---\nReview carefully.\n",
    );
    write(
        &root.join(".claude/agents/finder.md"),
        "---\nname: finder\ndescription: Finds files\ntools: Read, Grep, Glob, LS\nmodel: inherit\n---\n\nList paths.\n",
    );
    // The project's `reviewer` wins over the user's.
    write(
        &user.join("agents/reviewer.md"),
        "---\ndescription: The user's reviewer\n---\nUser's.\n",
    );
    write(
        &user.join("agents/helper.md"),
        "---\ndescription: Helps\n---\n",
    );
    let sources = Sources::new(&root, Some(user.clone()));
    let (agents, warnings) = Agents::discover(&sources, true);
    let names: Vec<&str> = agents.all().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["finder", "helper", "reviewer"]);
    let finder = agents.get("finder").unwrap();
    assert_eq!(
        finder.tools.as_deref(),
        Some(
            &[
                "read_file".to_owned(),
                "search_files".to_owned(),
                "list_files".to_owned()
            ][..]
        )
    );
    assert_eq!(finder.model, None);
    assert_eq!(finder.instructions, "List paths.");
    assert_eq!(finder.tools_line, 4);
    let reviewer = agents.get("reviewer").unwrap();
    assert_eq!(reviewer.scope, Scope::Project);
    assert_eq!(reviewer.model.as_deref(), Some("small-model"));
    assert_eq!(agents.get("helper").unwrap().tools, None);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].to_string().contains("already defined by"),
        "{warnings:?}"
    );

    // Untrusted: only the user's, and each project file named.
    let (agents, warnings) = Agents::discover(&sources, false);
    let names: Vec<&str> = agents.all().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["helper", "reviewer"]);
    assert_eq!(agents.get("reviewer").unwrap().scope, Scope::User);
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.message.contains("not trusted"))
            .count(),
        2
    );
}

#[test]
fn files_that_cannot_be_used_are_named_with_their_line_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    write(&root.join(".keel/agents/plain.md"), "No front matter.\n");
    write(
        &root.join(".keel/agents/unclosed.md"),
        "---\ndescription: never closed\n",
    );
    write(
        &root.join(".keel/agents/bad-yaml.md"),
        "---\ndescription: ok\ntools: [Read\n---\nBody.\n",
    );
    write(
        &root.join(".keel/agents/nodesc.md"),
        "---\nname: nodesc\n---\nBody.\n",
    );
    write(
        &root.join(".keel/agents/spaces.md"),
        "---\nname: has spaces\ndescription: bad name\n---\n",
    );
    write(&root.join(".keel/agents/notes.txt"), "not an agent\n");
    let (agents, warnings) = Agents::discover(&Sources::new(&root, None), true);
    assert!(agents.is_empty());
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 5, "{text:?}");
    let find = |file: &str| {
        text.iter()
            .find(|t| t.contains(file))
            .unwrap_or_else(|| panic!("{file}: {text:?}"))
            .clone()
    };
    assert!(find("plain.md").contains("plain.md:1: no front matter"));
    assert!(find("unclosed.md").contains("never closed"));
    assert!(find("bad-yaml.md").contains("bad-yaml.md:"));
    assert!(find("nodesc.md").contains("no `description`"));
    assert!(find("spaces.md").contains("`has spaces`"));
    assert!(text.iter().all(|t| t.ends_with("it is skipped")));
}
