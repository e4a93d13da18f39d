//! Model providers for sessions, built from the server's settings as `keel run` builds them
//! from its flags: a fresh provider per agent session.

use std::sync::Arc;

use keel_engine::{Provider, ProviderSpecError};

/// A provider and its default model chain, or what is wrong with the settings.
pub fn build_provider(
    settings: &keel_config::Settings,
) -> Result<(Arc<dyn Provider>, Vec<String>), String> {
    settings.provider_spec().build().map_err(|e| match e {
        ProviderSpecError::NoApiKey => "the server has no API key: set OPENAI_API_KEY where it \
                                        runs, or start it with --provider scripted:FILE"
            .to_owned(),
        other => other.to_string(),
    })
}

/// Checks the settings once at start, so a bad script or missing key is reported early, and
/// builds the model's tokenizer in the background so the first turn does not wait for it.
pub fn check_provider(settings: &keel_config::Settings) -> Result<(), String> {
    let (_, models) = build_provider(settings)?;
    if let Some(model) = models.first() {
        keel_context::Encoding::for_model(model).preload();
    }
    Ok(())
}
