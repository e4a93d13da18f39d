//! The child process runner: exit codes, streaming, output cap, time-out and cancellation that
//! kill the whole process group, no standard input, and a scrubbed environment.

use std::ffi::OsString;
use std::time::{Duration, Instant};

use keel_events::OutputStream;
use keel_test_support::processes::group_gone_within;
use keel_tools::process::{ProcessError, ProcessSpec, run};
use tokio_util::sync::CancellationToken;

/// Waits up to 3 s for the group to be empty.
async fn assert_group_gone(pgid: i32) {
    if let Err(live) = group_gone_within(pgid, Duration::from_secs(3)).await {
        panic!("processes of group {pgid} survive: {live:?}");
    }
}

/// The `pgid=N` line the test scripts print first.
fn pgid_of(output: &str) -> i32 {
    output
        .lines()
        .find_map(|l| l.strip_prefix("pgid="))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no pgid line in {output:?}"))
}

#[tokio::test]
async fn exit_code_output_and_streams() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ProcessSpec::shell("echo hello; echo oops >&2; exit 3", dir.path());
    let mut chunks = Vec::new();
    let outcome = run(&spec, &CancellationToken::new(), &mut |s, t| {
        chunks.push((s, t.to_owned()))
    })
    .await
    .unwrap();
    assert_eq!(outcome.exit_code, Some(3));
    assert!(!outcome.succeeded());
    assert!(outcome.output.contains("hello\n") && outcome.output.contains("oops\n"));
    assert!(
        chunks.contains(&(OutputStream::Stdout, "hello\n".to_owned())),
        "{chunks:?}"
    );
    assert!(
        chunks.contains(&(OutputStream::Stderr, "oops\n".to_owned())),
        "{chunks:?}"
    );
    assert_eq!(outcome.describe(spec.timeout), "exit code 3");
}

#[tokio::test]
async fn runs_in_the_workspace_with_no_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let spec =
        ProcessSpec::shell("pwd; cat; echo after-cat", &root).with_timeout(Duration::from_secs(10));
    let outcome = run(&spec, &CancellationToken::new(), &mut |_, _| {})
        .await
        .unwrap();
    assert!(outcome.succeeded(), "{outcome:?}");
    assert_eq!(outcome.output, format!("{}\nafter-cat\n", root.display()));
}

#[tokio::test]
async fn output_arrives_while_the_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ProcessSpec::shell("echo one; sleep 1; echo two", dir.path());
    let started = Instant::now();
    let mut seen = Vec::new();
    let outcome = run(&spec, &CancellationToken::new(), &mut |_, t| {
        seen.push((started.elapsed(), t.to_owned()))
    })
    .await
    .unwrap();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].1, "one\n");
    assert!(
        seen[0].0 + Duration::from_millis(500) < outcome.duration,
        "{seen:?} {outcome:?}"
    );
}

#[tokio::test]
async fn output_is_capped_keeping_head_and_tail() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ProcessSpec::shell(
        "echo START; head -c 200000 /dev/zero | tr '\\0' a; echo; echo END",
        dir.path(),
    )
    .with_output_cap(1000);
    let mut streamed = 0usize;
    let outcome = run(&spec, &CancellationToken::new(), &mut |_, t| {
        streamed += t.len()
    })
    .await
    .unwrap();
    assert_eq!(outcome.output_bytes, 200_011);
    assert_eq!(streamed, 200_011, "streaming is not capped");
    assert!(outcome.output_cut > 199_000);
    assert!(outcome.output.starts_with("START\n"));
    assert!(outcome.output.trim_end().ends_with("END"));
    assert!(
        outcome.output.contains("bytes of output cut"),
        "{}",
        outcome.output
    );
    assert!(outcome.output.len() < 1200);
}

#[tokio::test]
async fn time_out_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ProcessSpec::shell(
        "echo pgid=$$; sleep 1000 & sleep 1000 & (sleep 1000 &) ; trap '' TERM; sleep 1000",
        dir.path(),
    )
    .with_timeout(Duration::from_secs(1))
    .with_grace(Duration::from_millis(300));
    let outcome = run(&spec, &CancellationToken::new(), &mut |_, _| {})
        .await
        .unwrap();
    assert!(outcome.timed_out, "{outcome:?}");
    assert_eq!(outcome.exit_code, None);
    assert!(outcome.duration < Duration::from_secs(8), "{outcome:?}");
    assert!(
        outcome
            .describe(spec.timeout)
            .starts_with("timed out after 1 s")
    );
    assert_group_gone(pgid_of(&outcome.output)).await;
}

#[tokio::test]
async fn cancellation_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ProcessSpec::shell("echo pgid=$$; sleep 1000 & sleep 1000", dir.path())
        .with_grace(Duration::from_millis(300));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(400)).await;
        trigger.cancel();
    });
    let outcome = run(&spec, &cancel, &mut |_, _| {}).await.unwrap();
    assert!(outcome.cancelled && !outcome.timed_out, "{outcome:?}");
    assert!(outcome.duration < Duration::from_secs(8));
    assert_group_gone(pgid_of(&outcome.output)).await;
}

#[tokio::test]
async fn background_children_do_not_outlive_the_command() {
    let dir = tempfile::tempdir().unwrap();
    // One holds the output pipes open, one does not.
    let spec = ProcessSpec::shell(
        "echo pgid=$$; sleep 1000 & sleep 1000 >/dev/null 2>&1 & echo done",
        dir.path(),
    );
    let outcome = run(&spec, &CancellationToken::new(), &mut |_, _| {})
        .await
        .unwrap();
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    assert!(outcome.duration < Duration::from_secs(5), "{outcome:?}");
    assert!(outcome.output.contains("done"));
    assert_group_gone(pgid_of(&outcome.output)).await;
}

#[tokio::test]
async fn provider_secrets_are_not_passed_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let env = vec![
        (OsString::from("PATH"), path),
        (OsString::from("OPENAI_API_KEY"), OsString::from("sk-one")),
        (
            OsString::from("ANTHROPIC_API_KEY"),
            OsString::from("sk-two"),
        ),
        (OsString::from("GITHUB_TOKEN"), OsString::from("ghp")),
        (OsString::from("my_secret_thing"), OsString::from("s")),
        (OsString::from("KEEP_ME"), OsString::from("kept")),
    ];
    let spec = ProcessSpec::shell("env", dir.path()).with_env(env);
    let outcome = run(&spec, &CancellationToken::new(), &mut |_, _| {})
        .await
        .unwrap();
    assert!(
        outcome.output.contains("KEEP_ME=kept"),
        "{}",
        outcome.output
    );
    for secret in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GITHUB_TOKEN",
        "my_secret_thing",
        "sk-one",
    ] {
        assert!(!outcome.output.contains(secret), "{secret} leaked");
    }
}

#[tokio::test]
async fn missing_program_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ProcessSpec::new("keel-no-such-program-xyz", Vec::<String>::new(), dir.path());
    let err = run(&spec, &CancellationToken::new(), &mut |_, _| {})
        .await
        .unwrap_err();
    assert!(matches!(err, ProcessError::Spawn { .. }));
    assert!(
        err.to_string().contains("keel-no-such-program-xyz"),
        "{err}"
    );
}
