//! read_file, write_file, delete_file and move_file, with their `run.file.change` events.

use crate::common;

use common::Harness;
use keel_events::FileOp;
use pretty_assertions::assert_eq;
use serde_json::json;

#[tokio::test]
async fn read_whole_file_and_ranges() {
    let h = Harness::new();
    h.write("a.txt", "one\ntwo\nthree\nfour\n");
    let r = h.call("read_file", json!({"path": "a.txt"})).await;
    assert!(r.success, "{r:?}");
    assert_eq!(r.content.as_deref(), Some("one\ntwo\nthree\nfour\n"));
    let r = h
        .call(
            "read_file",
            json!({"path": "a.txt", "start_line": 2, "end_line": 3}),
        )
        .await;
    assert_eq!(r.content.as_deref(), Some("two\nthree\n"));
    assert!(r.message.contains("lines 2-3 of 4"), "{}", r.message);
    let r = h
        .call("read_file", json!({"path": "a.txt", "start_line": 3}))
        .await;
    assert_eq!(r.content.as_deref(), Some("three\nfour\n"));
    let r = h
        .call("read_file", json!({"path": "a.txt", "end_line": 99}))
        .await;
    assert_eq!(r.content.as_deref(), Some("one\ntwo\nthree\nfour\n"));
}

#[tokio::test]
async fn read_range_errors() {
    let h = Harness::new();
    h.write("a.txt", "one\ntwo\n");
    let r = h
        .call("read_file", json!({"path": "a.txt", "start_line": 0}))
        .await;
    assert!(!r.success && r.message.contains("1-based"), "{r:?}");
    let r = h
        .call("read_file", json!({"path": "a.txt", "start_line": 5}))
        .await;
    assert!(
        !r.success && r.message.contains("past the end") && r.message.contains("2 lines"),
        "{r:?}"
    );
    let r = h
        .call(
            "read_file",
            json!({"path": "a.txt", "start_line": 2, "end_line": 1}),
        )
        .await;
    assert!(
        !r.success && r.message.contains("before start_line"),
        "{r:?}"
    );
    let r = h.call("read_file", json!({"path": "missing.txt"})).await;
    assert!(
        !r.success && r.message.contains("File does not exist: missing.txt"),
        "{r:?}"
    );
    let r = h.call("read_file", json!({"path": "."})).await;
    assert!(!r.success && r.message.contains("folder"), "{r:?}");
    let r = h.call("read_file", json!({"start_line": 1})).await;
    assert!(
        !r.success && r.message.contains("missing field `path`"),
        "{r:?}"
    );
}

#[tokio::test]
async fn large_file_previews_first_100_lines() {
    let h = Harness::new();
    let text: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    h.write("big.txt", &text);
    let r = h.call("read_file", json!({"path": "big.txt"})).await;
    assert!(r.success);
    let content = r.content.unwrap();
    assert!(content.starts_with("line 1\n"));
    assert!(content.contains("line 100\n"));
    assert!(!content.contains("line 101\n"));
    assert!(content.contains("2,500 lines in total"), "{content}");
    assert!(r.message.contains("2,500 lines"), "{}", r.message);
    assert!(r.message.contains("\"start_line\": 101"), "{}", r.message);
    // A range of a large file is returned as asked.
    let r = h
        .call(
            "read_file",
            json!({"path": "big.txt", "start_line": 2400, "end_line": 2401}),
        )
        .await;
    assert_eq!(r.content.as_deref(), Some("line 2400\nline 2401\n"));
    // Exactly 2,000 lines is still read whole.
    let text: String = (1..=2000).map(|i| format!("l{i}\n")).collect();
    h.write("edge.txt", &text);
    let r = h.call("read_file", json!({"path": "edge.txt"})).await;
    assert_eq!(r.content.as_deref(), Some(text.as_str()));
}

#[tokio::test]
async fn binary_refused_non_utf8_lossy() {
    let h = Harness::new();
    h.write("img.png", [0x89, b'P', b'N', b'G', 0, 0, 1, 2]);
    let r = h.call("read_file", json!({"path": "img.png"})).await;
    assert!(!r.success);
    assert!(
        r.message.contains("binary file") && r.message.contains("image/png"),
        "{}",
        r.message
    );
    h.write("latin1.txt", b"caf\xe9\n");
    let r = h.call("read_file", json!({"path": "latin1.txt"})).await;
    assert!(r.success);
    assert_eq!(r.content.as_deref(), Some("caf\u{FFFD}\n"));
    assert!(
        r.message.contains("not valid UTF-8") && r.message.contains("lossily"),
        "{}",
        r.message
    );
}

