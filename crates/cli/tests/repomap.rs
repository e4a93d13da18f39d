//! `keel repomap`: the real binary maps a small project, as text and as JSON (with each file's
//! dependencies), uses its cache on a second run, and refuses a missing root.

use std::process::Command;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/shapes.rs"),
        "/// A point.\npub struct Point {\n    pub x: f64,\n}\n\npub fn origin() -> Point {\n    Point { x: 0.0 }\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/main.rs"),
        "mod shapes;\n\nfn main() {\n    let p = shapes::origin();\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("rare.py"),
        "def seldom_called():\n    pass\n",
    )
    .unwrap();
    dir
}

fn keel(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_keel"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn prints_the_map_and_uses_the_cache_the_second_time() {
    let dir = project();
    let root = dir.path().to_str().unwrap();
    let output = keel(&["repomap", "--root", root]);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("src/shapes.rs:\n"), "{text}");
    assert!(
        text.contains("  2-4: pub struct Point — A point.\n"),
        "{text}"
    );
    assert!(text.contains("  6-8: pub fn origin() -> Point\n"), "{text}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("3 files"), "{stderr}");
    assert!(stderr.contains("3 parsed"), "{stderr}");

    let again = keel(&["repomap", "--root", root]);
    assert!(again.status.success());
    assert_eq!(String::from_utf8(again.stdout).unwrap(), text);
    let stderr = String::from_utf8(again.stderr).unwrap();
    assert!(stderr.contains("0 parsed (cached)"), "{stderr}");
}

#[test]
fn json_lists_files_with_ranks_and_symbols_and_mentions_count() {
    let dir = project();
    let root = dir.path().to_str().unwrap();
    let output = keel(&[
        "repomap",
        "--root",
        root,
        "--json",
        "--no-cache",
        "--mention",
        "seldom_called",
        "--tokens",
        "30",
    ]);
    assert!(output.status.success(), "{output:?}");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let files = value["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["path"], "rare.py");
    assert!(files[0]["rank"].as_f64().unwrap() > files[2]["rank"].as_f64().unwrap());
    assert_eq!(files[0]["symbols"][0]["name"], "seldom_called");
    assert_eq!(files[0]["symbols"][0]["kind"], "function");
    assert_eq!(files[0]["symbols"][0]["start_line"], 1);
    assert!(value["tokens"].as_u64().unwrap() <= 30);
    assert!(value["map"].as_str().unwrap().contains("seldom_called"));
    // Seed 002 §10: each file's dependencies (main.rs calls `origin`, defined in shapes.rs).
    assert_eq!(
        value["dependencies"],
        serde_json::json!({"rare.py": [], "src/main.rs": ["src/shapes.rs"], "src/shapes.rs": []})
    );
    assert!(!dir.path().join(".keel").exists());
}

#[test]
fn a_missing_root_is_a_usage_error() {
    let output = keel(&["repomap", "--root", "/definitely/not/here"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("cannot read")
    );
}
