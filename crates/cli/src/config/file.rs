//! `keel.toml`: the settings a project or a user keeps in a file, and how a file is read.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use keel_engine::agent::{ToolFormat, ToolProfile};
use keel_host::PriceConfig;
pub use keel_host::{ContextConfig, ImagesConfig, split_models};
use keel_protocol::ApprovalPolicy;
use keel_protocol::Mode;
use keel_sandbox::{Fallback, SandboxMode};
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use keel_render::ColorWhen;

/// The name of the settings file, in the project root and in the user's config folder.
pub const CONFIG_FILE: &str = "keel.toml";

/// One `keel.toml`. Every key is optional and mirrors the flag of the same name (with `_`
/// for `-`); an unknown key is an error.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `openai` or `scripted:FILE` (a relative FILE is taken from the working folder).
    pub provider: Option<String>,
    /// A model, or a fallback chain as a list (or a comma-separated string).
    #[serde(default, deserialize_with = "model_list")]
    pub model: Option<Vec<String>>,
    /// Base URL of the OpenAI-compatible API.
    pub base_url: Option<String>,
    /// When commands need approval: never, on-dangerous, always, deny-dangerous.
    #[serde(default, deserialize_with = "from_name")]
    pub approval: Option<ApprovalPolicy>,
    /// auto, direct or plan.
    #[serde(default, deserialize_with = "from_name")]
    pub mode: Option<Mode>,
    /// Most model calls in a turn (at least 1).
    #[serde(default, deserialize_with = "at_least_one")]
    pub max_iterations: Option<u32>,
    /// Retries of a failed model call.
    pub max_retries: Option<u32>,
    /// Seconds without data from the model before the call fails (at least 1).
    #[serde(default, deserialize_with = "at_least_one_u64")]
    pub idle_timeout: Option<u64>,
    /// Ask before executing a plan.
    pub approve_plans: Option<bool>,
    /// `ask`: show every file edit's diff for approval before it applies; `never` (default).
    #[serde(default, deserialize_with = "from_name")]
    pub approval_edits: Option<keel_protocol::EditApproval>,
    /// Stage every change in a shadow workspace until `keel shadow apply`.
    pub shadow: Option<bool>,
    /// native or xml.
    #[serde(default, deserialize_with = "from_name")]
    pub tool_format: Option<ToolFormat>,
    /// auto, full or compact: which tool definitions the model is offered.
    #[serde(default, deserialize_with = "from_name")]
    pub tool_profile: Option<ToolProfile>,
    /// Sampling temperature, 0–2 (default 0).
    #[serde(default, deserialize_with = "temperature")]
    pub temperature: Option<f32>,
    /// Nucleus sampling, above 0 and at most 1 (default: the server's).
    #[serde(default, deserialize_with = "top_p")]
    pub top_p: Option<f32>,
    /// The project's test command, named to the model and run after its changes.
    pub test_command: Option<String>,
    /// Run `test_command` after each answer that changed files (default true).
    pub auto_test: Option<bool>,
    /// How many times a turn whose work failed may start over (at least 1; default 3 with the
    /// compact tool profile and a test command, else 1).
    #[serde(default, deserialize_with = "at_least_one")]
    pub attempts: Option<u32>,
    /// The model's context window in tokens (at least 1); beats the window the server reports
    /// and the built-in table.
    #[serde(default, deserialize_with = "at_least_one_u64")]
    pub context_window: Option<u64>,
    /// auto, always or never.
    #[serde(default, deserialize_with = "color_name")]
    pub color: Option<ColorWhen>,
    /// Show thinking, tool output and model-call detail.
    pub verbose: Option<bool>,
    /// Put the system prompt into every `run.llm.start` event (also on with `verbose`).
    pub include_system_prompt: Option<bool>,
    /// Instruction files read besides `AGENTS.md` (e.g. `["CLAUDE.md"]`), looked up in the
    /// user's config folder, the project root and the folders of the files a turn touches:
    /// relative paths that stay inside the folder they are looked up in.
    #[serde(default, deserialize_with = "keel_host::instruction_files")]
    pub instructions_files: Option<Vec<String>>,
    /// `[memory]`: project memory settings.
    pub memory: Option<MemoryConfig>,
    /// `[telemetry]`: OpenTelemetry export.
    pub telemetry: Option<TelemetrySection>,
    /// `[context]`: what the prompt carries as background.
    pub context: Option<ContextConfig>,
    /// `[images]`: where `generate_image` gets images.
    pub images: Option<ImagesConfig>,
    /// `[pricing.MODEL]`: a model's price, over the built-in table (`[pricing."gpt-4.1"]` for a
    /// name with a dot).
    #[serde(default)]
    pub pricing: BTreeMap<String, PriceConfig>,
    /// The OS sandbox for commands: read-only, workspace-write (default) or off.
    #[serde(default, deserialize_with = "from_name")]
    pub sandbox: Option<SandboxMode>,
    /// Whether sandboxed commands may use the network (default false).
    pub network: Option<bool>,
    /// Extra paths sandboxed commands may write under (relative ones: to the project root).
    pub writable_roots: Option<Vec<PathBuf>>,
    /// When the sandbox mode cannot be enforced here: refuse (default) or warn.
    #[serde(default, deserialize_with = "from_name")]
    pub sandbox_fallback: Option<Fallback>,
    /// Most megabytes `.keel/checkpoints/` may hold (at least 1; default 512): past it the
    /// oldest checkpoints are pruned.
    #[serde(default, deserialize_with = "at_least_one_u64")]
    pub checkpoint_max_mb: Option<u64>,
    /// `[mcp_servers.NAME]`: MCP tool servers started with each session.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, keel_mcp::ServerConfig>,
    /// `[rag]`: the embeddings endpoint `use_rag_tool` and `keel search` fuse with BM25.
    pub rag: Option<keel_index::RagSection>,
    /// `[rag_servers.NAME]`: other folders `use_rag_tool` can search.
    #[serde(default)]
    pub rag_servers: BTreeMap<String, keel_index::RagServer>,
}

