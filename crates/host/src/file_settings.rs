//! Settings both front ends read from their TOML files in the same shape: model prices
//! (`[pricing.MODEL]`), the names of extra instruction files (`instructions_files`), the
//! image endpoint (`[images]`), the libraries preloaded as background (`[context]`) and the
//! checkpoint store's bound (`checkpoint_max_mb`).

use std::collections::BTreeMap;
use std::path::{Component, Path};

use keel_engine::{ModelPrice, Pricing};
use keel_tools::builtin::ImageSettings;
use serde::Deserialize;
use serde::de::{self, Deserializer};

/// `[pricing.MODEL]`: US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceConfig {
    /// Prompt tokens.
    #[serde(deserialize_with = "dollars")]
    pub input: f64,
    /// Prompt tokens served from the provider's cache (default: the input price).
    #[serde(default, deserialize_with = "some_dollars")]
    pub cached_input: Option<f64>,
    /// Completion tokens.
    #[serde(deserialize_with = "dollars")]
    pub output: f64,
}

impl PriceConfig {
    /// The engine's price.
    pub fn price(&self) -> ModelPrice {
        ModelPrice {
            input: self.input,
            cached_input: self.cached_input,
            output: self.output,
        }
    }
}

/// The built-in prices with `overrides` applied in order (a later one for the same model wins).
pub fn pricing_with<'a>(
    overrides: impl IntoIterator<Item = &'a BTreeMap<String, PriceConfig>>,
) -> Pricing {
    overrides
        .into_iter()
        .flat_map(|table| table.iter())
        .fold(Pricing::builtin(), |pricing, (model, price)| {
            pricing.with_override(model, price.price())
        })
}

/// A price: a finite number, not negative.
fn dollars<'de, D>(deserializer: D) -> Result<f64, D::Error>
where
    D: Deserializer<'de>,
{
    let value = f64::deserialize(deserializer)?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(de::Error::custom(
            "must be a price in US dollars per million tokens (0 or more)",
        ))
    }
}

fn some_dollars<'de, D>(deserializer: D) -> Result<Option<f64>, D::Error>
where
    D: Deserializer<'de>,
{
    dollars(deserializer).map(Some)
}

/// `instructions_files = ["CLAUDE.md", "docs/RULES.md"]`: relative paths without `..`, for
/// `#[serde(deserialize_with = "keel_host::instruction_files")]`.
pub fn instruction_files<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    let names = Vec::<String>::deserialize(deserializer)?;
    for name in &names {
        let path = Path::new(name.trim());
        let escapes = path
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if name.trim().is_empty() || escapes {
            return Err(de::Error::custom(format!(
                "`{name}` is not a file name: give a path relative to the folder it is looked up in, without `..`"
            )));
        }
    }
    Ok(Some(names))
}

/// `[context]`: what is preloaded into the prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextConfig {
    /// Dependencies whose documentation digest is preloaded into the prompt as background
    /// (e.g. `["tokio"]`), at the versions the project locks.
    #[serde(default, deserialize_with = "library_names")]
    pub libraries: Option<Vec<String>>,
    /// Most messages of history a turn opens with (seed 002 §3.2; default 50, `0`: no
    /// limit); older whole turns are folded into the summary.
    pub max_messages: Option<usize>,
}

impl ContextConfig {
    /// The history limit `max_messages` sets: `None` for `0` (no limit), the engine's
    /// default when unset.
    pub fn history_limit(config: Option<&ContextConfig>) -> Option<usize> {
        match config.and_then(|c| c.max_messages) {
            Some(0) => None,
            Some(max) => Some(max),
            None => Some(keel_engine::DEFAULT_MAX_HISTORY_MESSAGES),
        }
    }
}

/// `[images]`: where `generate_image` asks for pictures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImagesConfig {
    /// Base URL of the OpenAI-compatible images API (default: the chat provider's `base_url`).
    pub base_url: Option<String>,
    /// The image model (`generate_image` is unconfigured without it).
    pub model: Option<String>,
}

/// The `generate_image` settings of the first `[images]` table that sets each key (project
/// over user), `base_url` defaulting to the chat provider's (`chat`, else `OPENAI_BASE_URL`,
/// else OpenAI's), the key from `OPENAI_API_KEY`.
pub fn image_settings<'a>(
    tables: impl IntoIterator<Item = &'a ImagesConfig> + Clone,
    chat: Option<String>,
) -> ImageSettings {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let first =
        |pick: fn(&ImagesConfig) -> Option<String>| tables.clone().into_iter().find_map(pick);
    ImageSettings {
        base_url: first(|i| i.base_url.clone())
            .or(chat)
            .or_else(|| var("OPENAI_BASE_URL"))
            .or_else(|| Some(keel_engine::openai::DEFAULT_BASE_URL.to_owned())),
        model: first(|i| i.model.clone()),
        api_key: var("OPENAI_API_KEY"),
    }
}

/// The checkpoint store's bound in bytes: the first `checkpoint_max_mb` set among `layers`
/// (most specific first), else 512 MB.
pub fn checkpoint_max_bytes(layers: impl IntoIterator<Item = Option<u64>>) -> u64 {
    layers
        .into_iter()
        .flatten()
        .next()
        .map_or(keel_tools::checkpoint::DEFAULT_MAX_BYTES, |mb| {
            mb.saturating_mul(1024 * 1024)
        })
}

/// `libraries = ["tokio"]`: dependency names, no paths or blanks.
fn library_names<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    let names = Vec::<String>::deserialize(deserializer)?;
    for name in &names {
        let bad = name.trim().is_empty()
            || name.contains("..")
            || name.chars().any(|c| c.is_whitespace() || c.is_control());
        if bad {
            return Err(de::Error::custom(format!(
                "`{name}` is not a library name: give a dependency's name as the project declares it, e.g. \"tokio\""
            )));
        }
    }
    Ok(Some(names))
}
