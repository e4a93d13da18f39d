//! Keel's OpenTelemetry export: a session's events as traces following the OpenTelemetry GenAI
//! semantic conventions, sent over OTLP/HTTP (protobuf) in batches from a background thread, so
//! exporting never holds up a turn.
//!
//! [`Telemetry::start`] builds the exporter from a [`TelemetryConfig`] (`[telemetry]` in
//! keel.toml, or the standard `OTEL_EXPORTER_OTLP_*` variables); [`Telemetry::spans`] gives an
//! [`EventHandler`](keel_events::EventHandler) for one session's bus that turns each turn into
//! an `invoke_agent keel` span, each model call into a `chat MODEL` span and each tool call into
//! an `execute_tool TOOL` span under it. Prompts, answers, tool arguments and results are
//! recorded only with [`TelemetryConfig::capture_content`].

mod config;
mod spans;

pub use config::{TelemetryConfig, TelemetryError};
pub use spans::GenAiSpans;

use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// How long [`Telemetry::shutdown`] waits for the last batch.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// The process's trace exporter.
#[derive(Debug, Clone)]
pub struct Telemetry {
    provider: SdkTracerProvider,
    capture_content: bool,
}

impl Telemetry {
    /// The exporter `config` describes, or `None` when telemetry is off (no endpoint in the
    /// settings or the environment). A bad endpoint or header is an error.
    pub fn start(config: &TelemetryConfig) -> Result<Option<Self>, TelemetryError> {
        let Some(endpoint) = config.traces_endpoint() else {
            return Ok(None);
        };
        let mut builder = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
            .with_timeout(Duration::from_secs(10));
        if let Some(endpoint) = endpoint.explicit() {
            builder = builder.with_endpoint(endpoint);
        }
        if !config.headers.is_empty() {
            builder = builder.with_headers(config.headers.clone());
        }
        let exporter = builder
            .build()
            .map_err(|e| TelemetryError::Exporter(e.to_string()))?;
        let resource = Resource::builder()
            .with_service_name(config.service_name.clone())
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource)
            .build();
        Ok(Some(Self {
            provider,
            capture_content: config.capture_content,
        }))
    }

    /// A handler turning one session's events into spans (put it on the session's bus).
    pub fn spans(&self) -> GenAiSpans {
        GenAiSpans::new(self.provider.tracer("keel"), self.capture_content)
    }

    /// Sends what is batched now (spans already ended).
    pub fn flush(&self) -> Result<(), TelemetryError> {
        self.provider
            .force_flush()
            .map_err(|e| TelemetryError::Export(e.to_string()))
    }

    /// Sends what is left and stops the exporter, waiting at most a few seconds.
    pub fn shutdown(&self) -> Result<(), TelemetryError> {
        self.provider
            .shutdown_with_timeout(SHUTDOWN_WAIT)
            .map_err(|e| TelemetryError::Export(e.to_string()))
    }
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