/// `[memory]` in `keel.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryConfig {
    /// Make the end-of-session call that distils decisions into `.keel/memory.json` (default
    /// true).
    pub distill: Option<bool>,
}

/// `[telemetry]` in `keel.toml`: traces over OTLP/HTTP (off unless an endpoint is named here or
/// in `OTEL_EXPORTER_OTLP_ENDPOINT`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySection {
    /// The collector's base URL (`http://localhost:4318`).
    pub otlp_endpoint: Option<String>,
    /// Record prompts, answers, tool arguments and results on the spans (default false).
    pub capture_content: Option<bool>,
}

/// A `keel.toml` that cannot be used.
#[derive(Debug)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML, or a key is unknown or has the wrong type or value.
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line the problem is on (1-based), when known.
        line: Option<usize>,
        /// That line's text (it names the key).
        text: Option<String>,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            ConfigError::Invalid {
                path,
                line,
                text,
                message,
            } => {
                write!(f, "invalid settings file {}", path.display())?;
                if let Some(line) = line {
                    write!(f, ", line {line}")?;
                }
                write!(f, ": {message}")?;
                if let Some(text) = text {
                    write!(f, "\n  | {text}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl FileConfig {
    /// Reads `path`; a missing file is an empty configuration.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// Parses the text of `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let (line, line_text) = match e.span() {
                Some(span) => {
                    let start = span.start.min(text.len());
                    let line = text[..start].matches('\n').count() + 1;
                    let line_text = text.lines().nth(line - 1).map(|l| l.trim().to_owned());
                    (Some(line), line_text)
                }
                None => (None, None),
            };
            ConfigError::Invalid {
                path: path.to_owned(),
                line,
                text: line_text.filter(|t| !t.is_empty()),
                message: e.message().trim().to_owned(),
            }
        })
    }
}

/// Parses a value by its name with `FromStr` (the names the flags accept).
fn from_name<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    let name = String::deserialize(deserializer)?;
    name.parse::<T>().map(Some).map_err(de::Error::custom)
}