#[tokio::test]
async fn read_refuses_paths_outside() {
    let h = Harness::new();
    let r = h.call("read_file", json!({"path": "../etc/passwd"})).await;
    assert!(!r.success && r.message.contains("climbs out"), "{r:?}");
    let r = h.call("read_file", json!({"path": "/etc/passwd"})).await;
    assert!(
        !r.success && r.message.contains("outside the workspace"),
        "{r:?}"
    );
}

#[tokio::test]
async fn write_creates_parents_and_emits() {
    let mut h = Harness::new();
    let r = h
        .call(
            "write_file",
            json!({"path": "deep/er/new.rs", "content": "fn main() {}\n"}),
        )
        .await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("deep/er/new.rs"), "fn main() {}\n");
    let changes = h.changes();
    assert_eq!(changes.len(), 1);
    let c = &changes[0];
    assert_eq!(c.path, "deep/er/new.rs");
    assert_eq!(c.op, FileOp::Create);
    assert_eq!((c.lines_added, c.lines_removed), (1, 0));
    assert_eq!(c.size, Some(13));
    assert_eq!(c.mime_type.as_deref(), Some("text/x-rust"));
    assert!(c.diff.as_deref().unwrap().contains("+fn main() {}"));

    // The alias overwrites, as an update.
    let r = h
        .call(
            "write_to_file",
            json!({"path": "deep/er/new.rs", "content": "fn main() {\n    run();\n}\n"}),
        )
        .await;
    assert!(r.success, "{r:?}");
    let c = &h.changes()[0];
    assert_eq!(c.op, FileOp::Update);
    assert_eq!((c.lines_added, c.lines_removed), (3, 1));

    // Same content: nothing changes, nothing is emitted.
    let r = h
        .call(
            "write_file",
            json!({"path": "deep/er/new.rs", "content": "fn main() {\n    run();\n}\n"}),
        )
        .await;
    assert!(r.success && r.message.contains("nothing changed"), "{r:?}");
    assert!(h.changes().is_empty());
}

#[tokio::test]
async fn write_refused_in_git_and_outside() {
    let h = Harness::new();
    h.write(".git/HEAD", "ref: refs/heads/main\n");
    let r = h
        .call("write_file", json!({"path": ".git/HEAD", "content": "x"}))
        .await;
    assert!(!r.success && r.message.contains(".git"), "{r:?}");
    assert_eq!(h.read(".git/HEAD"), "ref: refs/heads/main\n");
    let r = h.call("read_file", json!({"path": ".git/HEAD"})).await;
    assert!(r.success);
    let r = h
        .call(
            "write_file",
            json!({"path": "../escape.txt", "content": "x"}),
        )
        .await;
    assert!(!r.success && r.message.contains("climbs out"), "{r:?}");
    let r = h
        .call("write_file", json!({"path": "a\u{0}b", "content": "x"}))
        .await;
    assert!(!r.success && r.message.contains("NUL"), "{r:?}");
}

#[tokio::test]
async fn delete_file_emits_and_refuses_folders() {
    let mut h = Harness::new();
    h.write("gone.txt", "a\nb\n");
    let r = h.call("delete_file", json!({"path": "gone.txt"})).await;
    assert!(r.success, "{r:?}");
    assert!(!h.exists("gone.txt"));
    let c = &h.changes()[0];
    assert_eq!(c.op, FileOp::Delete);
    assert_eq!((c.lines_added, c.lines_removed), (0, 2));
    let r = h.call("delete_file", json!({"path": "gone.txt"})).await;
    assert!(
        !r.success && r.message.contains("File does not exist: gone.txt"),
        "{r:?}"
    );
    h.write("dir/x", "x");
    let r = h.call("delete_file", json!({"path": "dir"})).await;
    assert!(!r.success && r.message.contains("folder"), "{r:?}");
    let r = h.call("delete_file", json!({"path": ".git/config"})).await;
    assert!(!r.success && r.message.contains(".git"), "{r:?}");
}

