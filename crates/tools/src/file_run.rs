//! Running one script file of the workspace on a person's request (seed 000's "file run", a
//! feature separate from the agent loop), reported as `exec.file.start`, `exec.file.stdout`,
//! `exec.file.stderr` and `exec.file.exit` events.
//!
//! The interpreter comes from the file's `#!` line first, then from its extension (`.py`
//! python3, `.sh` bash, `.js` node, `.rb` ruby, `.pl` perl, `.ts` deno/tsx/ts-node/bun if one is
//! installed, …). The script runs with the same process runner as `execute_command`: the
//! workspace root as working directory, its own process group, a time-out, no standard input
//! and no provider secrets in its environment.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use keel_events::{
    Emitter, ExecFileExit, ExecFileStart, ExecFileStderr, ExecFileStdout, OutputStream,
};
use tokio_util::sync::CancellationToken;

use crate::process::{self, ProcessError, ProcessSpec, find_program};
use crate::workspace::{PathError, Workspace};

/// Why a file could not be run.
#[derive(Debug, thiserror::Error)]
pub enum FileRunError {
    /// The path is not inside the workspace (or the root is unusable).
    #[error(transparent)]
    Path(#[from] PathError),
    /// An argument holds a NUL character, which no process argument can.
    #[error("argument {arg:?} contains a NUL character")]
    NulInArgument {
        /// The argument.
        arg: String,
    },
    /// The path is not a regular file.
    #[error("`{path}` is not a file")]
    NotAFile {
        /// The path as given.
        path: String,
    },
    /// The file could not be read (to look for a `#!` line).
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The path as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// Neither a `#!` line nor a known extension says how to run it.
    #[error(
        "cannot tell how to run `{path}`: it has no #! line and {what}; known extensions: .py, \
         .sh, .bash, .zsh, .js, .mjs, .cjs, .ts, .rb, .pl, .php, .lua, .r, .go, .ps1, .tcl"
    )]
    UnknownInterpreter {
        /// The path as given.
        path: String,
        /// What about the extension.
        what: String,
    },
    /// The interpreter is not installed.
    #[error("`{path}` needs `{interpreter}`, which is not installed (not found on PATH)")]
    InterpreterMissing {
        /// The path as given.
        path: String,
        /// The interpreter looked for.
        interpreter: String,
    },
    /// A TypeScript file and no TypeScript runner.
    #[error(
        "`{path}` is TypeScript and no TypeScript runner is installed (deno, tsx, ts-node or bun)"
    )]
    NoTypeScriptRunner {
        /// The path as given.
        path: String,
    },
    /// The process could not be started.
    #[error(transparent)]
    Process(#[from] ProcessError),
}

/// A request to run one file.
#[derive(Debug, Clone)]
pub struct FileRun {
    /// The workspace root.
    pub root: PathBuf,
    /// The script, relative to the root (or absolute inside it).
    pub path: String,
    /// Wall-clock limit (the whole process group is killed when it passes).
    pub timeout: Duration,
    /// Time between SIGTERM and SIGKILL.
    pub grace: Duration,
    /// Id shared by the run's events.
    pub run_id: String,
    /// Arguments passed to the script after its path, each as one argv entry (never through a
    /// shell, so nothing in them is expanded or interpreted).
    pub args: Vec<String>,
    /// The sandbox the script runs in; `None` runs it unconfined.
    pub sandbox: Option<std::sync::Arc<keel_sandbox::Sandbox>>,
}

impl FileRun {
    /// Runs `path` under `root` with the default time-out and a fresh run id.
    pub fn new(root: impl Into<PathBuf>, path: impl Into<String>) -> Self {
        Self {
            root: root.into(),
            path: path.into(),
            timeout: process::DEFAULT_TIMEOUT,
            grace: process::DEFAULT_GRACE,
            run_id: format!("run_{}", uuid::Uuid::now_v7().simple()),
            args: Vec::new(),
            sandbox: None,
        }
    }

    /// The same run confined by `sandbox` (`None`: unconfined).
    pub fn with_sandbox(mut self, sandbox: Option<std::sync::Arc<keel_sandbox::Sandbox>>) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The same run with `args` passed to the script (see [`FileRun::args`]).
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// The same run with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same run with another grace period.
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }
}

