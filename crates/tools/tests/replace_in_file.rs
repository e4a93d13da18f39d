//! replace_in_file: markers, match tolerance, ordering, all-or-nothing, line endings.

use crate::common;

use common::Harness;
use keel_events::FileOp;
use keel_tools::search_replace::{self, EditError, ParseError};
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;

fn block(search: &str, replace: &str) -> String {
    format!("<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n")
}

async fn edit(h: &Harness, path: &str, diff: &str) -> keel_protocol::ToolResult {
    h.call("replace_in_file", json!({"path": path, "diff": diff}))
        .await
}

#[tokio::test]
async fn exact_edit_emits_update_with_diff() {
    let mut h = Harness::new();
    h.write("a.rs", "fn a() {\n    1\n}\n");
    let r = edit(&h, "a.rs", &block("    1", "    2")).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("a.rs"), "fn a() {\n    2\n}\n");
    assert!(r.message.contains("Applied 1 block"), "{}", r.message);
    assert!(r.content.as_deref().unwrap().contains("-    1\n+    2"));
    let c = &h.changes()[0];
    assert_eq!(c.op, FileOp::Update);
    assert_eq!((c.lines_added, c.lines_removed), (1, 1));
}

#[tokio::test]
async fn marker_styles_and_missing_final_newline() {
    let h = Harness::new();
    h.write("a.txt", "x\ny\nz\n");
    let diff =
        "------- SEARCH\nx\n===\nX\n+++++++ REPLACE\n<<< SEARCH\nz\n=====\nZ\n>>>>>>>>> REPLACE";
    let r = edit(&h, "a.txt", diff).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("a.txt"), "X\ny\nZ\n");
    // CRLF in the diff itself is fine too.
    let r = edit(
        &h,
        "a.txt",
        "<<<<<<< SEARCH\r\ny\r\n=======\r\nY\r\n>>>>>>> REPLACE\r\n",
    )
    .await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("a.txt"), "X\nY\nZ\n");
    // Text around blocks (code fences) is ignored.
    let r = edit(&h, "a.txt", &format!("```\n{}```\n", block("Y", "why"))).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("a.txt"), "X\nwhy\nZ\n");
}

#[tokio::test]
async fn malformed_diff_names_the_line() {
    let h = Harness::new();
    h.write("a.txt", "x\n");
    let cases = [
        ("<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n", "line 3"),
        ("<<<<<<< SEARCH\nx\n=======\ny\n", "line 1"),
        ("=======\n", "line 1"),
        (
            "<<<<<<< SEARCH\nx\n=======\ny\n=======\n>>>>>>> REPLACE",
            "line 5",
        ),
        ("<<<<<<< SEARCH\n<<<<<<< SEARCH\n", "line 2"),
        ("no markers at all", "no SEARCH/REPLACE block"),
    ];
    for (diff, needle) in cases {
        let r = edit(&h, "a.txt", diff).await;
        assert!(!r.success, "{diff:?}");
        assert!(r.message.contains(needle), "{diff:?}: {}", r.message);
    }
    assert_eq!(h.read("a.txt"), "x\n");
}

