//! The text a file had before a change, from its text after and the change's unified diff (what
//! `run.file.change` carries): ACP shows diffs as old and new text.

/// Undoes `diff` (unified format, `@@ -a,b +c,d @@` hunks) on `new`; `None` when the diff does
/// not apply to it (a truncated diff, a file changed since).
pub fn old_text(new: &str, diff: &str) -> Option<String> {
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let mut old = String::with_capacity(new.len());
    // Index in `new_lines` of the first line not yet copied.
    let mut next = 0usize;
    let mut lines = diff.lines().peekable();
    let mut last_removed = false;
    while let Some(line) = lines.next() {
        let Some(header) = line.strip_prefix("@@ ") else {
            continue;
        };
        let new_start = hunk_new_start(header)?;
        // Lines before the hunk are unchanged (a 0 start means an empty new side).
        let hunk_first = new_start.saturating_sub(1);
        if hunk_first < next || hunk_first > new_lines.len() {
            return None;
        }
        for line in &new_lines[next..hunk_first] {
            old.push_str(line);
        }
        next = hunk_first;
        while let Some(body) = lines.peek() {
            if body.starts_with("@@ ") {
                break;
            }
            let body = lines.next().unwrap_or_default();
            let removed = body.starts_with('-');
            if let Some(text) = body.strip_prefix('-') {
                old.push_str(text);
                old.push('\n');
            } else if let Some(text) = body.strip_prefix('+') {
                let current = new_lines.get(next)?;
                if current.trim_end_matches('\n') != text {
                    return None;
                }
                next += 1;
            } else if let Some(text) = body.strip_prefix(' ') {
                let current = new_lines.get(next)?;
                if current.trim_end_matches('\n') != text {
                    return None;
                }
                old.push_str(current);
                next += 1;
            } else if body.starts_with('\\') {
                // "\ No newline at end of file" after a removed line: the old file's last line
                // had none.
                if last_removed {
                    old.pop();
                }
            } else if body.is_empty() {
                // An empty context line whose leading space was trimmed.
                let current = new_lines.get(next)?;
                if !current.trim_end_matches('\n').is_empty() {
                    return None;
                }
                old.push_str(current);
                next += 1;
            } else {
                return None;
            }
            last_removed = removed;
        }
    }
    for line in &new_lines[next.min(new_lines.len())..] {
        old.push_str(line);
    }
    Some(old)
}

/// The new side's start line of a hunk header `-a,b +c,d @@…`.
fn hunk_new_start(header: &str) -> Option<usize> {
    let plus = header
        .split_whitespace()
        .find(|part| part.starts_with('+'))?;
    let start = plus.trim_start_matches('+').split(',').next()?;
    start.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn unified(old: &str, new: &str) -> String {
        // The same shape keel-tools writes: `similar`'s unified diff with 3 lines of context.
        let mut out = String::new();
        let old_lines: Vec<&str> = old.lines().collect();
        let new_lines: Vec<&str> = new.lines().collect();
        // A single hunk covering both files whole is a valid unified diff.
        out.push_str(&format!(
            "--- a\n+++ b\n@@ -1,{} +1,{} @@\n",
            old_lines.len(),
            new_lines.len()
        ));
        for line in &old_lines {
            out.push_str(&format!("-{line}\n"));
        }
        for line in &new_lines {
            out.push_str(&format!("+{line}\n"));
        }
        out
    }

    #[test]
    fn a_changed_line_in_the_middle() {
        let new = "a\nb\nX\nd\ne\n";
        let diff = "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+X\n d\n";
        assert_eq!(old_text(new, diff).as_deref(), Some("a\nb\nc\nd\ne\n"));
    }

    #[test]
    fn added_and_removed_lines() {
        let new = "one\ntwo\nthree\nfour\n";
        let diff = "@@ -1,3 +1,4 @@\n one\n+two\n three\n-gone\n+four\n";
        assert_eq!(old_text(new, diff).as_deref(), Some("one\nthree\ngone\n"));
    }

    #[test]
    fn a_diff_that_does_not_fit_is_none() {
        assert_eq!(old_text("a\n", "@@ -1,1 +1,1 @@\n-x\n+y\n"), None);
        assert_eq!(old_text("a\n", "@@ -1,1 +9,1 @@\n-x\n+a\n"), None);
    }

    proptest! {
        #[test]
        fn undoing_a_whole_file_diff_gives_the_old_text(
            old in proptest::collection::vec("[a-z ]{0,6}", 0..8),
            new in proptest::collection::vec("[a-z ]{0,6}", 0..8),
        ) {
            let old: String = old.iter().map(|l| format!("{l}\n")).collect();
            let new: String = new.iter().map(|l| format!("{l}\n")).collect();
            prop_assert_eq!(old_text(&new, &unified(&old, &new)), Some(old));
        }
    }
}
