//! `[[hooks.EVENT]]`: entries read with their lines, unknown events and bad matchers refused
//! with file and line, and the hooks of every layer kept with their scope.

use std::path::{Path, PathBuf};

use keel_config::{Layer, Origin, Settings};
use keel_extensions::{HookEvent, Scope};

const HOOKS: &str = r#"
model = "m"

[[hooks.PreToolUse]]
matcher = "Bash"
command = "./guard.sh"
timeout = 5

[[hooks.Stop]]
command = "./more.sh"
"#;

#[test]
fn hook_entries_are_read_with_their_lines() {
    let parsed = keel_config::parse(Path::new("/p/keel.toml"), HOOKS).unwrap();
    let hooks = parsed.config.hooks.unwrap();
    assert_eq!(hooks.pre_tool_use.len(), 1);
    assert_eq!(hooks.pre_tool_use[0].matcher.as_deref(), Some("Bash"));
    assert_eq!(hooks.pre_tool_use[0].command.get_ref(), "./guard.sh");
    assert_eq!(hooks.pre_tool_use[0].timeout, Some(5));
    assert_eq!(hooks.pre_tool_use[0].line, 6);
    assert_eq!(hooks.stop[0].line, 10);
}

#[test]
fn an_unknown_event_or_key_is_an_error_naming_the_line() {
    let err = keel_config::parse(
        Path::new("/p/keel.toml"),
        "[[hooks.PreToolUSE]]\ncommand = \"x\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("/p/keel.toml line 1"), "{err}");
    assert!(err.contains("did you mean `hooks.PreToolUse`"), "{err}");
    let err = keel_config::parse(
        Path::new("/p/keel.toml"),
        "[[hooks.Stop]]\ncommand = \"x\"\ntimeout_ms = 3\n",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("/p/keel.toml, line 3"), "{err}");
    assert!(err.contains("unknown field `timeout_ms`"), "{err}");
}

#[test]
fn a_bad_matcher_or_timeout_is_an_error_naming_the_line() {
    let err = keel_config::parse(
        Path::new("/p/keel.toml"),
        "\n[[hooks.PreToolUse]]\nmatcher = \"(\"\ncommand = \"x\"\n",
    )
    .unwrap_err()
    .to_string();
    // Named at the end of the hook's table (toml's span for the entry).
    assert!(err.contains("/p/keel.toml, line 4"), "{err}");
    assert!(err.contains("matcher `(`"), "{err}");
    let err = keel_config::parse(
        Path::new("/p/keel.toml"),
        "[[hooks.Stop]]\ncommand = \"x\"\ntimeout = 0\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("/p/keel.toml, line 3") && err.contains("at least 1"),
        "{err}"
    );
}

#[test]
fn every_layers_hooks_are_kept_with_their_scope() {
    let user = keel_config::parse(
        Path::new("/u/keel.toml"),
        "[[hooks.Notification]]\ncommand = \"notify-send keel\"\n",
    )
    .unwrap();
    let project = keel_config::parse(Path::new("/p/keel.toml"), HOOKS).unwrap();
    let layers = [
        Layer::new(
            Origin::Project(PathBuf::from("/p/keel.toml")),
            project.config,
            None,
        ),
        Layer::new(
            Origin::User(PathBuf::from("/u/keel.toml")),
            user.config,
            None,
        ),
    ];
    let settings = Settings::resolve(&layers, Some(PathBuf::from("/u")));
    let hooks = &settings.hooks;
    assert_eq!(hooks.len(), 3);
    assert_eq!(hooks[0].event, HookEvent::Notification);
    assert_eq!(hooks[0].origin.scope, Scope::User);
    assert_eq!(hooks[1].event, HookEvent::PreToolUse);
    assert_eq!(hooks[1].origin.scope, Scope::Project);
    assert_eq!(hooks[1].origin.to_string(), "/p/keel.toml:6");
    assert_eq!(hooks[1].timeout, std::time::Duration::from_secs(5));
    let agent = settings.agent_settings(Path::new("/p"), vec![]);
    assert_eq!(agent.hooks, settings.hooks);
    assert!(!agent.trust_project);
}