#[tokio::test]
async fn whitespace_tolerance_tiers() {
    let h = Harness::new();
    // Trailing whitespace in the file.
    h.write("t.py", "def f():\n    return 1   \n");
    let r = edit(&h, "t.py", &block("    return 1", "    return 2")).await;
    assert!(r.success, "{r:?}");
    assert!(
        r.message.contains("ignoring trailing whitespace"),
        "{}",
        r.message
    );
    assert_eq!(h.read("t.py"), "def f():\n    return 2\n");

    // Indentation differs: replacement re-indented by the same offset.
    h.write(
        "i.py",
        "class A:\n    def f(self):\n        if x:\n            go()\n",
    );
    let diff = block(
        "def f(self):\n    if x:\n        go()",
        "def f(self):\n    if y:\n        stop()\n    done()",
    );
    let r = edit(&h, "i.py", &diff).await;
    assert!(r.success, "{r:?}");
    assert!(r.message.contains("ignoring indentation"), "{}", r.message);
    assert_eq!(
        h.read("i.py"),
        "class A:\n    def f(self):\n        if y:\n            stop()\n        done()\n"
    );

    // Unicode punctuation folded.
    h.write(
        "u.md",
        "He said \u{201C}hi\u{201D} \u{2014} twice\u{00A0}over.\n",
    );
    let r = edit(
        &h,
        "u.md",
        &block("He said \"hi\" - twice over.", "He said hello."),
    )
    .await;
    assert!(r.success, "{r:?}");
    assert!(r.message.contains("Unicode"), "{}", r.message);
    assert_eq!(h.read("u.md"), "He said hello.\n");
}

#[tokio::test]
async fn first_occurrence_after_previous_block_then_out_of_order() {
    let h = Harness::new();
    h.write("a.txt", "x\nmid\nx\nend\n");
    // Two identical SEARCH blocks hit the first and then the second occurrence.
    let diff = format!("{}{}", block("x", "first"), block("x", "second"));
    let r = edit(&h, "a.txt", &diff).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("a.txt"), "first\nmid\nsecond\nend\n");

    // Blocks out of order: the second one is found before the first's end.
    h.write("b.txt", "a\nb\nc\nd\n");
    let diff = format!("{}{}", block("c", "C"), block("a", "A"));
    let r = edit(&h, "b.txt", &diff).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("b.txt"), "A\nb\nC\nd\n");
}

#[tokio::test]
async fn all_or_nothing_with_closest_lines() {
    let mut h = Harness::new();
    let original = "fn one() {}\nfn two() {\n    let value = compute();\n}\n";
    h.write("a.rs", original);
    let diff = format!(
        "{}{}",
        block("fn one() {}", "fn uno() {}"),
        block("    let valeu = compute();", "    let value = 2;")
    );
    let r = edit(&h, "a.rs", &diff).await;
    assert!(!r.success);
    assert!(r.message.contains("block 2 of 2"), "{}", r.message);
    assert!(r.message.contains("SEARCH at diff line 6"), "{}", r.message);
    // A small file is shown whole, as it is on disk (block 1 was not applied either).
    assert!(
        r.message
            .contains(&format!("The file as it is now:\n```\n{}```", original)),
        "{}",
        r.message
    );
    assert!(r.message.contains("unchanged"), "{}", r.message);
    assert_eq!(h.read("a.rs"), original);
    assert!(h.changes().is_empty());
    assert!(h.store.list().unwrap().is_empty());
}

#[tokio::test]
async fn keeps_crlf_and_final_newline_state() {
    let h = Harness::new();
    h.write("w.txt", "a\r\nb\r\nc");
    let r = edit(&h, "w.txt", &block("b", "B\nB2")).await;
    assert!(r.success, "{r:?}");
    assert_eq!(
        std::fs::read(h.path("w.txt")).unwrap(),
        b"a\r\nB\r\nB2\r\nc"
    );
    h.write("n.txt", "a\nb\n");
    let r = edit(&h, "n.txt", &block("b", "c")).await;
    assert!(r.success);
    assert_eq!(h.read("n.txt"), "a\nc\n");
    // A UTF-8 byte-order mark survives.
    h.write("bom.txt", "\u{FEFF}a\nb\n");
    let r = edit(&h, "bom.txt", &block("a", "A")).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("bom.txt"), "\u{FEFF}A\nb\n");
}

