//! Model providers for sessions, built from the server's settings as `keel run` builds them
//! from its flags: a fresh provider per agent session.

use std::sync::Arc;

use keel_engine::{OpenAiConfig, OpenAiProvider, Provider, ScriptedProvider};

use crate::config::ProviderSettings;

/// Model used with the `openai` provider when no model is configured.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4o-mini";

/// A provider and its default model chain, or what is wrong with the settings.
pub fn build_provider(
    settings: &ProviderSettings,
) -> Result<(Arc<dyn Provider>, Vec<String>), String> {
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
        return Err(
            "the server has no API key: set OPENAI_API_KEY where it runs, or start it with \
             --provider scripted:FILE"
                .to_owned(),
        );
    }
    if let Some(base) = &settings.base_url {
        config.base_url = base.trim_end_matches('/').to_owned();
    }
    let provider = OpenAiProvider::new(config).map_err(|e| e.to_string())?;
    Ok((Arc::new(provider), models))
}

/// Checks the settings once at start, so a bad script or missing key is reported early.
pub fn check_provider(settings: &ProviderSettings) -> Result<(), String> {
    build_provider(settings).map(|_| ())
}