fn color_name<'de, D>(deserializer: D) -> Result<Option<ColorWhen>, D::Error>
where
    D: Deserializer<'de>,
{
    let name = String::deserialize(deserializer)?;
    <ColorWhen as clap::ValueEnum>::from_str(&name, true)
        .map(Some)
        .map_err(|_| {
            de::Error::custom(format!(
                "unknown colour setting `{name}` (expected auto, always or never)"
            ))
        })
}

fn temperature<'de, D>(deserializer: D) -> Result<Option<f32>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = f32::deserialize(deserializer)?;
    keel_engine::Sampling::temperature(value)
        .map(Some)
        .map_err(de::Error::custom)
}

fn top_p<'de, D>(deserializer: D) -> Result<Option<f32>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = f32::deserialize(deserializer)?;
    keel_engine::Sampling::top_p(value)
        .map(Some)
        .map_err(de::Error::custom)
}

fn at_least_one<'de, D>(deserializer: D) -> Result<Option<u32>, D::Error>
where
    D: Deserializer<'de>,
{
    match u32::deserialize(deserializer)? {
        0 => Err(de::Error::custom("must be at least 1")),
        n => Ok(Some(n)),
    }
}

fn at_least_one_u64<'de, D>(deserializer: D) -> Result<Option<u64>, D::Error>
where
    D: Deserializer<'de>,
{
    match u64::deserialize(deserializer)? {
        0 => Err(de::Error::custom("must be at least 1")),
        n => Ok(Some(n)),
    }
}