/// How a file run ended (also reported as `exec.file.exit`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRunOutcome {
    /// Id of the run.
    pub run_id: String,
    /// Workspace-relative path of the script.
    pub file: String,
    /// The command line used (interpreter, file, arguments).
    pub command: Vec<String>,
    /// Exit code; `None` when a signal, the time-out or cancellation ended it.
    pub exit_code: Option<i32>,
    /// Wall time in milliseconds.
    pub duration_ms: u64,
    /// Ended by the time-out.
    pub timed_out: bool,
    /// Ended by cancellation.
    pub cancelled: bool,
    /// What the sandbox stopped, when the run failed and its output shows a sandbox denial
    /// ("blocked by the sandbox: write to /etc/hosts").
    pub blocked: Option<String>,
}

/// The command (interpreter and its arguments, without the file) that runs `file`, chosen by
/// its `#!` line, then its extension. `shown` is the path used in messages.
pub fn interpreter_for(file: &Path, shown: &str) -> Result<Vec<String>, FileRunError> {
    if let Some(line) = shebang(file, shown)? {
        return from_shebang(&line, shown);
    }
    let ext = file
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    let candidates: &[&[&str]] = match ext.as_deref() {
        Some("py" | "pyw") => &[&["python3"], &["python"]],
        Some("sh") => &[&["bash"], &["sh"]],
        Some("bash") => &[&["bash"]],
        Some("zsh") => &[&["zsh"]],
        Some("fish") => &[&["fish"]],
        Some("js" | "mjs" | "cjs") => &[&["node"], &["bun"], &["deno", "run"]],
        Some("ts" | "mts" | "cts") => {
            return first_installed(&[&["deno", "run"], &["tsx"], &["ts-node"], &["bun"]])
                .ok_or_else(|| FileRunError::NoTypeScriptRunner {
                    path: shown.to_owned(),
                });
        }
        Some("rb") => &[&["ruby"]],
        Some("pl") => &[&["perl"]],
        Some("php") => &[&["php"]],
        Some("lua") => &[&["lua"]],
        Some("r") => &[&["Rscript"]],
        Some("go") => &[&["go", "run"]],
        Some("ps1") => &[&["pwsh", "-File"]],
        Some("tcl") => &[&["tclsh"]],
        Some(other) => {
            return Err(FileRunError::UnknownInterpreter {
                path: shown.to_owned(),
                what: format!("its extension `.{other}` is not one Keel knows"),
            });
        }
        None => {
            return Err(FileRunError::UnknownInterpreter {
                path: shown.to_owned(),
                what: "no extension".to_owned(),
            });
        }
    };
    first_installed(candidates).ok_or_else(|| FileRunError::InterpreterMissing {
        path: shown.to_owned(),
        interpreter: candidates[0].join(" "),
    })
}

fn first_installed(candidates: &[&[&str]]) -> Option<Vec<String>> {
    candidates
        .iter()
        .find(|c| find_program(c[0]).is_some())
        .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
}

/// The `#!` line without `#!`, if the file starts with one.
fn shebang(file: &Path, shown: &str) -> Result<Option<String>, FileRunError> {
    let read_err = |source| FileRunError::Read {
        path: shown.to_owned(),
        source,
    };
    let mut head = Vec::with_capacity(512);
    std::fs::File::open(file)
        .map_err(read_err)?
        .take(512)
        .read_to_end(&mut head)
        .map_err(read_err)?;
    let Some(rest) = head.strip_prefix(b"#!") else {
        return Ok(None);
    };
    let line = rest.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line).trim().to_owned();
    Ok((!line.is_empty()).then_some(line))
}

/// Linux's reading of a `#!` line (interpreter and at most one argument), with `env` and
/// `env -S` looked through, and an interpreter path that does not exist here looked up by name
/// on `PATH` (`#!/usr/local/bin/python3` on a system with `/usr/bin/python3`).
fn from_shebang(line: &str, shown: &str) -> Result<Vec<String>, FileRunError> {
    let (interp, arg) = match line.split_once(char::is_whitespace) {
        Some((i, a)) => (i, Some(a.trim())),
        None => (line, None),
    };
    let missing = |name: &str| FileRunError::InterpreterMissing {
        path: shown.to_owned(),
        interpreter: name.to_owned(),
    };
    let base = interp.rsplit('/').next().unwrap_or(interp);
    if base == "env" {
        let words: Vec<&str> = match arg {
            Some(a) => a
                .strip_prefix("-S")
                .map_or(a, str::trim)
                .split_whitespace()
                .collect(),
            None => Vec::new(),
        };
        let Some(program) = words.first() else {
            return Err(missing("env (with no program)"));
        };
        if find_program(program).is_none() {
            return Err(missing(program));
        }
        return Ok(words.iter().map(|w| (*w).to_owned()).collect());
    }
    let program = if Path::new(interp).is_file() {
        interp.to_owned()
    } else if find_program(base).is_some() {
        base.to_owned()
    } else {
        return Err(missing(interp));
    };
    let mut command = vec![program];
    command.extend(arg.filter(|a| !a.is_empty()).map(str::to_owned));
    Ok(command)
}

