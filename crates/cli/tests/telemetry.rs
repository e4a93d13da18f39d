//! `keel run` exporting its turn as OpenTelemetry traces to a collector on loopback, named in
//! keel.toml or by the standard variable; a collector that is down changes nothing else.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use keel_test_support::http_sink::{HttpSink, Received};
use keel_test_support::{repo_root, sample_project};

fn keel_run(root: &Path, env: &[(&str, &str)]) -> Output {
    let script = repo_root().join("examples/scripts/fix-bug.json");
    let config_dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_keel"));
    command
        .args(["run", "--json", "--provider"])
        .arg(format!("scripted:{}", script.display()))
        .arg("--root")
        .arg(root)
        .arg("Fix the failing test")
        .env_remove("KEEL_MODEL")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env("KEEL_CONFIG_DIR", config_dir.path())
        .stdin(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// Every export, once the run has ended: OTLP/HTTP protobuf to `/v1/traces`.
fn exports(sink: &HttpSink) -> Vec<Received> {
    let received = sink.drain(Duration::from_secs(1));
    for r in &received {
        assert_eq!(
            (r.path.as_str(), r.content_type.as_str()),
            ("/v1/traces", "application/x-protobuf")
        );
    }
    received
}

fn contains(exports: &[Received], text: &str) -> bool {
    exports.iter().any(|r| r.contains(text))
}

#[test]
fn keel_toml_names_the_collector_and_the_turn_is_exported() {
    let sink = HttpSink::start();
    let project = sample_project();
    std::fs::write(
        project.path().join("keel.toml"),
        format!("[telemetry]\notlp_endpoint = \"{}\"\n", sink.base),
    )
    .unwrap();
    let out = keel_run(project.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exported = exports(&sink);
    for span in [
        "invoke_agent keel",
        "chat scripted",
        "execute_tool replace_in_file",
    ] {
        assert!(contains(&exported, span), "no `{span}` span exported");
    }
    // No content without capture_content.
    assert!(!contains(&exported, "Fix the failing test"));
}

#[test]
fn the_standard_variable_turns_it_on() {
    let sink = HttpSink::start();
    let project = sample_project();
    let out = keel_run(
        project.path(),
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &sink.base)],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(contains(&exports(&sink), "invoke_agent keel"));
}

#[test]
fn a_collector_that_is_down_only_warns() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let project = sample_project();
    let started = Instant::now();
    let out = keel_run(
        project.path(),
        &[(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            &format!("http://127.0.0.1:{port}"),
        )],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("\"type\":\"agent.end\""));
}
