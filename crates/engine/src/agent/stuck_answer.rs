//! An answer stopped in a loop ([`crate::repetition`]) often said what was needed before it got
//! stuck: a small model writes the fixed function, then a test that counts up forever. When the
//! turn edits files from code blocks, the blocks closed before the loop are read as the answer;
//! the block the loop began in is left out.

use keel_events::{Emitter, FinishReason};

use super::answer_review::log;

use crate::assemble::AssembledResponse;

/// `kept` (the text before a loop) up to its last closed code block, if it has one.
pub(crate) fn closed_blocks(kept: &str) -> Option<&str> {
    let mut open = false;
    let mut end_of_last_block = None;
    let mut offset = 0;
    for line in kept.split_inclusive('\n') {
        offset += line.len();
        if line.trim_start().starts_with("```") {
            open = !open;
            // A fence line that closes a block must be complete.
            if !open && line.ends_with('\n') {
                end_of_last_block = Some(offset);
            }
        }
    }
    end_of_last_block.map(|end| &kept[..end])
}

/// The answer to go on with after a loop stopped it (`why`), when the text before the loop
/// (`kept`) holds a closed code block; a `system.log` says so.
pub(crate) fn salvage(emitter: &Emitter, why: &str, kept: &str) -> Option<AssembledResponse> {
    let text = closed_blocks(kept)?;
    log(
        emitter,
        format!("{why}; the code blocks written before the loop are taken as the answer"),
    );
    Some(AssembledResponse {
        text: text.to_owned(),
        finish_reason: Some(FinishReason::Other),
        ..AssembledResponse::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_the_loop_began_in_is_left_out() {
        let kept = "The fix:\n\n```rust\npub fn f() -> bool {\n    true\n}\n```\n\nNow the test:\n\n```rust\n#[test]\nfn t() {\n";
        let text = closed_blocks(kept).unwrap_or_default();
        assert!(text.ends_with("}\n```\n"), "{text:?}");
        assert!(!text.contains("#[test]"));
    }

    #[test]
    fn text_without_a_closed_block_gives_nothing() {
        assert_eq!(
            closed_blocks("I will now write\n```python\ndef f():\n"),
            None
        );
        assert_eq!(closed_blocks("No code at all.\n"), None);
        assert_eq!(closed_blocks("```python\nx = 1\n```"), None);
    }
}
