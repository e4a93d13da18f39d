//! A loopback HTTP server that answers every request `200` and hands each one over: a stand-in
//! for a collector (OTLP traces) or a webhook, read by tests after the code under test posted.

// Test support: a machine without a free loopback port cannot run the test anyway.
#![allow(clippy::expect_used)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

/// One request received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    /// The request's method.
    pub method: String,
    /// The request's path.
    pub path: String,
    /// Its `Content-Type`, lower-cased (empty when none).
    pub content_type: String,
    /// Its body.
    pub body: Vec<u8>,
}

impl Received {
    /// Whether the body holds `text` (protobuf keeps strings as they are).
    pub fn contains(&self, text: &str) -> bool {
        self.body.windows(text.len()).any(|w| w == text.as_bytes())
    }
}

/// The server; it runs on its own thread until the process ends.
#[derive(Debug)]
pub struct HttpSink {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    rx: mpsc::Receiver<Received>,
}

impl HttpSink {
    /// Starts listening on a free port.
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        let base = format!("http://{}", listener.local_addr().expect("its address"));
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                if let Some(received) = answer(stream) {
                    let _ = tx.send(received);
                }
            }
        });
        Self { base, rx }
    }

    /// Every request received until none came for `quiet`.
    pub fn drain(&self, quiet: Duration) -> Vec<Received> {
        let mut out = Vec::new();
        while let Ok(received) = self.rx.recv_timeout(quiet) {
            out.push(received);
        }
        out
    }
}

/// Reads one request from `stream` and answers it `200`.
fn answer(mut stream: std::net::TcpStream) -> Option<Received> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    let mut words = request_line.split_whitespace();
    let method = words.next().unwrap_or("").to_owned();
    let path = words.next().unwrap_or("").to_owned();
    let (mut length, mut content_type) = (0usize, String::new());
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        if line.trim().is_empty() {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if let Some(value) = lower.strip_prefix("content-type:") {
            content_type = value.trim().to_owned();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    stream
        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        .ok()?;
    Some(Received {
        method,
        path,
        content_type,
        body,
    })
}
