//! Reading one keel.toml: every key, checked values, and errors naming file, line and key.

use std::path::Path;

use keel_config::{
    CONFIG_FILE, Color, ConfigError, ContextConfig, FileConfig, GitConfig, ImagesConfig,
    MemoryConfig, PriceConfig, SubagentsConfig, TelemetryConfig,
};
use keel_engine::agent::{ToolFormat, ToolProfile};
use keel_protocol::{ApprovalPolicy, Mode};
use keel_sandbox::{Fallback, SandboxMode};
fn parse(text: &str) -> Result<FileConfig, ConfigError> {
    keel_config::parse(Path::new("/p/keel.toml"), text).map(|p| p.config)
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
vision = true
repo_map = false
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
[git]
commit = "turn"
[subagents]
max_parallel = 2
max_depth = 1
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
[lsp.python]
command = ["basedpyright-langserver", "--stdio"]
wait_ms = 800
[lsp.rust]
enabled = false
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
            vision: Some(true),
            repo_map: Some(false),
            color: Some(Color::Never),
            verbose: Some(true),
            include_system_prompt: Some(true),
            instructions_files: Some(vec!["CLAUDE.md".into(), "docs/RULES.md".into()]),
            memory: Some(MemoryConfig {
                distill: Some(false)
            }),
            git: Some(GitConfig {
                commit: Some(keel_host::git::CommitWhen::Turn)
            }),
            subagents: Some(SubagentsConfig {
                max_parallel: Some(2),
                max_depth: Some(1),
            }),
            hooks: None,
            telemetry: Some(TelemetryConfig {
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
                    tool_approval: [("create_issue".to_owned(), keel_mcp::ServerApproval::Always)]
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
            lsp: Some(keel_lsp::LspTables {
                python: Some(keel_lsp::ServerConfig {
                    command: Some(vec!["basedpyright-langserver".into(), "--stdio".into()]),
                    wait_ms: Some(800),
                    ..Default::default()
                }),
                rust: Some(keel_lsp::ServerConfig {
                    enabled: Some(false),
                    ..Default::default()
                }),
                ..Default::default()
            }),
        }
    );
}

#[test]
fn lsp_tables_name_unknown_languages_and_keys_with_their_line() {
    let err = parse("[lsp.cobol]\ncommand = ['x']\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("unknown key `lsp.cobol` in /p/keel.toml line 1"),
        "{err}"
    );
    let err = parse("[lsp.python]\ncomand = ['x']\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "unknown key `lsp.python.comand` in /p/keel.toml line 2: did you mean `lsp.python.command`?"
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
    assert_eq!(
        err,
        "unknown key `modle` in /p/keel.toml line 2: did you mean `model`?"
    );
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
    assert_eq!(
        err,
        "unknown key `pricing.gpt-4o.cached` in /p/keel.toml line 4: did you mean `pricing.gpt-4o.cached_input`?"
    );
    let err = parse("[git]\ncommit = \"always\"").unwrap_err().to_string();
    assert!(
        err.contains("line 2")
            && err.contains("unknown commit setting `always` (expected turn or off)"),
        "{err}"
    );
    let err = parse("[git]\ncommits = \"turn\"").unwrap_err().to_string();
    assert_eq!(
        err,
        "unknown key `git.commits` in /p/keel.toml line 2: did you mean `git.commit`?"
    );
    let err = parse("[memory]\ndistil = false").unwrap_err().to_string();
    assert_eq!(
        err,
        "unknown key `memory.distil` in /p/keel.toml line 2: did you mean `memory.distill`?"
    );
}

#[test]
fn a_missing_file_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let parsed = keel_config::read(&dir.path().join(CONFIG_FILE)).unwrap();
    assert_eq!(parsed.config, FileConfig::default());
}

#[test]
fn unknown_keys_in_nested_tables_and_far_from_any_key() {
    let err = parse("[mcp_servers.gh]\ncomand = 'npx'\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "unknown key `mcp_servers.gh.comand` in /p/keel.toml line 2: did you mean `mcp_servers.gh.command`?"
    );
    let err = parse("\n\nzzz = 1\n").unwrap_err().to_string();
    assert_eq!(err, "unknown key `zzz` in /p/keel.toml line 3");
    let err = parse("[rag]\nembedding_model = 'x'\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with("line 2: did you mean `rag.embeddings_model`?"),
        "{err}"
    );
    let err = parse("[profiles.fast]\nmodel = 'a'\nmax_iteration = 3\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "unknown key `profiles.fast.max_iteration` in /p/keel.toml line 3: did you mean `profiles.fast.max_iterations`?"
    );
}

#[test]
fn profiles_are_read_apart_from_the_top_level() {
    let parsed = keel_config::parse(
        Path::new("/p/keel.toml"),
        "model = 'big'\n[profiles.fast]\nmodel = 'small'\nmax_iterations = 5\n[profiles.fast.memory]\ndistill = false\n",
    )
    .unwrap();
    assert_eq!(parsed.config.model, Some(vec!["big".to_owned()]));
    let fast = &parsed.profiles["fast"];
    assert_eq!(fast.model, Some(vec!["small".to_owned()]));
    assert_eq!(fast.max_iterations, Some(5));
    assert_eq!(fast.memory.as_ref().and_then(|m| m.distill), Some(false));
    let err = parse("[profiles.fast]\nmax_iterations = 0\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("/p/keel.toml, line 2") && err.contains("at least 1"),
        "{err}"
    );
    let err = parse("profiles = 3\n").unwrap_err().to_string();
    assert!(err.contains("[profiles.NAME]"), "{err}");
}

#[test]
fn the_provider_table_is_the_server_files_only() {
    let err = parse("[provider]\nmodel = 'x'\n").unwrap_err().to_string();
    assert!(err.contains("/p/keel.toml, line 1"), "{err}");
}

#[test]
fn subagent_settings_are_read_checked_and_carried_to_the_engine() {
    let err = parse("[subagents]\nmax_parallel = 0\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("/p/keel.toml, line 2") && err.contains("at least 1"),
        "{err}"
    );
    let err = parse("[subagents]\nmax_dept = 1\n")
        .unwrap_err()
        .to_string();
    assert!(err.contains("max_depth"), "{err}");
    let settings = keel_config::Settings::default();
    assert_eq!(settings.subagents, keel_engine::SubagentSettings::default());
}
