//! Whole task runs with a small shell "agent" (`--agent-cmd`): solved and unsolved tasks, a
//! question checked from the answer, and every kind of bad input ending as a clear error for
//! its task while the suite goes on.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use keel_eval::{
    Agent, EvalSettings, Outcome, Quiet, ResultsFile, TaskResult, discover, read_results, run_suite,
};
use keel_test_support::mock_openai::{
    MockServer, Reply, content, done, finish, role, usage_cached,
};
use tokio_util::sync::CancellationToken;

use crate::common::{TaskDir, VALUE_IS_2};

/// The shell agent: what it does depends on words of the task.
const AGENT: &str = r#"
case "$KEEL_EVAL_TASK" in
  *two*) echo 2 > value.txt; echo "made it two" > notes.md
    mkdir -p .keel sub/__pycache__ .aider.tags.cache.v4
    touch .keel/keel.db sub/__pycache__/x.pyc .aider.chat.history.md .aider.tags.cache.v4/t ;;
esac
case "$KEEL_EVAL_TASK" in
  *question*) printf '\033[1mThe answer is forty-two.\033[0m\n' ;;
esac
case "$KEEL_EVAL_TASK" in
  *model*) for i in 1 2; do
      curl -s -o /dev/null -H 'content-type: application/json' \
        -d '{"model":"'"$KEEL_EVAL_MODEL"'","stream":true,"messages":[{"role":"user","content":"hi"}]}' \
        "$KEEL_EVAL_BASE_URL/chat/completions"
    done ;;
esac
case "$KEEL_EVAL_TASK" in
  *hang*) sleep 30 ;;
  *slow*) sleep 1.5 ;;
esac
echo "to stderr" >&2
echo "done: $(cat "$KEEL_EVAL_TASK_FILE")"
"#;

fn settings(upstream: &str, out: &Path) -> EvalSettings {
    EvalSettings {
        agent: Agent::Command(AGENT.to_owned()),
        label: "sh".to_owned(),
        upstream: upstream.to_owned(),
        model: Some("test-model".to_owned()),
        cap: Duration::from_secs(3),
        check_timeout: Duration::from_secs(2),
        keep: false,
        runs_dir: out.join("runs"),
    }
}

/// An upstream that refuses connections.
fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/v1", listener.local_addr().unwrap())
}

async fn run(suite: &Path, settings: &EvalSettings, jobs: usize) -> Vec<TaskResult> {
    let tasks = discover(&[suite.to_path_buf()]).unwrap();
    let out = settings.runs_dir.parent().unwrap().join("results.jsonl");
    let mut file = ResultsFile::open(&out).unwrap();
    let run = run_suite(
        &tasks,
        settings,
        jobs,
        &mut file,
        &Quiet,
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert!(!run.interrupted);
    assert_eq!(read_results(&out).unwrap().len(), run.results.len());
    run.results
}

fn by_name<'a>(results: &'a [TaskResult], name: &str) -> &'a TaskResult {
    results
        .iter()
        .find(|r| r.task == name)
        .unwrap_or_else(|| panic!("no result for {name}: {results:#?}"))
}

fn log(result: &TaskResult, file: &str) -> String {
    std::fs::read_to_string(PathBuf::from(&result.log_dir).join(file))
        .unwrap_or_else(|e| panic!("{file} of {}: {e}", result.task))
}

/// A file the copy cannot read: mode 000, or — when this user reads it anyway (root) — a
/// FIFO, which the copy refuses. Returns the file's name.
fn unreadable_file(repo: &Path) -> &'static str {
    let locked = repo.join("secret.txt");
    std::fs::write(&locked, "x").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_err() {
        return "secret.txt";
    }
    std::fs::remove_file(&locked).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(repo.join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    "pipe"
}

