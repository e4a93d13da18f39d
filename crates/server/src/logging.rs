//! The server's log output: `tracing` events as text or JSON lines on stderr, filtered by
//! `RUST_LOG` (default: info for Keel's crates, warn for the rest).

use serde::Deserialize;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The filter when `RUST_LOG` is unset: Keel's crates (`keel_*`) at info, the rest at warn.
pub const DEFAULT_FILTER: &str = "warn,keel=info";

/// How log lines are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One human-readable line per event.
    #[default]
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `fields`, `span`, `spans`.
    Json,
}

/// The log subscriber could not be installed.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up logging: {0}")]
pub struct LoggingError(String);

/// Installs the process-wide subscriber writing `format` lines to stderr. Fails when `RUST_LOG`
/// is not a valid filter or a subscriber is already installed.
pub fn init(format: LogFormat) -> Result<(), LoggingError> {
    let filter = filter_from_env()?;
    // Also forwards the `log` records of dependencies that do not use `tracing`.
    subscriber(format, filter, std::io::stderr)
        .try_init()
        .map_err(|e| LoggingError(e.to_string()))
}

/// `RUST_LOG` when set, else [`DEFAULT_FILTER`].
fn filter_from_env() -> Result<EnvFilter, LoggingError> {
    match std::env::var(EnvFilter::DEFAULT_ENV) {
        Ok(directives) if !directives.trim().is_empty() => EnvFilter::try_new(&directives)
            .map_err(|e| LoggingError(format!("RUST_LOG `{directives}`: {e}"))),
        _ => Ok(EnvFilter::new(DEFAULT_FILTER)),
    }
}

/// A subscriber writing `format` lines that pass `filter` to `writer`.
pub fn subscriber<W>(
    format: LogFormat,
    filter: EnvFilter,
    writer: W,
) -> Box<dyn tracing::Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    match format {
        LogFormat::Text => Box::new(builder.with_ansi(stderr_is_terminal()).finish()),
        LogFormat::Json => Box::new(builder.json().with_current_span(true).finish()),
    }
}

fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A writer into a shared buffer.
    #[derive(Debug, Clone, Default)]
    struct SharedBuffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl SharedBuffer {
        /// What was written so far, as text.
        fn contents(&self) -> String {
            let bytes = match self.0.lock() {
                Ok(bytes) => bytes.clone(),
                Err(poisoned) => poisoned.into_inner().clone(),
            };
            String::from_utf8_lossy(&bytes).into_owned()
        }
    }

    impl Write for SharedBuffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            match self.0.lock() {
                Ok(mut bytes) => bytes.extend_from_slice(buf),
                Err(poisoned) => poisoned.into_inner().extend_from_slice(buf),
            }
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'w> MakeWriter<'w> for SharedBuffer {
        type Writer = Self;

        fn make_writer(&'w self) -> Self::Writer {
            self.clone()
        }
    }

    fn log_one_event(format: LogFormat, filter: &str) -> String {
        let buffer = SharedBuffer::default();
        let subscriber = subscriber(format, EnvFilter::new(filter), buffer.clone());
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!(target: "keel_server::test", "request", path = "/v1/x");
            let _entered = span.enter();
            tracing::info!(target: "keel_server::test", status = 200, "request done");
            tracing::info!(target: "hyper::proto", "not ours");
        });
        buffer.contents()
    }

    #[test]
    fn json_lines_are_json_objects_with_level_fields_and_span() {
        let output = log_one_event(LogFormat::Json, DEFAULT_FILTER);
        let lines: Vec<&str> = output.lines().collect();
        assert_eq!(lines.len(), 1, "{output}");
        let line: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(line["level"], "INFO");
        assert_eq!(line["target"], "keel_server::test");
        assert_eq!(line["fields"]["message"], "request done");
        assert_eq!(line["fields"]["status"], 200);
        assert_eq!(line["span"]["path"], "/v1/x");
    }

    #[test]
    fn text_lines_carry_the_message_and_the_default_filter_drops_other_crates_info() {
        let output = log_one_event(LogFormat::Text, DEFAULT_FILTER);
        assert!(output.contains("request done"), "{output}");
        assert!(output.contains("status=200"), "{output}");
        assert!(!output.contains("not ours"), "{output}");
        assert!(serde_json::from_str::<serde_json::Value>(output.trim()).is_err());
    }
}
