//! list_files and search_files: ignore files, caps, context, invalid regexes.

use crate::common;

use common::Harness;
use pretty_assertions::assert_eq;
use serde_json::json;

fn tree() -> Harness {
    let h = Harness::new();
    h.write(".gitignore", "target/\n*.log\n");
    h.write("sub/.ignore", "secret.txt\n");
    h.write(
        "src/main.rs",
        "fn main() {\n    let needle = 1;\n    println!(\"{needle}\");\n}\n",
    );
    h.write("src/lib.rs", "pub fn lib() {}\n// needle here\n");
    h.write("sub/notes.md", "a needle in notes\n");
    h.write("sub/secret.txt", "needle hidden by .ignore\n");
    h.write("target/out.rs", "needle in build output\n");
    h.write("debug.log", "needle in log\n");
    h.write(".github/ci.yml", "needle: yes\n");
    h.write(".git/config", "needle in git\n");
    h.write("bin.dat", b"needle\0binary");
    h
}

#[tokio::test]
async fn list_files_honours_ignore_files() {
    let h = tree();
    let r = h.call("list_files", json!({"path": "."})).await;
    assert!(r.success, "{r:?}");
    assert_eq!(
        r.content.as_deref().unwrap(),
        ".github/\n.gitignore\nbin.dat\nsrc/\nsub/\n"
    );
    let r = h
        .call("list_files", json!({"path": ".", "recursive": true}))
        .await;
    assert_eq!(
        r.content.as_deref().unwrap(),
        ".github/\n.github/ci.yml\n.gitignore\nbin.dat\nsrc/\nsrc/lib.rs\nsrc/main.rs\nsub/\nsub/.ignore\nsub/notes.md\n"
    );
    assert!(r.message.contains("recursive"), "{}", r.message);
    let r = h.call("list_files", json!({"path": "sub"})).await;
    assert_eq!(r.content.as_deref().unwrap(), "sub/.ignore\nsub/notes.md\n");
}

#[tokio::test]
async fn list_files_errors() {
    let h = tree();
    let r = h.call("list_files", json!({"path": "nope"})).await;
    assert!(!r.success && r.message.contains("does not exist"), "{r:?}");
    let r = h.call("list_files", json!({"path": "src/main.rs"})).await;
    assert!(!r.success && r.message.contains("read_file"), "{r:?}");
    let r = h.call("list_files", json!({"path": "../"})).await;
    assert!(!r.success && r.message.contains("climbs out"), "{r:?}");
}

#[tokio::test]
async fn list_files_caps_entries() {
    let h = Harness::new();
    for i in 0..1005 {
        h.write(&format!("many/f{i:04}.txt"), "x");
    }
    let r = h.call("list_files", json!({"path": "many"})).await;
    assert!(r.success);
    assert!(
        r.message.contains("1,005 entries") && r.message.contains("first 1000"),
        "{}",
        r.message
    );
    let content = r.content.unwrap();
    assert_eq!(content.lines().count(), 1001);
    assert!(content.ends_with("... [5 more entries not shown]\n"));
}

