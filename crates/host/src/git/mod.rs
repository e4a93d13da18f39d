//! Git as part of the work (issue 27 §5), through the `git` command line, the same for every
//! front end.
//!
//! - **A commit per turn** (`--commit`, keel.toml `[git] commit = "turn"`): after each turn that
//!   completed and changed files, one commit of exactly those files ([`commit`]: new files,
//!   deletions and both sides of a move included; never a path that already differed from HEAD
//!   when the turn began — the user's change is named in a `system.log` warning and left
//!   uncommitted; whatever else the user staged stays staged). The message is written by the
//!   model in one side call (`run.usage.report{purpose: commit_message}`) from the turn's
//!   request, answer and diff stat, or without it ([`message`]), and ends with [`TRAILER`].
//!   A turn that failed, was cancelled or ran out of iterations is not committed: its changes
//!   stay in the work tree (and, differing from HEAD, count as not Keel's at the next turn).
//! - **`--branch NAME`**: a new branch made at HEAD and switched to before the first turn
//!   ([`branch`]: an existing branch only when it is checked out or at HEAD's commit).
//! - **A pull request** (`keel run --pr`, the HTTP session option `pull_request`; seed 004's
//!   `pull_request`): commits as above, then pushes the branch and opens the pull request
//!   ([`pull_request`]), its title and description from one side call
//!   (`purpose: pull_request`) or from the commits.
//!
//! What happens is said on the session's stream as `system.log` events (no `turn_id`: they
//! come after the turn's `agent.end`), whose `metadata.git` says which step: `commit` (with
//! `commit`, `branch`, `files`, `message_by`), `skipped` (`files`), `pull_request` (`branch`,
//! `remote`, `url`, `via`: `gh`, `compare` or `push`).

mod branch;
mod command;
mod commit;
mod error;
pub mod message;
mod pull_request;
pub mod remote;
mod status;

use keel_engine::AgentSession;
use keel_events::{AgentStatus, CallPurpose, LogLevel, SystemLog};
use serde_json::json;

pub use branch::Head;
pub use command::Git;
pub use error::GitError;
pub use message::{PullRequestText, TRAILER};
pub use pull_request::{Opened, PullRequest};

use commit::TurnStart;
use pull_request::Target;

/// What git work a session does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitOptions {
    /// Commit each turn's changes (`--commit`, `[git] commit = "turn"`).
    pub commit: bool,
    /// Work on this branch, made at HEAD before the first turn (`--branch NAME`).
    pub branch: Option<String>,
    /// Push the branch and open a pull request (`--pr`, `pull_request`); implies `commit`.
    pub pull_request: bool,
}

impl GitOptions {
    /// Whether any git work is asked for.
    pub fn any(&self) -> bool {
        self.commit || self.pull_request || self.branch.is_some()
    }

    /// Whether turns are committed.
    pub fn commits(&self) -> bool {
        self.commit || self.pull_request
    }
}

/// `[git] commit`: when Keel commits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CommitWhen {
    /// Never (the default).
    #[default]
    Off,
    /// After each turn that changed files.
    Turn,
}

/// A `[git] commit` value that is not `turn` or `off`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown commit setting `{0}` (expected turn or off)")]
pub struct UnknownCommitWhen(pub String);

impl std::str::FromStr for CommitWhen {
    type Err = UnknownCommitWhen;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "turn" => Ok(CommitWhen::Turn),
            "off" => Ok(CommitWhen::Off),
            other => Err(UnknownCommitWhen(other.to_owned())),
        }
    }
}

impl CommitWhen {
    /// The name in keel.toml.
    pub fn as_str(self) -> &'static str {
        match self {
            CommitWhen::Off => "off",
            CommitWhen::Turn => "turn",
        }
    }
}

/// A commit Keel made of a turn's changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnCommit {
    /// The commit id.
    pub id: String,
    /// The branch it is on.
    pub branch: String,
    /// Its message.
    pub message: String,
    /// The files it holds (repository-relative).
    pub files: Vec<String>,
    /// Whether the model wrote the message (else it was made from the turn).
    pub by_model: bool,
}

/// A session's git work: prepared before its first turn, then around each turn.
#[derive(Debug)]
pub struct GitWork {
    git: Git,
    options: GitOptions,
    /// The session root's path inside the repository (`sub/dir/`, or empty).
    prefix: String,
    /// HEAD's commit when the work was prepared: a pull request proposes what came after.
    base_commit: String,
    /// The work tree as the running turn began.
    start: Option<TurnStart>,
    /// The commits made so far.
    commits: Vec<TurnCommit>,
    /// The pull request opened, once it is.
    pull_request: Option<PullRequest>,
}

