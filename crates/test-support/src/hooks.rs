//! The hooks Keel's tests run through every front end (issue 26 §1's "must show"): a
//! `PreToolUse` hook that blocks `rm`, one that rewrites a written file's path, a `PostToolUse`
//! formatter and a `Stop` hook that sends the model back to work once — written as keel.toml
//! `[[hooks.EVENT]]` entries or as Claude Code's `.claude/settings.json`, unchanged.

use serde_json::json;

use crate::ScriptBuilder;

/// Blocks a shell command starting with `rm` (exit 2, the reason on stderr).
pub const BLOCK_RM: &str =
    r#"if grep -q '"command":"rm '; then echo 'rm is not allowed in this project' >&2; exit 2; fi"#;
/// Allows a write and moves it to `out/b.txt` (`updatedInput`).
pub const REWRITE: &str = r#"echo "{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {\"file_path\": \"$CLAUDE_PROJECT_DIR/out/b.txt\"}}}""#;
/// Strips trailing blanks from the file a tool wrote (a formatter).
pub const FORMAT: &str = r#"f=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["tool_input"]["file_path"])'); sed -i 's/[[:space:]]*$//' "$f""#;
/// Sends the model back to work the first time it stops.
pub const STOP: &str = r#"if grep -q '"stop_hook_active":false'; then echo '{"decision": "block", "reason": "run the tests first"}'; fi"#;

/// The four hooks as (event, matcher in Claude Code's tool names, command).
pub const FOUR_HOOKS: [(&str, &str, &str); 4] = [
    ("PreToolUse", "Bash", BLOCK_RM),
    ("PreToolUse", "Write", REWRITE),
    ("PostToolUse", "Write|Edit", FORMAT),
    ("Stop", "", STOP),
];

/// The scripted model of the four hooks' scenario: `rm`, a write the hook moves, then an answer
/// the Stop hook sends back, then the final answer (`Tests run; all done.`).
pub fn four_hooks_script() -> ScriptBuilder {
    ScriptBuilder::new()
        .tool_call("execute_command", json!({"command": "rm -rf data"}))
        .tool_call(
            "write_file",
            json!({"path": "a.txt", "content": "one   \ntwo\t\n"}),
        )
        .text("All done.")
        .text("Tests run; all done.")
}

/// A project for the four hooks: `data/keep.txt` (what `rm` would remove) and `out/`.
pub fn four_hooks_project(root: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(root.join("data"))?;
    std::fs::create_dir_all(root.join("out"))?;
    std::fs::write(root.join("data/keep.txt"), "keep\n")
}

/// `keel.toml` text holding `hooks` as `[[hooks.EVENT]]` entries (timeout 10 s).
pub fn keel_toml(hooks: &[(&str, &str, &str)]) -> String {
    let mut text = String::new();
    for (event, matcher, command) in hooks {
        text.push_str(&format!("[[hooks.{event}]]\n"));
        if !matcher.is_empty() {
            text.push_str(&format!("matcher = {}\n", toml_string(matcher)));
        }
        text.push_str(&format!(
            "command = {}\ntimeout = 10\n\n",
            toml_string(command)
        ));
    }
    text
}

/// A TOML basic string (JSON's escapes are TOML's).
fn toml_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Claude Code's `.claude/settings.json` holding the same hooks.
pub fn claude_settings(hooks: &[(&str, &str, &str)]) -> String {
    let mut events = serde_json::Map::new();
    for (event, matcher, command) in hooks {
        let group = json!({
            "matcher": matcher,
            "hooks": [{"type": "command", "command": command, "timeout": 10}],
        });
        if let Some(groups) = events
            .entry((*event).to_owned())
            .or_insert_with(|| json!([]))
            .as_array_mut()
        {
            groups.push(group);
        }
    }
    serde_json::to_string_pretty(&json!({ "hooks": events })).unwrap_or_default()
}
