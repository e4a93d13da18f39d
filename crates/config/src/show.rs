//! `keel config show [--origin]`: every effective value as a `keel.toml` line, and where it came
//! from.

use std::fmt::Write as _;

use crate::settings::{Origins, Settings};

/// One effective value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key, dotted from the top (`memory.distill`).
    pub key: String,
    /// Its value as TOML (`"openai"`, `25`, `["a", "b"]`), or `unset`.
    pub value: String,
    /// Where it came from ([`crate::Origin::describe`]).
    pub origin: String,
}

fn text(value: &str) -> String {
    toml::Value::String(value.to_owned()).to_string()
}

fn list<'a>(values: impl IntoIterator<Item = &'a str>) -> String {
    let items: Vec<String> = values.into_iter().map(text).collect();
    format!("[{}]", items.join(", "))
}

fn opt<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "unset".to_owned(), |v| v.to_string())
}

/// Every key's effective value in `settings`, in the order `keel.toml`'s documentation lists
/// them, with its origin from `origins`.
pub fn entries(settings: &Settings, origins: &Origins) -> Vec<Entry> {
    let s = settings;
    let mut rows: Vec<(String, String)> = vec![
        ("provider".into(), text(&s.provider)),
        ("model".into(), list(s.models.iter().map(String::as_str))),
        ("base_url".into(), opt(s.base_url.as_deref().map(text))),
        ("approval".into(), text(s.approval.as_str())),
        ("mode".into(), text(s.mode.as_str())),
        ("max_iterations".into(), s.max_iterations.to_string()),
        ("max_retries".into(), opt(s.max_retries)),
        ("idle_timeout".into(), opt(s.idle_timeout)),
        ("approve_plans".into(), s.approve_plans.to_string()),
        (
            "approval_edits".into(),
            text(edit_approval(s.approval_edits)),
        ),
        ("shadow".into(), s.shadow.to_string()),
        ("tool_format".into(), text(s.tool_format.as_str())),
        ("tool_profile".into(), text(s.tool_profile.as_str())),
        ("temperature".into(), opt(s.sampling.temperature)),
        ("top_p".into(), opt(s.sampling.top_p)),
        (
            "test_command".into(),
            opt(s.test_command.as_deref().map(text)),
        ),
        ("auto_test".into(), s.auto_test.to_string()),
        ("attempts".into(), opt(s.attempts)),
        ("context_window".into(), opt(s.context_window)),
        ("vision".into(), opt(s.vision)),
        ("repo_map".into(), s.repo_map.to_string()),
        ("color".into(), text(s.color.as_str())),
        ("verbose".into(), s.verbose.to_string()),
        (
            "include_system_prompt".into(),
            s.include_system_prompt.to_string(),
        ),
        (
            "instructions_files".into(),
            list(s.instructions_files.iter().map(String::as_str)),
        ),
        ("sandbox".into(), text(s.sandbox.mode.as_str())),
        ("network".into(), s.sandbox.network.to_string()),
        (
            "writable_roots".into(),
            list(
                s.sandbox
                    .writable_roots
                    .iter()
                    .map(|p| p.to_str().unwrap_or("?")),
            ),
        ),
        (
            "sandbox_fallback".into(),
            text(&s.sandbox.fallback.to_string()),
        ),
        (
            "checkpoint_max_mb".into(),
            (s.checkpoint_max_bytes / (1024 * 1024)).to_string(),
        ),
        ("memory.distill".into(), s.distill_memory.to_string()),
        ("git.commit".into(), text(s.git_commit.as_str())),
        (
            "telemetry.otlp_endpoint".into(),
            opt(s.otlp_endpoint.as_deref().map(text)),
        ),
        (
            "telemetry.capture_content".into(),
            s.capture_content.to_string(),
        ),
        (
            "context.libraries".into(),
            list(s.libraries.iter().map(String::as_str)),
        ),
        (
            "context.max_messages".into(),
            s.max_history_messages.unwrap_or(0).to_string(),
        ),
        (
            "images.base_url".into(),
            opt(s.images.base_url.as_deref().map(text)),
        ),
        (
            "images.model".into(),
            opt(s.images.model.as_deref().map(text)),
        ),
    ];
    let mut priced: Vec<&str> = origins
        .keys()
        .filter_map(|k| k.strip_prefix("pricing."))
        .collect();
    priced.sort_unstable();
    for model in priced {
        if let Some(price) = s.pricing.price(model) {
            let cached = price
                .cached_input
                .map_or_else(String::new, |c| format!(", cached_input = {c}"));
            rows.push((
                format!("pricing.{}", text(model)),
                format!(
                    "{{ input = {}{cached}, output = {} }}",
                    price.input, price.output
                ),
            ));
        }
    }
    for (name, server) in &s.mcp_servers {
        let what = match (&server.command, &server.url) {
            (Some(command), _) => format!("{{ command = {} }}", text(command)),
            (None, Some(url)) => format!("{{ url = {} }}", text(url)),
            (None, None) => "{}".to_owned(),
        };
        rows.push((format!("mcp_servers.{name}"), what));
    }
    for language in keel_lsp::Language::ALL {
        if let Some(server) = s.lsp.table(language) {
            let mut parts = Vec::new();
            if let Some(command) = &server.command {
                parts.push(format!(
                    "command = {}",
                    list(command.iter().map(String::as_str))
                ));
            }
            if let Some(enabled) = server.enabled {
                parts.push(format!("enabled = {enabled}"));
            }
            if let Some(ms) = server.wait_ms {
                parts.push(format!("wait_ms = {ms}"));
            }
            if let Some(ms) = server.start_wait_ms {
                parts.push(format!("start_wait_ms = {ms}"));
            }
            rows.push((
                format!("lsp.{language}"),
                format!("{{ {} }}", parts.join(", ")),
            ));
        }
    }
    rows.into_iter()
        .map(|(key, value)| {
            let lookup = key.replace('"', "");
            Entry {
                origin: origins.of(&lookup).describe(&lookup),
                key,
                value,
            }
        })
        .collect()
}

fn edit_approval(approval: keel_protocol::EditApproval) -> &'static str {
    match approval {
        keel_protocol::EditApproval::Never => "never",
        keel_protocol::EditApproval::Ask => "ask",
    }
}

/// The entries as lines, `key = value`, with `--origin` followed by `# origin`, aligned.
pub fn render(entries: &[Entry], with_origin: bool) -> String {
    let width = entries
        .iter()
        .map(|e| e.key.len() + 3 + e.value.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for entry in entries {
        let line = format!("{} = {}", entry.key, entry.value);
        if with_origin {
            let _ = writeln!(out, "{line:<width$}  # {}", entry.origin);
        } else {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}
