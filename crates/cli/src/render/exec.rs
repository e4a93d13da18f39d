//! `exec.file.*`: a user-started script run. Its standard output is printed as is, its standard
//! error in red, and the run ends with an exit line (code and duration).

use std::io::Write;

use keel_events::{ExecFileExit, ExecFileStart, ExecFileStderr, ExecFileStdout};

use super::format::duration;
use super::renderer::{ConsoleRenderer, StreamKind};
use super::style::Tone;

impl<W: Write> ConsoleRenderer<W> {
    /// `exec.file.start`: `▶ interpreter file`.
    pub(super) fn print_exec_file_start(&mut self, p: &ExecFileStart) {
        let command = if p.command.is_empty() {
            p.file.clone()
        } else {
            p.command.join(" ")
        };
        self.line(&[(Tone::Bold, "▶ "), (Tone::Bold, &command)]);
    }

    /// `exec.file.stdout`: the text as is.
    pub(super) fn print_exec_file_stdout(&mut self, p: &ExecFileStdout) {
        self.stream(StreamKind::ExecStdout, "", Tone::Plain, &p.content);
    }

    /// `exec.file.stderr`: the text in red.
    pub(super) fn print_exec_file_stderr(&mut self, p: &ExecFileStderr) {
        self.stream(StreamKind::ExecStderr, "", Tone::Error, &p.content);
    }

    /// `exec.file.exit`: the exit code (or time-out / signal) and the wall time.
    pub(super) fn print_exec_file_exit(&mut self, p: &ExecFileExit) {
        self.close_line();
        let took = duration(p.duration_ms);
        let (tone, text) = if p.timed_out {
            (Tone::Error, format!("✗ {} timed out after {took}", p.file))
        } else {
            match p.exit_code {
                Some(0) => (
                    Tone::Success,
                    format!("✓ {} exited with 0 ({took})", p.file),
                ),
                Some(code) => (
                    Tone::Error,
                    format!("✗ {} exited with {code} ({took})", p.file),
                ),
                None => (
                    Tone::Error,
                    format!("✗ {} was ended by a signal ({took})", p.file),
                ),
            }
        };
        self.line(&[(tone, &text)]);
    }
}