/// `model = "a"`, `model = "a,b"` or `model = ["a", "b"]`.
fn model_list<'de, D>(deserializer: D) -> Result<Option<Vec<String>>, D::Error>
where
    D: Deserializer<'de>,
{
    struct Models;

    impl<'de> Visitor<'de> for Models {
        type Value = Vec<String>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a model name or a list of model names")
        }

        fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
            Ok(split_models(value))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut models = Vec::new();
            while let Some(model) = seq.next_element::<String>()? {
                models.extend(split_models(&model));
            }
            Ok(models)
        }
    }

    let models = deserializer.deserialize_any(Models)?;
    if models.is_empty() {
        return Err(de::Error::custom("names no model"));
    }
    Ok(Some(models))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FileConfig, ConfigError> {
        FileConfig::parse(Path::new("/p/keel.toml"), text)
    }

    #[test]
    fn every_key_parses() {
        let config = parse(
            r#"
provider = "openai"
model = ["gpt-4o", "gpt-4o-mini"]
base_url = "http://localhost:8080/v1"
approval = "always"
mode = "plan"
max_iterations = 7
max_retries = 1
idle_timeout = 30
approve_plans = true
tool_format = "xml"
context_window = 32768
color = "never"
verbose = true
include_system_prompt = true
instructions_files = ["CLAUDE.md", "docs/RULES.md"]
sandbox = "read-only"
network = true
writable_roots = ["../shared", "/var/cache/build"]
sandbox_fallback = "warn"
checkpoint_max_mb = 64
tool_profile = "compact"
temperature = 0.2
top_p = 0.9
test_command = "python3 -m pytest -q"
auto_test = false
attempts = 2

[memory]
distill = false
[telemetry]
otlp_endpoint = "http://localhost:4318"
capture_content = true

[context]
libraries = ["tokio", "serde"]

[images]
base_url = "http://localhost:9000/v1"
model = "gpt-image-1"

[pricing."gpt-4.1"]
input = 2
cached_input = 0.5
output = 8.0

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "$GITHUB_TOKEN" }
cwd = "."
startup_timeout_secs = 20
tool_timeout_secs = 120
enabled = true
enabled_tools = ["*"]
approval = "on-dangerous"
tool_approval = { create_issue = "always" }
[rag]
embeddings_base_url = "http://localhost:11434/v1"
embeddings_model = "nomic-embed-text"
[rag_servers.docs]
path = "../docs"
"#,
        )
        .unwrap();
        assert_eq!(
            config,
            FileConfig {
                provider: Some("openai".into()),
                model: Some(vec!["gpt-4o".into(), "gpt-4o-mini".into()]),
                base_url: Some("http://localhost:8080/v1".into()),
                approval: Some(ApprovalPolicy::Always),
                mode: Some(Mode::Plan),
                max_iterations: Some(7),
                max_retries: Some(1),
                idle_timeout: Some(30),
                approve_plans: Some(true),
                approval_edits: None,
                shadow: None,
                tool_format: Some(ToolFormat::Xml),
                tool_profile: Some(ToolProfile::Compact),
                temperature: Some(0.2),
                top_p: Some(0.9),
                test_command: Some("python3 -m pytest -q".into()),
                auto_test: Some(false),
                attempts: Some(2),
                context_window: Some(32768),
                color: Some(ColorWhen::Never),
                verbose: Some(true),
                include_system_prompt: Some(true),
                instructions_files: Some(vec!["CLAUDE.md".into(), "docs/RULES.md".into()]),
                memory: Some(MemoryConfig {
                    distill: Some(false)
                }),
                telemetry: Some(TelemetrySection {
                    otlp_endpoint: Some("http://localhost:4318".into()),
                    capture_content: Some(true),
                }),
                context: Some(ContextConfig {
                    libraries: Some(vec!["tokio".into(), "serde".into()]),
                    max_messages: None,
                }),
                images: Some(ImagesConfig {
                    base_url: Some("http://localhost:9000/v1".into()),
                    model: Some("gpt-image-1".into()),
                }),
                pricing: [(
                    "gpt-4.1".to_owned(),
                    PriceConfig {
                        input: 2.0,
                        cached_input: Some(0.5),
                        output: 8.0
                    }
                )]
                .into(),
                sandbox: Some(SandboxMode::ReadOnly),
                network: Some(true),
                writable_roots: Some(vec!["../shared".into(), "/var/cache/build".into()]),
                sandbox_fallback: Some(Fallback::Warn),
                checkpoint_max_mb: Some(64),
                mcp_servers: [(
                    "github".to_owned(),
                    keel_mcp::ServerConfig {
                        command: Some("npx".into()),
                        args: vec!["-y".into(), "@modelcontextprotocol/server-github".into()],
                        env: [("GITHUB_TOKEN".to_owned(), "$GITHUB_TOKEN".to_owned())].into(),
                        cwd: Some(".".into()),
                        startup_timeout_secs: Some(20),
                        tool_timeout_secs: Some(120),
                        enabled: Some(true),
                        enabled_tools: Some(vec!["*".into()]),
                        approval: Some(keel_mcp::ServerApproval::OnDangerous),
                        tool_approval: [(
                            "create_issue".to_owned(),
                            keel_mcp::ServerApproval::Always
                        )]
                        .into(),
                        ..Default::default()
                    }
                )]
                .into(),
                rag: Some(keel_index::RagSection {
                    embeddings_base_url: Some("http://localhost:11434/v1".into()),
                    embeddings_model: Some("nomic-embed-text".into()),
                    embeddings_api_key_env: None,
                }),
                rag_servers: [(
                    "docs".to_owned(),
                    keel_index::RagServer::Folder {
                        path: "../docs".into()
                    }
                )]
                .into(),
            }
        );
    }

    #[test]
    fn bad_sandbox_values_name_the_key() {
        let err = parse("sandbox = \"strict\"").unwrap_err().to_string();
        assert!(err.contains("unknown sandbox mode `strict`"), "{err}");
        let err = parse("sandbox_fallback = \"maybe\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("expected refuse or warn"), "{err}");
        let err = parse("network = \"yes\"").unwrap_err().to_string();
        assert!(err.contains("network"), "{err}");
    }

    #[test]
    fn sampling_and_profile_values_are_checked() {
        for (text, expected) in [
            (
                "temperature = 2.5",
                "temperature must be between 0 and 2 (got 2.5)",
            ),
            ("temperature = -1", "temperature must be between 0 and 2"),
            (
                "top_p = 0",
                "top_p must be greater than 0 and at most 1 (got 0)",
            ),
            ("top_p = 1.5", "top_p must be greater than 0"),
            (
                "tool_profile = \"tiny\"",
                "unknown tool profile `tiny` (expected auto, full or compact)",
            ),
            ("temperature = \"low\"", "temperature"),
        ] {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains("/p/keel.toml, line 1"), "{text}: {err}");
            assert!(err.contains(expected), "{text}: {err}");
        }
        let config = parse("temperature = 0\ntop_p = 1").unwrap();
        assert_eq!((config.temperature, config.top_p), (Some(0.0), Some(1.0)));
    }

    #[test]
    fn library_names_are_checked() {
        for bad in ["'  '", "'../x'", "'a b'"] {
            let err = parse(&format!("[context]\nlibraries = [{bad}]"))
                .unwrap_err()
                .to_string();
            assert!(err.contains("is not a library name"), "{bad}: {err}");
            assert!(err.contains("line 2"), "{bad}: {err}");
        }
    }

    #[test]
    fn instruction_files_stay_inside_their_folder() {
        for bad in [
            "'../CLAUDE.md'",
            "'/etc/AGENTS.md'",
            "'  '",
            "'a/../../b.md'",
        ] {
            let err = parse(&format!("instructions_files = [{bad}]"))
                .unwrap_err()
                .to_string();
            assert!(err.contains("is not a file name"), "{bad}: {err}");
            assert!(err.contains("/p/keel.toml, line 1"), "{bad}: {err}");
        }
        let err = parse("instructions_files = 'CLAUDE.md'")
            .unwrap_err()
            .to_string();
        assert!(err.contains("instructions_files"), "{err}");
        assert!(err.contains("expected a sequence"), "{err}");
    }

    #[test]
    fn a_model_string_may_be_a_chain() {
        let config = parse("model = 'a, b'").unwrap();
        assert_eq!(config.model, Some(vec!["a".to_owned(), "b".to_owned()]));
    }

    #[test]
    fn an_unknown_key_names_the_file_and_the_key() {
        let err = parse("mode = \"direct\"\nmodle = \"gpt-4o\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("/p/keel.toml, line 2"), "{err}");
        assert!(err.contains("unknown field `modle`"), "{err}");
    }

    #[test]
    fn a_wrong_type_names_the_key() {
        let err = parse("max_iterations = \"ten\"").unwrap_err().to_string();
        assert!(err.contains("/p/keel.toml, line 1"), "{err}");
        assert!(err.contains("max_iterations = \"ten\""), "{err}");
    }

    #[test]
    fn approval_edits_takes_ask_or_never() {
        assert_eq!(
            parse("approval_edits = \"ask\"").unwrap().approval_edits,
            Some(keel_protocol::EditApproval::Ask)
        );
        assert_eq!(
            parse("approval_edits = \"never\"").unwrap().approval_edits,
            Some(keel_protocol::EditApproval::Never)
        );
        let err = parse("approval_edits = \"maybe\"").unwrap_err().to_string();
        assert!(err.contains("/p/keel.toml, line 1"), "{err}");
        assert!(err.contains("ask or never"), "{err}");
    }

    #[test]
    fn a_bad_name_says_what_is_expected() {
        let err = parse("approval = \"sometimes\"").unwrap_err().to_string();
        assert!(err.contains("approval = \"sometimes\""), "{err}");
        assert!(err.contains("on-dangerous"), "{err}");
        let err = parse("tool_format = \"json\"").unwrap_err().to_string();
        assert!(err.contains("native or xml"), "{err}");
        let err = parse("max_iterations = 0").unwrap_err().to_string();
        assert!(err.contains("at least 1"), "{err}");
    }

    #[test]
    fn bad_prices_and_memory_keys_name_the_line() {
        let err = parse("[pricing.gpt-4o]\ninput = -1\noutput = 10")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 2") && err.contains("0 or more"), "{err}");
        let err = parse("[pricing.gpt-4o]\ninput = 1\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing field `output`"), "{err}");
        let err = parse("[pricing.gpt-4o]\ninput = 1\noutput = 2\ncached = 1")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `cached`"), "{err}");
        let err = parse("[memory]\ndistil = false").unwrap_err().to_string();
        assert!(err.contains("unknown field `distil`"), "{err}");
    }

    #[test]
    fn a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let config = FileConfig::load(&dir.path().join(CONFIG_FILE)).unwrap();
        assert_eq!(config, FileConfig::default());
    }
}