#[tokio::test]
async fn move_file_four_outcomes() {
    let mut h = Harness::new();
    h.write("a.txt", "A\n");
    h.write("b.txt", "B\n");

    let r = h
        .call(
            "move_file",
            json!({"fromPath": "nope.txt", "toPath": "x.txt"}),
        )
        .await;
    assert_eq!(
        (r.success, r.message.as_str()),
        (false, "Source file does not exist: nope.txt")
    );

    let r = h
        .call("move_file", json!({"fromPath": "a.txt", "toPath": "b.txt"}))
        .await;
    assert_eq!(
        (r.success, r.message.as_str()),
        (false, "Target file already exists: b.txt")
    );
    let r = h
        .call(
            "move_file",
            json!({"fromPath": "a.txt", "toPath": "b.txt", "overwrite": false}),
        )
        .await;
    assert_eq!(r.message, "Target file already exists: b.txt");

    let r = h
        .call(
            "move_file",
            json!({"fromPath": "a.txt", "toPath": "../out.txt"}),
        )
        .await;
    assert!(
        !r.success && r.message.starts_with("Failed to move file: "),
        "{r:?}"
    );
    assert!(h.exists("a.txt"));

    assert!(h.changes().is_empty());
    let r = h
        .call(
            "move_file",
            json!({"fromPath": "a.txt", "toPath": "sub/dir/c.txt"}),
        )
        .await;
    assert_eq!(
        (r.success, r.message.as_str()),
        (true, "File moved: a.txt → sub/dir/c.txt")
    );
    assert!(!h.exists("a.txt"));
    assert_eq!(h.read("sub/dir/c.txt"), "A\n");
    let c = &h.changes()[0];
    assert_eq!(c.op, FileOp::Move);
    assert_eq!(c.path, "sub/dir/c.txt");
    assert_eq!(c.from_path.as_deref(), Some("a.txt"));
    assert_eq!(c.to_path.as_deref(), Some("sub/dir/c.txt"));
    assert_eq!(c.size, Some(2));

    let r = h
        .call(
            "move_file",
            json!({"fromPath": "b.txt", "toPath": "sub/dir/c.txt", "overwrite": true}),
        )
        .await;
    assert_eq!(
        (r.success, r.message.as_str()),
        (true, "File moved: b.txt → sub/dir/c.txt")
    );
    assert_eq!(h.read("sub/dir/c.txt"), "B\n");

    // camelCase is the contract: snake_case names are an argument error.
    let r = h
        .call("move_file", json!({"from_path": "x", "to_path": "y"}))
        .await;
    assert!(
        !r.success && r.message.contains("Invalid arguments for move_file"),
        "{r:?}"
    );
}

/// Seed 003 §5.3 and §6 under the Chinese locale: the tool's own four messages, word for word,
/// its summary (`文件已移动`) and the move's `run.file.change` summary (`移动文件 a → b`).
#[tokio::test]
async fn move_file_speaks_the_seeds_chinese() {
    let mut h = Harness::new();
    h.ctx = h.ctx.clone().with_lang(keel_events::Lang::ZhCn);
    h.write("src/old.ts", "export {}\n");
    h.write("src/taken.ts", "x\n");

    let r = h
        .call(
            "move_file",
            json!({"fromPath": "src/nope.ts", "toPath": "src/x.ts"}),
        )
        .await;
    assert_eq!(
        (r.success, r.message.as_str()),
        (false, "源文件不存在: src/nope.ts")
    );
    let r = h
        .call(
            "move_file",
            json!({"fromPath": "src/old.ts", "toPath": "src/taken.ts"}),
        )
        .await;
    assert_eq!(
        (r.success, r.message.as_str()),
        (false, "目标文件已存在: src/taken.ts")
    );
    let r = h
        .call(
            "move_file",
            json!({"fromPath": "src/old.ts", "toPath": "../out.ts"}),
        )
        .await;
    assert!(
        !r.success && r.message.starts_with("移动文件失败: "),
        "{r:?}"
    );

    let r = h
        .call(
            "move_file",
            json!({"fromPath": "src/old.ts", "toPath": "src/new.ts"}),
        )
        .await;
    assert_eq!(
        (r.success, r.message.as_str(), r.summary.as_deref()),
        (
            true,
            "文件已移动: src/old.ts → src/new.ts",
            Some("文件已移动")
        )
    );
    let change = &h.changes()[0];
    assert_eq!(change.summary, "移动文件 src/old.ts → src/new.ts");

    // English keeps its own words, with a summary too.
    h.ctx = h.ctx.clone().with_lang(keel_events::Lang::En);
    let r = h
        .call(
            "move_file",
            json!({"fromPath": "src/new.ts", "toPath": "src/old.ts"}),
        )
        .await;
    assert_eq!(r.summary.as_deref(), Some("File moved"));
}

/// Seed 002 §3.2 under the Chinese locale: a file over 2,000 lines read whole gives the seed's
/// preview text, word for word, around its first 100 lines.
#[tokio::test]
async fn a_large_file_preview_speaks_the_seeds_chinese() {
    let mut h = Harness::new();
    h.ctx = h.ctx.clone().with_lang(keel_events::Lang::ZhCn);
    let text: String = (1..=2_500).map(|i| format!("line {i}\n")).collect();
    h.write("big.txt", &text);
    let r = h.call("read_file", json!({"path": "big.txt"})).await;
    assert!(r.success, "{r:?}");
    assert_eq!(r.message, "文件较大（2500 行），以下是前 100 行预览：");
    let preview: Vec<String> = (1..=100).map(|i| format!("line {i}")).collect();
    assert_eq!(
        r.content.as_deref(),
        Some(
            format!(
                "{}\n\n... [文件共 2500 行]\n\n提示：请使用 read_file(path, start_line=X, end_line=Y) 分段读取特定部分。\n",
                preview.join("\n")
            )
            .as_str()
        )
    );
}
