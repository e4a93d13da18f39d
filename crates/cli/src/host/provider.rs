//! The model provider and model chain the settings ask for.

use std::sync::Arc;
use std::time::Duration;

use keel_engine::{OpenAiConfig, OpenAiProvider, Provider, ScriptedProvider};

use crate::config::{DEFAULT_OPENAI_MODEL, Settings};

/// Builds the provider and the model chain, or says why it cannot (a usage error).
pub fn provider(settings: &Settings) -> Result<(Arc<dyn Provider>, Vec<String>), String> {
    let models = settings.models.clone();
    if let Some(file) = settings.provider.strip_prefix("scripted:") {
        let provider = ScriptedProvider::from_file(file).map_err(|e| e.to_string())?;
        let models = if models.is_empty() {
            vec!["scripted".to_owned()]
        } else {
            models
        };
        return Ok((Arc::new(provider), models));
    }
    if settings.provider != "openai" {
        return Err(format!(
            "unknown provider `{}` (expected `openai` or `scripted:FILE`)",
            settings.provider
        ));
    }
    let models = if models.is_empty() {
        vec![DEFAULT_OPENAI_MODEL.to_owned()]
    } else {
        models
    };
    let mut config = OpenAiConfig::from_env(models[0].clone());
    if config.api_key.trim().is_empty() {
        return Err("no API key: set OPENAI_API_KEY (for another OpenAI-compatible server also set --base-url or KEEL_BASE_URL), or run offline with --provider scripted:FILE".to_owned());
    }
    if let Some(base) = &settings.base_url {
        config.base_url = base.trim_end_matches('/').to_owned();
    }
    if let Some(secs) = settings.idle_timeout {
        config.idle_timeout = Duration::from_secs(secs);
    }
    let provider = OpenAiProvider::new(config).map_err(|e| e.to_string())?;
    Ok((Arc::new(provider), models))
}
