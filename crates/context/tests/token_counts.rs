//! Token counts on real text: the chunked counter agrees exactly with tiktoken on the
//! workspace's own sources, and per-model encodings differ where they should.

use std::path::{Path, PathBuf};

use keel_context::{Encoding, TokenCounter};

fn rust_sources() -> String {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    collect(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    files.sort();
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect()
}

#[test]
fn chunked_counts_match_tiktoken_on_real_source() {
    let text = rust_sources();
    assert!(text.len() > 100_000, "{} bytes", text.len());
    let whole = tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(&text)
        .len();
    assert_eq!(TokenCounter::default().count(&text), whole);
    let whole = tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(&text)
        .len();
    assert_eq!(TokenCounter::new(Encoding::Cl100kBase).count(&text), whole);
}

#[test]
fn counters_follow_the_model() {
    let text = "naïve 中文 tokens — and some code: fn main() { println!(\"hi\"); }";
    let o200k = TokenCounter::for_model("gpt-4o").count(text);
    let cl100k = TokenCounter::for_model("gpt-4").count(text);
    assert_eq!(TokenCounter::for_model("unknown-model").count(text), o200k);
    assert_ne!(o200k, cl100k);
}
