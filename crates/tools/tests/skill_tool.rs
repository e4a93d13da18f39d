//! The `skill` tool on real folders: a project skill's instructions with its folder relative to
//! the root and the files beside it; a user skill's file read through `file`; paths leading out
//! of the skill's folder, unknown skills and unknown files refused with a message the model can
//! act on; and the tool not usable without skills.

use std::path::Path;
use std::sync::Arc;

use keel_events::{Bus, Emitter, Sequencer};
use keel_extensions::{Skills, Sources};
use keel_tools::builtin::Skill;
use keel_tools::{Tool, ToolContext};
use serde_json::json;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill_md(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}")
}

#[tokio::test]
async fn instructions_files_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let user = dir.path().join("config");
    write(
        &root.join(".keel/skills/pdf/SKILL.md"),
        &skill_md("pdf", "Run forms.py.\n"),
    );
    write(
        &root.join(".keel/skills/pdf/scripts/forms.py"),
        "print(1)\n",
    );
    write(&root.join("secret.txt"), "no\n");
    write(
        &user.join("skills/notes/SKILL.md"),
        &skill_md("notes", "See template.md.\n"),
    );
    write(&user.join("skills/notes/template.md"), "# Release notes\n");
    let root = root.canonicalize().unwrap();
    let (skills, warnings) = Skills::discover(&Sources::new(&root, Some(user.clone())));
    assert!(warnings.is_empty(), "{warnings:?}");
    let tool = Skill::new(Arc::new(skills));
    assert!(tool.usable());
    let ctx = ToolContext::new(
        root.clone(),
        Emitter::new(Sequencer::new("s", "p"), Bus::default()),
    );

    let result = tool.call(&ctx, json!({"name": "pdf"})).await;
    assert!(result.success, "{}", result.message);
    assert!(
        result.message.contains("# Skill: pdf"),
        "{}",
        result.message
    );
    assert!(
        result
            .message
            .contains("Folder: .keel/skills/pdf (in the project: read its files with read_file)"),
        "{}",
        result.message
    );
    assert!(
        result
            .message
            .contains("Files beside SKILL.md: scripts/forms.py")
    );
    assert!(result.message.contains("Run forms.py."));

    let result = tool
        .call(&ctx, json!({"name": "notes", "file": "template.md"}))
        .await;
    assert!(result.success, "{}", result.message);
    assert_eq!(result.message, "# Release notes\n");

    for file in ["../../../project/secret.txt", "/etc/passwd"] {
        let result = tool
            .call(&ctx, json!({"name": "notes", "file": file}))
            .await;
        assert!(!result.success);
        assert!(
            result
                .message
                .contains("not a path inside the skill's folder"),
            "{}",
            result.message
        );
    }
    let result = tool
        .call(&ctx, json!({"name": "notes", "file": "missing.md"}))
        .await;
    assert!(!result.success);
    assert!(
        result.message.contains("Cannot read `missing.md`"),
        "{}",
        result.message
    );

    let result = tool.call(&ctx, json!({"name": "nope"})).await;
    assert!(!result.success);
    assert_eq!(
        result.message,
        "There is no skill `nope`. Skills: notes, pdf."
    );

    assert!(!Skill::new(Arc::new(Skills::default())).usable());
}