#[tokio::test]
async fn search_output_with_context() {
    let h = tree();
    let r = h
        .call("search_files", json!({"path": ".", "regex": "needle"}))
        .await;
    assert!(r.success, "{r:?}");
    assert_eq!(
        r.content.as_deref().unwrap(),
        "\
.github/ci.yml:1:needle: yes
--
src/lib.rs-1-pub fn lib() {}
src/lib.rs:2:// needle here
--
src/main.rs-1-fn main() {
src/main.rs:2:    let needle = 1;
src/main.rs:3:    println!(\"{needle}\");
src/main.rs-4-}
--
sub/notes.md:1:a needle in notes
"
    );
    assert!(
        r.message.contains("Found 5 matches in 4 files"),
        "{}",
        r.message
    );
}

#[tokio::test]
async fn search_file_pattern_and_subpath() {
    let h = tree();
    let r = h
        .call(
            "search_files",
            json!({"path": ".", "regex": "needle", "file_pattern": "*.rs"}),
        )
        .await;
    let content = r.content.unwrap();
    assert!(
        content.contains("src/main.rs:2:") && !content.contains("notes.md"),
        "{content}"
    );
    let r = h
        .call("search_files", json!({"path": "sub", "regex": "needle"}))
        .await;
    assert_eq!(
        r.content.as_deref(),
        Some("sub/notes.md:1:a needle in notes\n")
    );
    let r = h
        .call(
            "search_files",
            json!({"path": ".", "regex": "needle", "file_pattern": "src/**/*.rs"}),
        )
        .await;
    assert!(r.content.unwrap().starts_with("src/lib.rs"));
    let r = h
        .call(
            "search_files",
            json!({"path": "src/lib.rs", "regex": "needle"}),
        )
        .await;
    assert_eq!(
        r.content.as_deref(),
        Some("src/lib.rs-1-pub fn lib() {}\nsrc/lib.rs:2:// needle here\n")
    );
    // A file is searched whatever the pattern; `.*` (a regex for "anything") is every file.
    for (path, pattern) in [("src/lib.rs", "*.py"), ("src/lib.rs", ".*"), (".", ".*")] {
        let r = h
            .call(
                "search_files",
                json!({"path": path, "regex": "needle here", "file_pattern": pattern}),
            )
            .await;
        assert!(
            r.content
                .as_deref()
                .is_some_and(|c| c.contains("src/lib.rs:2:// needle here")),
            "{path} {pattern}: {r:?}"
        );
    }
}

#[tokio::test]
async fn search_messages() {
    let h = tree();
    let r = h
        .call("search_files", json!({"path": ".", "regex": "fn ("}))
        .await;
    assert!(!r.success);
    assert!(
        r.message.starts_with("Invalid regex `fn (`"),
        "{}",
        r.message
    );
    let r = h
        .call(
            "search_files",
            json!({"path": ".", "regex": "zzz_not_there"}),
        )
        .await;
    assert!(r.success && r.message.contains("No matches"), "{r:?}");
    assert_eq!(r.content, None);
    let r = h
        .call(
            "search_files",
            json!({"path": ".", "regex": "x", "file_pattern": "a{"}),
        )
        .await;
    assert!(
        !r.success && r.message.contains("Invalid file_pattern"),
        "{r:?}"
    );
    let r = h
        .call("search_files", json!({"path": "/etc", "regex": "root"}))
        .await;
    assert!(
        !r.success && r.message.contains("outside the workspace"),
        "{r:?}"
    );
}

#[tokio::test]
async fn search_caps_matches_and_says_so() {
    let h = Harness::new();
    let text: String = (0..400).map(|i| format!("hit {i}\n")).collect();
    h.write("many.txt", &text);
    let r = h
        .call("search_files", json!({"path": ".", "regex": "^hit"}))
        .await;
    assert!(r.success);
    assert!(
        r.message.contains("Found 400 matches in 1 file"),
        "{}",
        r.message
    );
    assert!(r.message.contains("showing the first 300"), "{}", r.message);
    assert_eq!(
        r.content
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("many.txt:"))
            .count(),
        300
    );

    // The byte cap: long lines fill 64 KiB before 300 matches.
    let long: String = (0..200)
        .map(|i| format!("hit {i} {}\n", "y".repeat(450)))
        .collect();
    h.write("many.txt", &long);
    let r = h
        .call("search_files", json!({"path": ".", "regex": "^hit"}))
        .await;
    let content = r.content.unwrap();
    assert!(content.len() <= 64 * 1024);
    assert!(r.message.contains("capped"), "{}", r.message);

    // Very long lines are cut.
    h.write("many.txt", format!("hit {}\n", "z".repeat(2000)));
    let r = h
        .call("search_files", json!({"path": ".", "regex": "^hit"}))
        .await;
    assert!(r.content.unwrap().trim_end().ends_with('…'));
}
