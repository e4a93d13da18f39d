//! The model provider and model chain the settings ask for.

use std::sync::Arc;

use keel_engine::{Provider, ProviderSpecError};

use crate::config::Settings;

/// Builds the provider and the model chain, or says why it cannot (a usage error).
pub fn provider(settings: &Settings) -> Result<(Arc<dyn Provider>, Vec<String>), String> {
    settings.config.provider_spec().build().map_err(|e| match e {
        ProviderSpecError::NoApiKey => "no API key: set OPENAI_API_KEY (for another OpenAI-compatible server also set --base-url or KEEL_BASE_URL), or run offline with --provider scripted:FILE".to_owned(),
        other => other.to_string(),
    })
}