/// Runs the file, emitting `exec.file.*` events on `emitter`. Errors before the start (bad
/// path, unknown or missing interpreter) emit nothing.
pub async fn run_file(
    request: &FileRun,
    emitter: &Emitter,
    cancel: &CancellationToken,
) -> Result<FileRunOutcome, FileRunError> {
    let workspace = Workspace::new(&request.root)?;
    let resolved = workspace.resolve(&request.path)?;
    if !resolved.is_file() {
        return Err(FileRunError::NotAFile {
            path: request.path.clone(),
        });
    }
    let file = workspace.relative(&resolved);
    if let Some(arg) = request.args.iter().find(|a| a.contains('\0')) {
        return Err(FileRunError::NulInArgument { arg: arg.clone() });
    }
    let mut command = interpreter_for(&resolved, &request.path)?;
    command.push(file.clone());
    command.extend(request.args.iter().cloned());

    let spec = ProcessSpec::new(&command[0], &command[1..], workspace.root())
        .with_timeout(request.timeout)
        .with_grace(request.grace)
        .with_sandbox(request.sandbox.clone());
    emitter.emit(ExecFileStart {
        run_id: request.run_id.clone(),
        file: file.clone(),
        command: command.clone(),
    });
    let run_id = request.run_id.clone();
    let mut on_output = |stream, text: &str| match stream {
        OutputStream::Stdout => {
            emitter.emit(ExecFileStdout {
                run_id: run_id.clone(),
                content: text.to_owned(),
            });
        }
        OutputStream::Stderr => {
            emitter.emit(ExecFileStderr {
                run_id: run_id.clone(),
                content: text.to_owned(),
            });
        }
    };
    let started = std::time::Instant::now();
    let result = process::run(&spec, cancel, &mut on_output).await;
    let (exit_code, timed_out, cancelled, duration, blocked) = match &result {
        Ok(o) => (
            o.exit_code,
            o.timed_out,
            o.cancelled,
            o.duration,
            o.blocked.clone(),
        ),
        Err(_) => (None, false, false, started.elapsed(), None),
    };
    let duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    // The start was reported, so the end is too, even when the interpreter failed to start.
    emitter.emit(ExecFileExit {
        run_id: request.run_id.clone(),
        file: file.clone(),
        exit_code,
        duration_ms,
        timed_out,
    });
    result?;
    Ok(FileRunOutcome {
        run_id: request.run_id.clone(),
        file,
        command,
        exit_code,
        duration_ms,
        timed_out,
        cancelled,
        blocked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn shebang_comes_first() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "x.py", "#!/bin/sh -e\necho hi\n");
        assert_eq!(interpreter_for(&p, "x.py").unwrap(), vec!["/bin/sh", "-e"]);
        let p = script(dir.path(), "y", "#!/usr/bin/env -S sh -eu\n");
        assert_eq!(interpreter_for(&p, "y").unwrap(), vec!["sh", "-eu"]);
        let p = script(dir.path(), "z", "#!/no/such/dir/sh\n");
        assert_eq!(interpreter_for(&p, "z").unwrap(), vec!["sh"]);
    }

    #[test]
    fn extension_next() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "a.sh", "echo hi\n");
        let cmd = interpreter_for(&p, "a.sh").unwrap();
        assert!(cmd == ["bash"] || cmd == ["sh"], "{cmd:?}");
        let p = script(dir.path(), "a.pl", "print 1\n");
        assert_eq!(interpreter_for(&p, "a.pl").unwrap(), vec!["perl"]);
    }

    #[test]
    fn unknown_and_missing_are_clear() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "data.xyz", "x");
        let err = interpreter_for(&p, "data.xyz").unwrap_err().to_string();
        assert!(
            err.contains("`.xyz`") && err.contains("no #! line"),
            "{err}"
        );
        let p = script(dir.path(), "README", "x");
        assert!(
            interpreter_for(&p, "README")
                .unwrap_err()
                .to_string()
                .contains("no extension")
        );
        let p = script(dir.path(), "m", "#!/usr/bin/env keel-no-such-interpreter\n");
        let err = interpreter_for(&p, "m").unwrap_err().to_string();
        assert!(
            err.contains("`keel-no-such-interpreter`, which is not installed"),
            "{err}"
        );
    }
}