#[tokio::test]
async fn good_and_bad_tasks_each_get_their_result_and_the_suite_goes_on() {
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join("suite");
    TaskDir::new(&suite, "solved", "make the value two")
        .check(VALUE_IS_2)
        .file(
            "task.toml",
            "language = \"text\"\nkind = \"fix-test\"\ntest_cmd = \"true\"\n",
        );
    TaskDir::new(&suite, "unsolved", "leave it").check(VALUE_IS_2);
    TaskDir::new(&suite, "question", "a question: what is the answer?").check(
        r#"grep -q "^The answer is forty-two.$" "$KEEL_EVAL_ANSWER" && test -d "$KEEL_EVAL_TASK_DIR""#,
    );
    TaskDir::new(&suite, "no-check", "make the value two");
    let copy_fails = TaskDir::new(&suite, "copy-fails", "make the value two").check(VALUE_IS_2);
    let bad_file = unreadable_file(&copy_fails.dir.join("repo"));
    TaskDir::new(&suite, "check-hangs", "make the value two").check("sleep 30");
    TaskDir::new(&suite, "agent-hangs", "hang").check(VALUE_IS_2);
    TaskDir::new(&suite, "endpoint-down", "call the model").check(VALUE_IS_2);

    let upstream = closed_port_url();
    let settings = settings(&upstream, root.path());
    let results = run(&suite, &settings, 1).await;
    assert_eq!(results.len(), 8);

    let solved = by_name(&results, "solved");
    assert_eq!((solved.outcome, solved.solved), (Outcome::Solved, true));
    assert_eq!(solved.error, None);
    assert_eq!(solved.language.as_deref(), Some("text"));
    assert_eq!(solved.kind.as_deref(), Some("fix-test"));
    assert_eq!(
        (solved.agent.as_str(), solved.suite.as_str()),
        ("sh", "suite")
    );
    assert_eq!(solved.model.as_deref(), Some("test-model"));
    assert_eq!(solved.ended.as_deref(), Some("exit 0"));
    assert_eq!(solved.check_exit, Some(0));
    assert_eq!(
        solved.files_changed.as_deref(),
        Some(&["notes.md".to_owned(), "value.txt".to_owned()][..])
    );
    assert_eq!((solved.tool_calls, solved.tool_errors), (None, None));
    assert_eq!(solved.model_calls, 0);
    let diff = log(solved, "diff.patch");
    assert!(
        diff.contains("-1\n+2") && diff.contains("+made it two"),
        "{diff}"
    );
    assert_eq!(log(solved, "answer.txt"), "done: make the value two");
    assert!(log(solved, "agent.log").contains("to stderr"));
    assert_eq!(log(solved, "stderr.log"), "to stderr\n");
    assert_eq!(log(solved, "task.txt"), "make the value two");
    assert!(!PathBuf::from(&solved.log_dir).join("project").exists());

    let unsolved = by_name(&results, "unsolved");
    assert_eq!(
        (unsolved.outcome, unsolved.solved),
        (Outcome::Unsolved, false)
    );
    assert_eq!(unsolved.check_exit, Some(1));
    assert_eq!(unsolved.files_changed.as_deref(), Some(&[][..]));

    let question = by_name(&results, "question");
    assert_eq!(question.outcome, Outcome::Solved, "{question:#?}");
    assert_eq!(
        log(question, "answer.txt"),
        "The answer is forty-two.\ndone: a question: what is the answer?"
    );

    let no_check = by_name(&results, "no-check");
    assert_eq!(no_check.outcome, Outcome::Error);
    let dir = suite.join("no-check");
    assert_eq!(
        no_check.error.as_deref(),
        Some(format!("no check.sh in {}", dir.display()).as_str())
    );

    let copy_failed = by_name(&results, "copy-fails");
    assert_eq!(copy_failed.outcome, Outcome::Error);
    let error = copy_failed.error.clone().unwrap();
    let bad_path = suite.join("copy-fails/repo").join(bad_file);
    assert!(
        error.starts_with(&format!("cannot copy {}: ", bad_path.display())),
        "{error}"
    );
    assert!(
        error.contains("Permission denied") || error.contains("a FIFO"),
        "{error}"
    );

    let check_hangs = by_name(&results, "check-hangs");
    assert_eq!(check_hangs.outcome, Outcome::Error);
    assert_eq!(
        check_hangs.error.as_deref(),
        Some("check.sh did not finish in 2 s")
    );
    assert!(check_hangs.check_secs.unwrap() < 5.0);

    let agent_hangs = by_name(&results, "agent-hangs");
    assert_eq!(agent_hangs.outcome, Outcome::Cap);
    assert_eq!(agent_hangs.ended.as_deref(), Some("cap after 3 s"));
    assert!(
        (3.0..6.0).contains(&agent_hangs.wall_secs),
        "{agent_hangs:#?}"
    );

    let down = by_name(&results, "endpoint-down");
    assert_eq!(down.outcome, Outcome::Error);
    assert_eq!(down.model_calls, 2);
    let error = down.error.clone().unwrap();
    assert!(
        error.starts_with(&format!(
            "the model endpoint at {upstream} did not answer: "
        )),
        "{error}"
    );
    assert_eq!(log(down, "calls.jsonl").lines().count(), 2);
}

#[tokio::test]
async fn two_jobs_run_at_once_each_metered_by_its_own_proxy() {
    let mock = MockServer::start(|_, _| {
        Reply::Sse(vec![
            role(),
            content("hi"),
            finish("stop"),
            usage_cached(100, 5, 40),
            done(),
        ])
    })
    .await;
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join("suite");
    TaskDir::new(&suite, "first", "call the model, slow").check(VALUE_IS_2);
    TaskDir::new(&suite, "second", "call the model, slow, make it two").check(VALUE_IS_2);
    let settings = settings(&mock.base_url, root.path());
    let started = Instant::now();
    let results = run(&suite, &settings, 2).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(2900),
        "two 1.5 s tasks took {took:?} with two jobs"
    );
    assert_eq!(
        results.iter().map(|r| r.task.as_str()).collect::<Vec<_>>(),
        ["first", "second"]
    );
    for result in &results {
        assert_eq!(result.model_calls, 2, "{result:#?}");
        assert_eq!(result.prompt_tokens, Some(200));
        assert_eq!(result.cached_tokens, Some(80));
        assert_eq!(result.completion_tokens, Some(10));
        assert_eq!(result.first_request_tokens, Some(100));
        assert!(result.first_token_secs.is_some());
    }
    assert_eq!(by_name(&results, "second").outcome, Outcome::Solved);
    assert_eq!(mock.requests().len(), 4);
}

#[tokio::test]
async fn keep_leaves_the_project_under_the_run_folder() {
    let root = tempfile::tempdir().unwrap();
    let suite = root.path().join("suite");
    TaskDir::new(&suite, "kept", "make the value two").check(VALUE_IS_2);
    let mut settings = settings(&closed_port_url(), root.path());
    settings.keep = true;
    let results = run(&suite, &settings, 1).await;
    let project = PathBuf::from(&results[0].log_dir).join("project");
    assert_eq!(
        std::fs::read_to_string(project.join("value.txt")).unwrap(),
        "2\n"
    );
    assert!(project.join(".git").is_dir());
}
