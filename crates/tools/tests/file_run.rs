//! File runs: interpreter choice, `exec.file.*` events, exit code, duration, time-out and path
//! confinement.

use std::time::Duration;

use keel_events::{Bus, Delivery, Emitter, EventKind, Sequencer};
use keel_tools::file_run::{FileRun, FileRunError, run_file};
use tokio_util::sync::CancellationToken;

fn emitter() -> (Emitter, keel_events::Subscription) {
    let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::default());
    let sub = emitter.bus().subscribe();
    (emitter, sub)
}

fn drain(sub: &mut keel_events::Subscription) -> Vec<EventKind> {
    let mut out = Vec::new();
    while let Some(Delivery::Event(e)) = sub.try_recv() {
        out.push(e.kind.clone());
    }
    out
}

#[tokio::test]
async fn python_script_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("scripts")).unwrap();
    std::fs::write(
        dir.path().join("scripts/hello.py"),
        "import sys\nprint('hello from python')\nprint('warned', file=sys.stderr)\nsys.exit(3)\n",
    )
    .unwrap();
    let (emitter, mut sub) = emitter();
    let request = FileRun::new(dir.path(), "scripts/hello.py");
    let outcome = run_file(&request, &emitter, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.exit_code, Some(3));
    assert_eq!(outcome.file, "scripts/hello.py");
    assert_eq!(
        outcome.command.last().map(String::as_str),
        Some("scripts/hello.py")
    );
    assert!(!outcome.timed_out);

    let events = drain(&mut sub);
    let EventKind::ExecFileStart(start) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(start.run_id, request.run_id);
    assert_eq!(start.file, "scripts/hello.py");
    assert!(
        start.command[0].starts_with("python"),
        "{:?}",
        start.command
    );
    let stdout: String = events
        .iter()
        .filter_map(|e| match e {
            EventKind::ExecFileStdout(o) => Some(o.content.clone()),
            _ => None,
        })
        .collect();
    let stderr: String = events
        .iter()
        .filter_map(|e| match e {
            EventKind::ExecFileStderr(o) => Some(o.content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(stdout, "hello from python\n");
    assert_eq!(stderr, "warned\n");
    let EventKind::ExecFileExit(exit) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(exit.exit_code, Some(3));
    assert_eq!(exit.file, "scripts/hello.py");
    assert!(!exit.timed_out);
    assert_eq!(exit.duration_ms, outcome.duration_ms);
}

#[tokio::test]
async fn shebang_wins_over_extension() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("run.py"),
        "#!/bin/sh\necho \"shell here: $0\"\n",
    )
    .unwrap();
    let (emitter, mut sub) = emitter();
    let outcome = run_file(
        &FileRun::new(dir.path(), "run.py"),
        &emitter,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(outcome.command, vec!["/bin/sh", "run.py"]);
    let out: String = drain(&mut sub)
        .into_iter()
        .filter_map(|e| match e {
            EventKind::ExecFileStdout(o) => Some(o.content),
            _ => None,
        })
        .collect();
    assert_eq!(out, "shell here: run.py\n");
}

#[tokio::test]
async fn time_out_ends_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("slow.sh"),
        "echo started\nsleep 30 &\nsleep 30\n",
    )
    .unwrap();
    let (emitter, mut sub) = emitter();
    let request = FileRun::new(dir.path(), "slow.sh")
        .with_timeout(Duration::from_millis(500))
        .with_grace(Duration::from_millis(200));
    let outcome = run_file(&request, &emitter, &CancellationToken::new())
        .await
        .unwrap();
    assert!(outcome.timed_out);
    assert_eq!(outcome.exit_code, None);
    assert!(outcome.duration_ms < 8000);
    let EventKind::ExecFileExit(exit) = drain(&mut sub).pop().unwrap() else {
        panic!()
    };
    assert!(exit.timed_out);
    assert_eq!(exit.exit_code, None);
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (emitter, mut sub) = emitter();
    let err = run_file(
        &FileRun::new(dir.path(), "../../etc/passwd"),
        &emitter,
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, FileRunError::Path(_)), "{err}");
    let err = run_file(
        &FileRun::new(dir.path(), "/etc/hostname"),
        &emitter,
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("outside the workspace"), "{err}");
    assert!(drain(&mut sub).is_empty());
}

#[tokio::test]
async fn unknown_interpreter_and_missing_file_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let (emitter, mut sub) = emitter();
    let err = run_file(
        &FileRun::new(dir.path(), "notes.txt"),
        &emitter,
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, FileRunError::UnknownInterpreter { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("`.txt`"), "{err}");
    let err = run_file(
        &FileRun::new(dir.path(), "nope.py"),
        &emitter,
        &CancellationToken::new(),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, FileRunError::NotAFile { .. }), "{err}");
    assert!(drain(&mut sub).is_empty());
}

#[tokio::test]
async fn arguments_reach_the_script_as_argv_untouched() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("args.sh"),
        "for a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\n",
    )
    .unwrap();
    let (emitter, mut sub) = emitter();
    let args = ["one two", "$HOME", "; touch pwned", "*", ""];
    let request = FileRun::new(dir.path(), "args.sh").with_args(args);
    let outcome = run_file(&request, &emitter, &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(&outcome.command[outcome.command.len() - 6..], {
        let mut tail = vec!["args.sh".to_owned()];
        tail.extend(args.iter().map(|a| a.to_string()));
        tail
    });
    let stdout: String = drain(&mut sub)
        .iter()
        .filter_map(|e| match e {
            EventKind::ExecFileStdout(o) => Some(o.content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(stdout, "<one two>\n<$HOME>\n<; touch pwned>\n<*>\n<>\n");
    assert!(!dir.path().join("pwned").exists());

    let bad = FileRun::new(dir.path(), "args.sh").with_args(["a\0b"]);
    assert!(matches!(
        run_file(&bad, &emitter, &CancellationToken::new()).await,
        Err(FileRunError::NulInArgument { .. })
    ));
}
