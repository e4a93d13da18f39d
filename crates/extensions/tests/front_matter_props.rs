//! The front-matter splitter under generated input: a block and a body written with fences are
//! cut back into the same two, text that does not start with a fence is all body, and nothing
//! panics.

use keel_extensions::front_matter::split;
use proptest::prelude::*;

/// YAML-ish lines that are never a fence.
fn block_line() -> impl Strategy<Value = String> {
    "[a-z]{1,8}: [ -~]{0,20}".prop_filter("not a fence", |l| {
        let t = l.trim_end();
        t != "---" && t != "..."
    })
}

proptest! {
    #[test]
    fn fenced_text_splits_back(lines in prop::collection::vec(block_line(), 0..6), body in "[ -~\n]{0,80}") {
        let yaml: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let text = format!("---\n{yaml}---\n{body}");
        let split = split(&text).unwrap();
        prop_assert_eq!(split.yaml, Some(yaml.as_str()));
        prop_assert_eq!(split.body, body.as_str());
        prop_assert_eq!(split.body_line, lines.len() + 3);
    }

    #[test]
    fn text_without_an_opening_fence_is_all_body(text in "[ -~\n]{0,120}") {
        prop_assume!(!text.starts_with("---\n") && text.trim_end() != "---" && !text.starts_with("--- "));
        let split = split(&text).unwrap();
        prop_assert_eq!(split.yaml, None);
        prop_assert_eq!(split.body, text.as_str());
    }

    #[test]
    fn any_text_splits_or_errs_without_panicking(text in "\\PC{0,200}") {
        if let Ok(split) = split(&text) {
            prop_assert!(text.ends_with(split.body));
        }
    }
}
