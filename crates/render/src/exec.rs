//! `exec.file.*`: a user-started script run. Its standard output is printed as is, its standard
//! error in red, and the run ends with an exit line (code and duration).

use std::io::Write;

use keel_events::{ExecFileExit, ExecFileStart, ExecFileStderr, ExecFileStdout};

use super::format::duration;
use super::renderer::{ConsoleRenderer, StreamKind};
use super::style::Tone;
use crate::i18n::Arg;

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
        let (tone, id, code) = if p.timed_out {
            (Tone::Error, "exec-timed-out", String::new())
        } else {
            match p.exit_code {
                Some(0) => (Tone::Success, "exec-exited-ok", "0".to_owned()),
                Some(code) => (Tone::Error, "exec-exited", code.to_string()),
                None => (Tone::Error, "exec-signalled", String::new()),
            }
        };
        let text = self.t(
            id,
            &[
                ("file", Arg::from(&p.file)),
                ("code", Arg::from(code)),
                ("duration", Arg::from(took)),
            ],
        );
        self.line(&[(tone, &text)]);
    }
}