impl GitWork {
    /// Prepares git work for the session rooted at `root`: `None` when none is asked for;
    /// otherwise checks the repository, switches to `options.branch`, and with
    /// `options.pull_request` refuses what a pull request cannot come from (see
    /// [`pull_request`]) — all before any turn runs.
    pub async fn prepare(
        root: &std::path::Path,
        options: GitOptions,
    ) -> Result<Option<Self>, GitError> {
        if !options.any() {
            return Ok(None);
        }
        let here = Git::new(root);
        branch::check_repository(&here).await?;
        let top = here.run(&["rev-parse", "--show-toplevel"]).await?;
        let prefix = here
            .run(&["rev-parse", "--show-prefix"])
            .await?
            .trim()
            .to_owned();
        let git = Git::new(std::path::Path::new(top.trim()));
        let head = branch::head(&git).await?;
        if let Some(name) = &options.branch {
            branch::switch_to(&git, name).await?;
        } else if options.commits() {
            // Commits need a branch to be on.
            branch::current_branch(&git).await?;
        }
        if options.pull_request {
            pull_request::check(&git).await?;
        }
        Ok(Some(Self {
            git,
            options,
            prefix,
            base_commit: head.commit,
            start: None,
            commits: Vec::new(),
            pull_request: None,
        }))
    }

    /// The options it was prepared with.
    pub fn options(&self) -> &GitOptions {
        &self.options
    }

    /// The commits made so far, oldest first.
    pub fn commits(&self) -> &[TurnCommit] {
        &self.commits
    }

    /// Records the work tree as a turn begins (which paths are already the user's changes).
    /// A failure is a `system.log` warning, and that turn is not committed.
    pub async fn before_turn(&mut self, agent: &AgentSession) {
        if !self.options.commits() {
            return;
        }
        match commit::snapshot(&self.git).await {
            Ok(start) => self.start = Some(start),
            Err(e) => {
                self.start = None;
                log(
                    agent,
                    LogLevel::Warn,
                    format!("git: the turn's changes will not be committed: {e}"),
                    json!({"git": "error"}),
                );
            }
        }
    }

    /// After a turn: commits what it changed (see the [module documentation](self)) and says
    /// so on the stream; `None` when nothing was committed.
    pub async fn after_turn(&mut self, agent: &mut AgentSession, task: &str) -> Option<TurnCommit> {
        let start = self.start.take()?;
        let outcome = agent.last_outcome()?.clone();
        if outcome.files_changed.is_empty() {
            return None;
        }
        if outcome.status != AgentStatus::Completed {
            log(
                agent,
                LogLevel::Warn,
                format!(
                    "git: not committed: the turn did not complete ({}); its changes stay in the work tree",
                    status_name(outcome.status)
                ),
                json!({"git": "not_committed", "files": outcome.files_changed}),
            );
            return None;
        }
        let files: Vec<String> = outcome
            .files_changed
            .iter()
            .map(|f| format!("{}{f}", self.prefix))
            .collect();
        match self
            .commit_turn(agent, &start, &files, task, &outcome.result)
            .await
        {
            Ok(commit) => commit,
            Err(e) => {
                log(
                    agent,
                    LogLevel::Error,
                    format!("git: the turn's changes were not committed: {e}"),
                    json!({"git": "error"}),
                );
                None
            }
        }
    }

    async fn commit_turn(
        &mut self,
        agent: &mut AgentSession,
        start: &TurnStart,
        files: &[String],
        task: &str,
        answer: &str,
    ) -> Result<Option<TurnCommit>, GitError> {
        let selection = commit::select(&self.git, start, files).await?;
        if !selection.skipped.is_empty() {
            log(
                agent,
                LogLevel::Warn,
                format!(
                    "git: not committed, changed before the turn began (left to you): {}",
                    selection.skipped.join(", ")
                ),
                json!({"git": "skipped", "files": selection.skipped}),
            );
        }
        if selection.commit.is_empty() {
            return Ok(None);
        }
        commit::intend(&self.git, &selection).await?;
        let made = self.write_and_commit(agent, &selection, task, answer).await;
        if made.is_err() {
            commit::unintend(&self.git, &selection).await;
        }
        let (id, message, by_model) = made?;
        let branch = branch::current_branch(&self.git).await?;
        let subject = message.lines().next().unwrap_or("").to_owned();
        log(
            agent,
            LogLevel::Info,
            format!(
                "git: committed {} on {branch}: {subject} ({} file{})",
                branch::short(&id),
                selection.commit.len(),
                if selection.commit.len() == 1 { "" } else { "s" }
            ),
            json!({
                "git": "commit",
                "commit": id,
                "branch": branch,
                "files": selection.commit,
                "message_by": if by_model { "model" } else { "keel" },
            }),
        );
        let commit = TurnCommit {
            id,
            branch,
            message,
            files: selection.commit,
            by_model,
        };
        self.commits.push(commit.clone());
        Ok(Some(commit))
    }

