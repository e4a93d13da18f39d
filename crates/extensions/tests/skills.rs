//! Skills found in each folder, in order of precedence, and the files skipped with a warning.

use std::path::Path;

use keel_extensions::{Scope, Skills, Sources};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}")
}

#[test]
fn each_folder_is_searched_and_the_first_wins() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let user = dir.path().join("config");
    write(
        &root.join(".keel/skills/a/SKILL.md"),
        &skill("alpha", "From keel.", "A"),
    );
    write(
        &root.join(".agents/skills/b/SKILL.md"),
        &skill("beta", "From agents.", "B"),
    );
    write(
        &root.join(".claude/skills/c/SKILL.md"),
        &skill("gamma", "From claude.", "C"),
    );
    write(
        &user.join("skills/d/SKILL.md"),
        &skill("delta", "From the user.", "D"),
    );
    // Taken by `.keel/skills` already.
    write(
        &user.join("skills/e/SKILL.md"),
        &skill("alpha", "Again.", "E"),
    );
    // A folder without SKILL.md is not a skill.
    write(&root.join(".keel/skills/notes/README.md"), "hi");

    let (skills, warnings) = Skills::discover(&Sources::new(&root, Some(user.clone())));
    let found: Vec<(&str, &str, Scope)> = skills
        .all()
        .iter()
        .map(|s| (s.name.as_str(), s.description.as_str(), s.scope))
        .collect();
    assert_eq!(
        found,
        [
            ("alpha", "From keel.", Scope::Project),
            ("beta", "From agents.", Scope::Project),
            ("delta", "From the user.", Scope::User),
            ("gamma", "From claude.", Scope::Project),
        ]
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].path.ends_with("skills/e/SKILL.md"));
    assert!(
        warnings[0].to_string().contains("already defined by"),
        "{}",
        warnings[0]
    );
    let alpha = skills.get("alpha").unwrap();
    assert_eq!(alpha.body().unwrap(), "A");
    assert_eq!(alpha.dir, root.join(".keel/skills/a"));
}

#[test]
fn bad_front_matter_is_a_warning_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join(".keel/skills/plain/SKILL.md"),
        "# No front matter\nDo things.\n",
    );
    write(
        &root.join(".keel/skills/broken/SKILL.md"),
        "---\nname: broken\ndescription: [unclosed\n---\nBody\n",
    );
    write(
        &root.join(".keel/skills/nameless/SKILL.md"),
        "---\ndescription: Has no name.\n---\nBody\n",
    );
    write(
        &root.join(".keel/skills/shouty/SKILL.md"),
        "---\ndescription: Bad name.\nname: Shouty Name\n---\nBody\n",
    );
    write(
        &root.join(".keel/skills/good/SKILL.md"),
        &skill("good", "Fine.", "Body"),
    );

    let (skills, warnings) = Skills::discover(&Sources::new(root, None));
    assert_eq!(skills.len(), 1);
    assert_eq!(skills.all()[0].name, "good");
    let messages: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    let about = |folder: &str| {
        warnings
            .iter()
            .find(|w| w.path.ends_with(format!("{folder}/SKILL.md")))
            .unwrap()
    };
    assert_eq!(about("plain").line, 1);
    assert!(about("plain").message.contains("no front matter"));
    assert_eq!(about("broken").line, 3, "{}", about("broken"));
    assert!(about("nameless").message.contains("no `name`"));
    assert_eq!(about("shouty").line, 3);
    assert!(messages.iter().all(|m| m.ends_with("it is skipped")));
    assert!(
        messages[0].starts_with(&root.join(".keel/skills").display().to_string()),
        "{}",
        messages[0]
    );
}