#[tokio::test]
async fn empty_search_creates_but_never_wipes() {
    let mut h = Harness::new();
    let diff = "<<<<<<< SEARCH\n=======\nfresh\ncontent\n>>>>>>> REPLACE\n";
    let r = edit(&h, "new/file.txt", diff).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("new/file.txt"), "fresh\ncontent\n");
    assert_eq!(h.changes()[0].op, FileOp::Create);
    h.write("empty.txt", "");
    let r = edit(&h, "empty.txt", diff).await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("empty.txt"), "fresh\ncontent\n");
    h.write("full.txt", "keep me\n");
    let r = edit(&h, "full.txt", diff).await;
    assert!(!r.success);
    assert!(r.message.contains("empty SEARCH"), "{}", r.message);
    assert_eq!(h.read("full.txt"), "keep me\n");
    // A non-empty SEARCH on a missing file says the file is missing.
    let r = edit(&h, "missing.txt", &block("x", "y")).await;
    assert!(
        !r.success && r.message.contains("does not exist"),
        "{}",
        r.message
    );
    assert!(!h.exists("missing.txt"));
}

#[tokio::test]
async fn refuses_binary_non_utf8_and_git() {
    let h = Harness::new();
    h.write("b.bin", [0u8, 1, 2]);
    let r = edit(&h, "b.bin", &block("x", "y")).await;
    assert!(!r.success && r.message.contains("binary"), "{r:?}");
    h.write("l.txt", b"caf\xe9\n");
    let r = edit(&h, "l.txt", &block("x", "y")).await;
    assert!(!r.success && r.message.contains("UTF-8"), "{r:?}");
    h.write(".git/config", "[core]\n");
    let r = edit(&h, ".git/config", &block("[core]", "[evil]")).await;
    assert!(!r.success && r.message.contains(".git"), "{r:?}");
}

#[test]
fn parse_errors_are_typed() {
    let err = search_replace::apply(Some("a\n"), "<<<<<<< SEARCH\na\n").unwrap_err();
    assert!(matches!(
        err,
        EditError::Parse(ParseError::Malformed { line: 1, .. })
    ));
}

proptest! {
    #[test]
    fn parser_never_panics(diff in any::<String>()) {
        let _ = search_replace::parse(&diff);
    }

    #[test]
    fn parser_never_panics_on_marker_soup(lines in prop::collection::vec(prop_oneof![
        Just("<<<<<<< SEARCH".to_owned()),
        Just("=======".to_owned()),
        Just(">>>>>>> REPLACE".to_owned()),
        Just("------- SEARCH".to_owned()),
        Just("+++++++ REPLACE".to_owned()),
        Just("".to_owned()),
        "[ a-z=<>+-]{0,12}",
    ], 0..20)) {
        let diff = lines.join("\n");
        let _ = search_replace::parse(&diff);
    }

    #[test]
    fn apply_never_panics(file in "[ a-c\t\n\u{2014}\u{00A0}]{0,60}", diff_body in prop::collection::vec("[ a-c\t\u{2014}]{0,8}", 0..6), split in 0usize..6) {
        let split = split.min(diff_body.len());
        let diff = format!("<<<<<<< SEARCH\n{}\n=======\n{}\n>>>>>>> REPLACE", diff_body[..split].join("\n"), diff_body[split..].join("\n"));
        let _ = search_replace::apply(Some(&file), &diff);
    }

    #[test]
    fn exact_round_trip(lines in prop::collection::vec("[a-z ]{0,10}", 1..30), pick in 0usize..30, crlf in any::<bool>(), final_nl in any::<bool>()) {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(eol);
        if final_nl { text.push_str(eol); }
        let i = pick % lines.len();
        prop_assume!(!lines[i].trim().is_empty());
        let diff = format!("<<<<<<< SEARCH\n{}\n=======\nREPLACED\n>>>>>>> REPLACE\n", lines[i]);
        let out = search_replace::apply(Some(&text), &diff).unwrap().text;
        let first = lines.iter().position(|l| l == &lines[i]).unwrap();
        let mut expected = lines.clone();
        expected[first] = "REPLACED".to_owned();
        let mut want = expected.join(eol);
        if final_nl { want.push_str(eol); }
        prop_assert_eq!(out, want);
    }
}