    async fn write_and_commit(
        &self,
        agent: &mut AgentSession,
        selection: &commit::Selection,
        task: &str,
        answer: &str,
    ) -> Result<(String, String, bool), GitError> {
        let stat = commit::diff_stat(&self.git, selection).await?;
        let turn = message::TurnText {
            task,
            answer,
            files: &selection.commit,
            stat: &stat,
        };
        let written = match agent
            .side_call(CallPurpose::CommitMessage, message::commit_prompt(&turn))
            .await
        {
            Ok(answer) => message::commit_from_model(&answer),
            Err(keel_engine::SideCallError::Declined) => None,
            Err(e) => {
                log(
                    agent,
                    LogLevel::Warn,
                    format!("git: the commit message is made from the turn: {e}"),
                    json!({"git": "message"}),
                );
                None
            }
        };
        let (message, by_model) = match written {
            Some(message) => (message, true),
            None => (message::commit_fallback(&turn), false),
        };
        let id = commit::commit(&self.git, selection, &message).await?;
        Ok((id, message, by_model))
    }

    /// Pushes the branch and opens its pull request (once; later calls push and name the one
    /// opened), saying so on the stream. Refused, before pushing anything, on what
    /// [`pull_request`] refuses, and when the session committed nothing.
    pub async fn open_pull_request(
        &mut self,
        agent: &mut AgentSession,
    ) -> Result<PullRequest, GitError> {
        let result = self.push_and_open(agent).await;
        if let Err(e) = &result {
            log(
                agent,
                LogLevel::Error,
                format!("git: {e}"),
                json!({"git": "pull_request_refused"}),
            );
        }
        result
    }

    async fn push_and_open(&mut self, agent: &mut AgentSession) -> Result<PullRequest, GitError> {
        let target = pull_request::check(&self.git).await?;
        let commits = pull_request::commits(&self.git, &self.base_commit).await?;
        if commits.is_empty() || self.commits.is_empty() {
            return Err(GitError::NothingToPropose(target.branch));
        }
        let push = pull_request::push(&self.git, &target).await?;
        if let Some(opened) = &self.pull_request {
            let opened = PullRequest {
                push,
                ..opened.clone()
            };
            log(
                agent,
                LogLevel::Info,
                format!("git: pushed {}; {}", opened.push, opened.summary()),
                pr_metadata(&opened),
            );
            return Ok(opened);
        }
        let text = self.pull_request_text(agent, &target, &commits).await?;
        let opened = if pull_request::gh_ready(&self.git).await {
            Opened::Gh(pull_request::gh_create(&self.git, &target, &text).await?)
        } else {
            let url = remote::url(&self.git, &target.remote).await?;
            match remote::compare_url(&url, &target.branch) {
                Some(url) => Opened::Compare(url),
                None => Opened::Pushed,
            }
        };
        let opened = PullRequest {
            branch: target.branch,
            remote: target.remote,
            push,
            opened,
            text,
        };
        log(
            agent,
            LogLevel::Info,
            format!("git: pushed {}; {}", opened.push, opened.summary()),
            pr_metadata(&opened),
        );
        self.pull_request = Some(opened.clone());
        Ok(opened)
    }

    async fn pull_request_text(
        &self,
        agent: &mut AgentSession,
        target: &Target,
        commits: &[(String, String)],
    ) -> Result<PullRequestText, GitError> {
        let log_text: String = commits
            .iter()
            .map(|(s, b)| format!("- {s}\n{b}\n"))
            .collect();
        let stat = self
            .git
            .run(&["diff", "--stat=100", &self.base_commit, "HEAD"])
            .await?;
        let answer = agent
            .side_call(
                CallPurpose::PullRequest,
                message::pull_request_prompt(&target.branch, &log_text, &stat),
            )
            .await;
        Ok(answer
            .ok()
            .and_then(|a| message::pull_request_from_model(&a))
            .unwrap_or_else(|| message::pull_request_fallback(&target.branch, commits)))
    }
}

fn pr_metadata(opened: &PullRequest) -> serde_json::Value {
    let via = match opened.opened {
        Opened::Gh(_) => "gh",
        Opened::Compare(_) => "compare",
        Opened::Pushed => "push",
    };
    let mut metadata = json!({
        "git": "pull_request",
        "branch": opened.branch,
        "remote": opened.remote,
        "via": via,
        "title": opened.text.title,
    });
    if let Some(url) = opened.url() {
        metadata["url"] = json!(url);
    }
    metadata
}

fn log(agent: &AgentSession, level: LogLevel, message: String, metadata: serde_json::Value) {
    agent.emitter().emit(SystemLog {
        level,
        message,
        metadata: match metadata {
            serde_json::Value::Object(map) => Some(map),
            _ => None,
        },
    });
}

fn status_name(status: AgentStatus) -> &'static str {
    match status {
        AgentStatus::Completed => "completed",
        AgentStatus::Failed => "failed",
        AgentStatus::Cancelled => "cancelled",
        AgentStatus::MaxIterations => "out of iterations",
    }
}
