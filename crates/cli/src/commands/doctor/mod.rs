//! `keel doctor`: checks an OpenAI-compatible endpoint the way a turn uses it and says what
//! works — reachable, models listed, streaming, native tool calls, tool calls as text (which
//! format), usage reported, the context window the server reports — and which settings to use.
//!
//! The endpoint, key and model come from the same places as `keel run`'s: `--base-url` /
//! `KEEL_BASE_URL` / `keel.toml` / `OPENAI_BASE_URL`, `OPENAI_API_KEY`, and `--model` /
//! `KEEL_MODEL` / `keel.toml` (when none is configured, the first model the server lists).
//! The JSON shape is documented in [`report`].

mod probe;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use keel_engine::openai::DEFAULT_BASE_URL;

use super::agent_args::AgentArgs;
use super::run::{block_on, usage};
use crate::config::Settings;
use probe::Target;
use report::ModelSource;

/// Longest wait for a model's first chunk when no `idle_timeout` is set (loading a local model
/// can take a while).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// Arguments of `keel doctor`.
///
/// Exit status: 0 when a turn can work; 1 when it cannot (the reason is printed: unreachable,
/// key refused, no model, no streamed answer); 2 for usage errors (a bad `keel.toml`).
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Base URL of the OpenAI-compatible API [env: KEEL_BASE_URL] [default: the settings', else
    /// OPENAI_BASE_URL, else api.openai.com].
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The model to check [env: KEEL_MODEL] [default: the settings', else the server's first].
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Project folder whose `keel.toml` is read.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

/// Runs `keel doctor`.
pub fn run(args: DoctorArgs) -> ExitCode {
    block_on("doctor", async move {
        let agent = AgentArgs {
            base_url: args.base_url.clone(),
            model: args.model.clone(),
            root: args.root.clone(),
            ..AgentArgs::default()
        };
        let settings = match Settings::load(&agent) {
            Ok(settings) => settings,
            Err(e) => return usage("doctor", e),
        };
        let report = probe::examine(target(&args, &settings)).await;
        if args.json {
            match serde_json::to_string_pretty(&report) {
                Ok(json) => println!("{json}"),
                Err(e) => {
                    eprintln!("keel doctor: cannot write the report: {e}");
                    return ExitCode::FAILURE;
                }
            }
        } else {
            print!("{}", report.to_text());
        }
        if report.ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    })
}

/// What to check, from the flags and the settings `keel run` would use.
fn target(args: &DoctorArgs, settings: &Settings) -> Target {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let base_url = settings
        .config
        .base_url
        .clone()
        .or_else(|| env("OPENAI_BASE_URL"))
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
    let source = if args.model.is_some() {
        ModelSource::Flag
    } else {
        ModelSource::Settings
    };
    Target {
        base_url: base_url.trim_end_matches('/').to_owned(),
        api_key: env("OPENAI_API_KEY").unwrap_or_default(),
        model: settings.config.models.first().map(|m| (m.clone(), source)),
        configured_window: settings.config.context_window,
        provider: settings.config.provider.clone(),
        timeout: settings
            .config
            .idle_timeout
            .map_or(DEFAULT_TIMEOUT, Duration::from_secs),
    }
}
