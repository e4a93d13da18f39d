//! Where traces go: `[telemetry]` in keel.toml, else the standard OTLP environment variables.

use std::collections::HashMap;

/// The standard variables the exporter also reads.
const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
const TRACES_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
const SERVICE_NAME_VAR: &str = "OTEL_SERVICE_NAME";

/// The telemetry settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelemetryConfig {
    /// `[telemetry] otlp_endpoint`: the collector's base URL (`http://localhost:4318`; traces
    /// go to `/v1/traces` under it), or a full `…/v1/traces` URL. Without it,
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` turn telemetry on.
    pub otlp_endpoint: Option<String>,
    /// `[telemetry] capture_content`: record prompts, answers, tool arguments and results on
    /// the spans (off: only names, models, token counts, statuses, durations).
    pub capture_content: bool,
    /// `service.name` (`OTEL_SERVICE_NAME`, else `keel`).
    pub service_name: String,
    /// Extra headers (`[telemetry.headers]`; `OTEL_EXPORTER_OTLP_HEADERS` is read as well).
    pub headers: HashMap<String, String>,
    /// Whether the environment names an endpoint (read once, by [`TelemetryConfig::new`]).
    env_endpoint: bool,
}

/// Where the exporter sends traces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TracesEndpoint {
    /// A URL from the settings.
    Explicit(String),
    /// The environment's, which the exporter reads itself.
    FromEnvironment,
}

impl TracesEndpoint {
    pub(crate) fn explicit(&self) -> Option<&str> {
        match self {
            Self::Explicit(url) => Some(url),
            Self::FromEnvironment => None,
        }
    }
}

impl TelemetryConfig {
    /// Settings from keel.toml's values and this process's environment.
    pub fn new(otlp_endpoint: Option<String>, capture_content: bool) -> Self {
        Self::with_env(otlp_endpoint, capture_content, |name| {
            std::env::var(name).ok()
        })
    }

    /// [`TelemetryConfig::new`] reading variables through `var`.
    pub fn with_env(
        otlp_endpoint: Option<String>,
        capture_content: bool,
        var: impl Fn(&str) -> Option<String>,
    ) -> Self {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        Self {
            otlp_endpoint: otlp_endpoint.filter(|e| !e.trim().is_empty()),
            capture_content,
            service_name: set(SERVICE_NAME_VAR).unwrap_or_else(|| "keel".to_owned()),
            headers: HashMap::new(),
            env_endpoint: set(TRACES_ENDPOINT_VAR).is_some() || set(ENDPOINT_VAR).is_some(),
        }
    }

    /// Off: no endpoint anywhere.
    pub fn off() -> Self {
        Self::with_env(None, false, |_| None)
    }

    /// Whether traces are exported.
    pub fn enabled(&self) -> bool {
        self.traces_endpoint().is_some()
    }

    pub(crate) fn traces_endpoint(&self) -> Option<TracesEndpoint> {
        match &self.otlp_endpoint {
            Some(base) => Some(TracesEndpoint::Explicit(traces_url(base))),
            None if self.env_endpoint => Some(TracesEndpoint::FromEnvironment),
            None => None,
        }
    }
}

/// The traces URL of a collector's base URL (`…/v1/traces` added unless it is there).
fn traces_url(base: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    if base.ends_with("/v1/traces") {
        base.to_owned()
    } else {
        format!("{base}/v1/traces")
    }
}

/// What can go wrong exporting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TelemetryError {
    /// The exporter could not be built (a bad endpoint URL or header).
    #[error("the OTLP exporter cannot be set up: {0}")]
    Exporter(String),
    /// Spans could not be sent or the exporter not stopped.
    #[error("traces could not be exported: {0}")]
    Export(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn off_unless_an_endpoint_is_named() {
        assert!(!TelemetryConfig::with_env(None, false, env(&[])).enabled());
        assert!(!TelemetryConfig::with_env(Some(" ".into()), false, env(&[])).enabled());
        let from_env =
            TelemetryConfig::with_env(None, false, env(&[(ENDPOINT_VAR, "http://c:4318")]));
        assert_eq!(
            from_env.traces_endpoint(),
            Some(TracesEndpoint::FromEnvironment)
        );
    }

    #[test]
    fn a_base_url_gets_the_traces_path_once() {
        let config = TelemetryConfig::with_env(Some("http://c:4318/".into()), false, env(&[]));
        assert_eq!(
            config.traces_endpoint(),
            Some(TracesEndpoint::Explicit("http://c:4318/v1/traces".into()))
        );
        assert_eq!(
            traces_url("http://c:4318/v1/traces"),
            "http://c:4318/v1/traces"
        );
        let named = TelemetryConfig::with_env(None, false, env(&[(SERVICE_NAME_VAR, "ci")]));
        assert_eq!(named.service_name, "ci");
    }
}
