//! The binary's log output: with `--log-format json` every stderr line is a JSON object, the
//! start-up notices among them, and a request is logged inside its span.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The next stderr line, parsed; fails the test on a line that is not a JSON log record.
fn next_record(lines: &mpsc::Receiver<String>) -> Value {
    let line = lines
        .recv_timeout(Duration::from_secs(60))
        .expect("the server logged nothing more");
    let record: Value =
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON log line ({e}): {line}"));
    for key in ["timestamp", "level", "target", "fields"] {
        assert!(record.get(key).is_some(), "no `{key}` in {line}");
    }
    record
}

fn message(record: &Value) -> &str {
    record["fields"]["message"].as_str().unwrap_or_default()
}

#[test]
fn json_log_format_writes_one_json_object_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_keel-server"))
        .args(["--addr", "127.0.0.1:0", "--token", "log-token"])
        .args(["--log-format", "json", "--repo-map", "false"])
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("--allow-root")
        .arg(dir.path())
        .env("RUST_LOG", "warn,keel_server=debug")
        .env_remove("KEEL_SERVER_CONFIG")
        .env_remove("KEEL_SERVER_LOG_FORMAT")
        .env_remove("KEEL_DATABASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let _running = Running(child);
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });

    let addr = loop {
        let record = next_record(&lines);
        if let Some(url) = message(&record).strip_prefix("keel-server listening on http://") {
            assert_eq!(record["level"], "INFO");
            assert_eq!(record["target"], "keel_server");
            break url.to_owned();
        }
    };

    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .write_all(b"GET /healthz?token=secret HTTP/1.1\r\nHost: keel\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");

    let answered = loop {
        let record = next_record(&lines);
        if message(&record) == "answered" {
            break record;
        }
    };
    assert_eq!(answered["level"], "DEBUG");
    assert_eq!(answered["fields"]["status"], 200);
    assert_eq!(answered["span"]["name"], "request");
    assert_eq!(answered["span"]["method"], "GET");
    assert_eq!(
        answered["span"]["path"], "/healthz",
        "the query (which may carry a stream token) is not logged"
    );
}
