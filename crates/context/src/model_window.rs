//! How many tokens each model's context window holds, looked up by model-name prefix.

use std::collections::BTreeMap;

/// Window assumed for a model nobody has described (128k, the common size today).
pub const DEFAULT_WINDOW: u64 = 128_000;

/// Built-in windows by model-name prefix (lower case). The longest matching prefix wins.
const BUILT_IN: &[(&str, u64)] = &[
    // OpenAI
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4.5", 128_000),
    ("gpt-4o", 128_000),
    ("chatgpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4-1106", 128_000),
    ("gpt-4-0125", 128_000),
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-oss", 131_072),
    ("o1-mini", 128_000),
    ("o1-preview", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("codex-mini", 200_000),
    // Anthropic
    ("claude", 200_000),
    // Google
    ("gemini-1.5-pro", 2_097_152),
    ("gemini-1.5", 1_048_576),
    ("gemini-2", 1_048_576),
    ("gemini-3", 1_048_576),
    // Others commonly served behind OpenAI-compatible endpoints
    ("deepseek", 128_000),
    ("qwen2.5-coder", 32_768),
    ("qwen", 131_072),
    ("llama-3", 128_000),
    ("llama3", 128_000),
    ("mistral-large", 128_000),
    ("codestral", 256_000),
    ("kimi", 131_072),
    ("glm-4", 128_000),
];

/// A table of context windows by model-name prefix, with a default and overrides.
///
/// Lookup ignores case and anything up to the last `/` (so `openrouter/anthropic/claude-3.5`
/// matches `claude`) and a leading `ft:`. Overrides are consulted before the built-in table,
/// each set by longest prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelWindows {
    overrides: BTreeMap<String, u64>,
    default: u64,
}

impl Default for ModelWindows {
    fn default() -> Self {
        Self {
            overrides: BTreeMap::new(),
            default: DEFAULT_WINDOW,
        }
    }
}

impl ModelWindows {
    /// The built-in table with the default window [`DEFAULT_WINDOW`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The same table, answering `window` for models that match `prefix` (e.g. a local model
    /// name, or a whole model name to pin one exactly).
    pub fn with_override(mut self, prefix: impl Into<String>, window: u64) -> Self {
        self.overrides
            .insert(prefix.into().to_ascii_lowercase(), window.max(1));
        self
    }

    /// The same table with another window for unknown models.
    pub fn with_default(mut self, window: u64) -> Self {
        self.default = window.max(1);
        self
    }

    /// The context window of `model`, in tokens.
    pub fn window_for(&self, model: &str) -> u64 {
        let lower = model.to_ascii_lowercase();
        let full = lower.strip_prefix("ft:").unwrap_or(&lower);
        let base = full.rsplit('/').next().unwrap_or(full);
        let from_overrides = [full, base].into_iter().find_map(|name| {
            longest_prefix(self.overrides.iter().map(|(p, w)| (p.as_str(), *w)), name)
        });
        from_overrides
            .or_else(|| longest_prefix(BUILT_IN.iter().copied(), base))
            .unwrap_or(self.default)
    }
}

fn longest_prefix<'a>(entries: impl Iterator<Item = (&'a str, u64)>, name: &str) -> Option<u64> {
    entries
        .filter(|(prefix, _)| name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, window)| window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models() {
        let table = ModelWindows::new();
        assert_eq!(table.window_for("gpt-4o-mini"), 128_000);
        assert_eq!(table.window_for("gpt-4-32k-0613"), 32_768);
        assert_eq!(table.window_for("gpt-4-0613"), 8_192);
        assert_eq!(table.window_for("gpt-4.1-mini"), 1_047_576);
        assert_eq!(table.window_for("o1-mini"), 128_000);
        assert_eq!(table.window_for("o3"), 200_000);
        assert_eq!(table.window_for("Claude-Sonnet-4"), 200_000);
        assert_eq!(
            table.window_for("openrouter/anthropic/claude-3.5-sonnet"),
            200_000
        );
        assert_eq!(table.window_for("ft:gpt-4o-mini:org::id"), 128_000);
    }

    #[test]
    fn unknown_models_get_the_default() {
        assert_eq!(
            ModelWindows::new().window_for("my-local-model"),
            DEFAULT_WINDOW
        );
        assert_eq!(
            ModelWindows::new().with_default(8_000).window_for("x"),
            8_000
        );
    }

    #[test]
    fn overrides_win_by_longest_prefix() {
        let table = ModelWindows::new()
            .with_override("gpt-4o", 64_000)
            .with_override("gpt-4o-mini", 32_000)
            .with_override("ollama/qwen", 4_096);
        assert_eq!(table.window_for("gpt-4o-2024-08-06"), 64_000);
        assert_eq!(table.window_for("gpt-4o-mini"), 32_000);
        assert_eq!(table.window_for("ollama/qwen2.5"), 4_096);
        assert_eq!(table.window_for("qwen2.5"), 131_072);
    }
}
