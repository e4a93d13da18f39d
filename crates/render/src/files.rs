//! `run.file.change`: a one-line summary (`M src/lib.rs +3 -1`) always, then the change's
//! unified diff coloured (`+` green, `-` red, `@@` cyan). Without `--verbose` a long diff is cut
//! after [`DIFF_LINES`] lines with a note saying how many were left out.

use std::io::Write;

use keel_events::{FileOp, RunFileChange};

use super::renderer::ConsoleRenderer;
use super::style::Tone;
use crate::i18n::Arg;

/// Diff lines shown without `--verbose`.
pub(super) const DIFF_LINES: usize = 60;

/// The tone of one unified-diff line.
pub(super) fn diff_tone(line: &str) -> Tone {
    if line.starts_with("+++") || line.starts_with("---") {
        Tone::Bold
    } else if line.starts_with("@@") {
        Tone::Accent
    } else if line.starts_with('+') {
        Tone::Success
    } else if line.starts_with('-') {
        Tone::Error
    } else if line.starts_with('\\') {
        Tone::Dim
    } else {
        Tone::Plain
    }
}

impl<W: Write> ConsoleRenderer<W> {
    /// `run.file.change`: the summary line, then the coloured diff.
    pub(super) fn print_run_file_change(&mut self, p: &RunFileChange) {
        let (letter, tone) = match p.op {
            FileOp::Create => ("A", Tone::Success),
            FileOp::Update => ("M", Tone::Warning),
            FileOp::Delete => ("D", Tone::Error),
            FileOp::Move => ("R", Tone::Accent),
        };
        let path = match (p.op, &p.from_path) {
            (FileOp::Move, Some(from)) => {
                format!("{from} → {}", p.to_path.as_deref().unwrap_or(&p.path))
            }
            _ => p.path.clone(),
        };
        let added = if p.lines_added > 0 || p.lines_removed > 0 {
            format!(" +{}", p.lines_added)
        } else {
            String::new()
        };
        let removed = if p.lines_added > 0 || p.lines_removed > 0 {
            format!(" -{}", p.lines_removed)
        } else {
            String::new()
        };
        let summary = if self.verbose && !p.summary.trim().is_empty() {
            format!(" — {}", p.summary.trim())
        } else {
            String::new()
        };
        self.line(&[
            (tone, letter),
            (Tone::Plain, " "),
            (Tone::Bold, &path),
            (Tone::Success, &added),
            (Tone::Error, &removed),
            (Tone::Dim, &summary),
        ]);
        if let Some(diff) = p.diff.as_deref() {
            self.print_diff(diff);
        }
    }

    fn print_diff(&mut self, diff: &str) {
        let lines: Vec<&str> = diff.lines().collect();
        let shown = if self.verbose {
            lines.len()
        } else {
            lines.len().min(DIFF_LINES)
        };
        for line in &lines[..shown] {
            let line = line.trim_end_matches('\r');
            self.line(&[(Tone::Plain, "    "), (diff_tone(line), line)]);
        }
        if shown < lines.len() {
            let note = self.t(
                "diff-more",
                &[
                    ("count", Arg::from(lines.len() - shown)),
                    ("n", Arg::from((lines.len() - shown).to_string())),
                ],
            );
            let note = format!("    {note}");
            self.line(&[(Tone::Dim, &note)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_lines_get_their_tones() {
        assert_eq!(diff_tone("--- a/x"), Tone::Bold);
        assert_eq!(diff_tone("+++ b/x"), Tone::Bold);
        assert_eq!(diff_tone("@@ -1,2 +1,3 @@"), Tone::Accent);
        assert_eq!(diff_tone("+new"), Tone::Success);
        assert_eq!(diff_tone("-old"), Tone::Error);
        assert_eq!(diff_tone(" same"), Tone::Plain);
        assert_eq!(diff_tone("\\ No newline at end of file"), Tone::Dim);
    }
}
