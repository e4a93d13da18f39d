//! Choosing a provider from a front end's settings: `openai` (any OpenAI-compatible endpoint)
//! or `scripted:FILE`, with the model chain it runs.

use std::sync::Arc;
use std::time::Duration;

use crate::error::ProviderError;
use crate::openai::{OpenAiConfig, OpenAiProvider};
use crate::provider::Provider;
use crate::scripted::ScriptedProvider;

/// Model used with the `openai` provider when no model is configured.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";

/// Model name reported for a scripted provider when no model is configured.
pub const SCRIPTED_MODEL: &str = "scripted";

/// What a front end was told to talk to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderSpec {
    /// `openai` or `scripted:FILE`.
    pub provider: String,
    /// The model chain, first choice first; empty for the provider's default.
    pub models: Vec<String>,
    /// Base URL of the OpenAI-compatible API (default: `OPENAI_BASE_URL`, else OpenAI's).
    pub base_url: Option<String>,
    /// Longest wait for the next chunk of a streamed answer.
    pub idle_timeout: Option<Duration>,
}

/// Why a [`ProviderSpec`] cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ProviderSpecError {
    /// Neither `openai` nor `scripted:FILE`.
    #[error("unknown provider `{0}` (expected `openai` or `scripted:FILE`)")]
    UnknownProvider(String),
    /// `openai` at OpenAI's own endpoint without `OPENAI_API_KEY` (other endpoints, such as a
    /// local server, may need none).
    #[error("no API key: set OPENAI_API_KEY, or run offline with --provider scripted:FILE")]
    NoApiKey,
    /// The script could not be read, or the HTTP client not built.
    #[error(transparent)]
    Provider(#[from] ProviderError),
}

impl ProviderSpec {
    /// Builds a fresh provider (a scripted one replays its script from the start) and the model
    /// chain to run it with. The API key comes from `OPENAI_API_KEY`; only OpenAI's own endpoint
    /// needs one.
    pub fn build(&self) -> Result<(Arc<dyn Provider>, Vec<String>), ProviderSpecError> {
        if let Some(file) = self.provider.strip_prefix("scripted:") {
            let provider = ScriptedProvider::from_file(file)?;
            return Ok((Arc::new(provider), self.models_or(SCRIPTED_MODEL)));
        }
        if self.provider != "openai" {
            return Err(ProviderSpecError::UnknownProvider(self.provider.clone()));
        }
        let models = self.models_or(DEFAULT_OPENAI_MODEL);
        let first = models.first().cloned().unwrap_or_default();
        let mut config = OpenAiConfig::from_env(first);
        if let Some(base) = &self.base_url {
            config.base_url = base.trim_end_matches('/').to_owned();
        }
        if config.api_key.trim().is_empty() && needs_api_key(&config.base_url) {
            return Err(ProviderSpecError::NoApiKey);
        }
        if let Some(idle) = self.idle_timeout {
            config.idle_timeout = idle;
        }
        Ok((Arc::new(OpenAiProvider::new(config)?), models))
    }

    fn models_or(&self, default: &str) -> Vec<String> {
        if self.models.is_empty() {
            vec![default.to_owned()]
        } else {
            self.models.clone()
        }
    }
}

/// Whether the endpoint at `base_url` refuses requests without a key: OpenAI's own API does;
/// a local or self-hosted server (llama.cpp, Ollama, vLLM, LM Studio) usually needs none, and
/// one that does says so on the first call.
pub fn needs_api_key(base_url: &str) -> bool {
    let host = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest)
        .split(['/', ':'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    host == "api.openai.com"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_openai_itself_needs_a_key() {
        assert!(needs_api_key("https://api.openai.com/v1"));
        assert!(needs_api_key("https://API.openai.com:443/v1/"));
        assert!(!needs_api_key("http://127.0.0.1:8012/v1"));
        assert!(!needs_api_key("http://localhost:11434/v1"));
        assert!(!needs_api_key("https://openrouter.ai/api/v1"));
        assert!(!needs_api_key("https://api.openai.com.example.org/v1"));
    }

    #[test]
    fn unknown_provider_is_named() {
        let spec = ProviderSpec {
            provider: "anthropic".to_owned(),
            ..ProviderSpec::default()
        };
        let err = spec.build().err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("unknown provider `anthropic` (expected `openai` or `scripted:FILE`)")
        );
    }

    #[test]
    fn scripted_defaults_its_model_and_keeps_a_chain() {
        let dir = std::env::temp_dir().join(format!("keel-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("s.json");
        std::fs::write(&file, r#"{"turns":[{"text":"hi"}]}"#).unwrap();
        let mut spec = ProviderSpec {
            provider: format!("scripted:{}", file.display()),
            ..ProviderSpec::default()
        };
        assert_eq!(spec.build().unwrap().1, vec!["scripted".to_owned()]);
        spec.models = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(
            spec.build().unwrap().1,
            vec!["a".to_owned(), "b".to_owned()]
        );
        let missing = ProviderSpec {
            provider: format!("scripted:{}", dir.join("none.json").display()),
            ..ProviderSpec::default()
        };
        assert!(matches!(
            missing.build(),
            Err(ProviderSpecError::Provider(_))
        ));
    }
}
