//! Request and response bodies of the HTTP contract.

use chrono::{DateTime, Utc};
use keel_events::projection::WireFormat;
use keel_store::{Session, SessionUsage, Turn};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// `GET /healthz`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Health {
    /// Always `ok`.
    pub status: String,
    /// `sqlite` or `postgres`.
    pub store: String,
    /// Server version.
    pub version: String,
}

/// Planning mode of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionMode {
    /// The model decides.
    Auto,
    /// Never plan.
    Direct,
    /// Plan first.
    Plan,
}

impl SessionMode {
    /// The mode's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Direct => "direct",
            Self::Plan => "plan",
        }
    }
}

/// `POST /v1/sessions` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    /// Project the session belongs to (not blank).
    #[schema(min_length = 1, pattern = r"\S")]
    pub project_id: String,
    /// Workspace root: an absolute path inside a root allowed for the project.
    #[schema(min_length = 1, pattern = "^/")]
    pub root: String,
    /// Model or comma-separated fallback chain (default: the server's).
    #[serde(default)]
    pub model: Option<String>,
    /// Planning mode (default auto).
    #[serde(default)]
    pub mode: Option<SessionMode>,
    /// Title shown in lists.
    #[serde(default)]
    pub title: Option<String>,
    /// Stage every change in a shadow workspace until it is applied (`/shadow/apply`).
    #[serde(default)]
    pub shadow: Option<bool>,
    /// Seed 004's `pull_request`: commit each turn's changes (as `[git] commit = "turn"`) and
    /// after each turn that committed, push the branch and open a pull request (once; later
    /// turns push to it) through `gh`, else name the compare page. Refused (422) on a work
    /// tree with changes, a detached HEAD, no remote, or the remote's default branch.
    #[serde(default)]
    pub pull_request: Option<bool>,
}

/// A session.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SessionView {
    /// Session id.
    pub id: String,
    /// Project id.
    pub project_id: String,
    /// Workspace root.
    pub root: String,
    /// Title.
    pub title: String,
    /// `idle`, `running`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// Model chain, when set for the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Planning mode, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// Highest stored event seq (0: none).
    pub last_seq: u64,
    /// Tokens and cost so far.
    pub usage: UsageView,
    /// Whether the session stages its changes in a shadow workspace.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
    /// Whether the session pushes its branch and opens a pull request (`pull_request`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pull_request: bool,
}

/// A session's tokens and cost: the sum of its `run.usage.report` events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct UsageView {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Prompt tokens served from the provider's cache.
    pub cached_tokens: u64,
    /// All tokens.
    pub total_tokens: u64,
    /// Model calls reported.
    pub model_calls: u64,
    /// Model calls whose model had no price: when not 0, `cost_usd` covers only the others.
    pub unpriced_calls: u64,
    /// What the priced calls cost, in US dollars; absent while no call had a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl From<SessionUsage> for UsageView {
    fn from(usage: SessionUsage) -> Self {
        Self {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            cached_tokens: usage.cached_tokens,
            total_tokens: usage.total_tokens,
            model_calls: usage.model_calls,
            unpriced_calls: usage.unpriced_calls,
            cost_usd: usage.cost_usd,
        }
    }
}

/// The session metadata key that makes a session shadowed (`"shadow": true` at creation).
pub const SHADOW_KEY: &str = "shadow";

/// The session metadata key that makes a session open a pull request (`"pull_request": true`
/// at creation).
pub const PULL_REQUEST_KEY: &str = "pull_request";

impl SessionView {
    /// The view of a stored session.
    pub fn new(session: Session, last_seq: u64) -> Self {
        Self {
            id: session.id,
            project_id: session.project_id,
            root: session.root.to_string_lossy().into_owned(),
            title: session.title,
            status: session.status.as_str().to_owned(),
            model: session.model,
            mode: session.mode,
            created_at: session.created_at,
            updated_at: session.updated_at,
            last_seq,
            shadow: session.metadata.get(SHADOW_KEY) == Some(&serde_json::Value::Bool(true)),
            pull_request: session.metadata.get(PULL_REQUEST_KEY)
                == Some(&serde_json::Value::Bool(true)),
            usage: session.usage.into(),
        }
    }
}

/// `GET /v1/sessions` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListSessionsQuery {
    /// Only this project's sessions.
    pub project_id: Option<String>,
    /// Most sessions (default 50; above 500 counts as 500, 0 as 1).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
}

/// `GET /v1/sessions` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct SessionList {
    /// Newest first.
    pub sessions: Vec<SessionView>,
}

/// `POST /v1/sessions/{id}/turns` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTurn {
    /// Idempotency key (a UUID).
    #[schema(format = "uuid")]
    pub request_id: String,
    /// The user's request (not blank).
    #[schema(min_length = 1, pattern = r"\S")]
    pub input: String,
    /// Images for the model to see with the request (absent: none). The session's model must
    /// accept images, or the turn fails naming the model and nothing is sent to it.
    #[serde(default)]
    pub images: Vec<ImageUpload>,
}

/// An image sent with a turn's input.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageUpload {
    /// What to call it (a file name); absent: `image N`.
    #[serde(default)]
    pub name: Option<String>,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`. The format is read from the
    /// bytes themselves; this, when given, must be one of the four.
    #[serde(default)]
    pub media_type: Option<String>,
    /// The bytes in base64 (standard alphabet; a `data:…;base64,` prefix is allowed), at most
    /// 10 MiB decoded.
    pub data: String,
}

/// A turn.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct TurnView {
    /// Turn id.
    pub id: String,
    /// Session id.
    pub session_id: String,
    /// Idempotency key it was started with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The user's request.
    pub input: String,
    /// `running`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Start time.
    pub started_at: DateTime<Utc>,
    /// End time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
}

impl From<Turn> for TurnView {
    fn from(turn: Turn) -> Self {
        Self {
            id: turn.id,
            session_id: turn.session_id,
            request_id: turn.request_id,
            input: turn.input,
            status: turn.status.as_str().to_owned(),
            error: turn.error,
            started_at: turn.started_at,
            ended_at: turn.ended_at,
        }
    }
}

/// `POST /v1/sessions/{id}/turns` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TurnCreated {
    /// The turn.
    pub turn: TurnView,
    /// False when the request id had already started it.
    pub created: bool,
}

/// `GET /v1/sessions/{id}/turns` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TurnList {
    /// Oldest first.
    pub turns: Vec<TurnView>,
}

/// `POST /v1/sessions/{id}/cancel` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Cancelled {
    /// False when nothing was running.
    pub cancelled: bool,
}

/// `GET /v1/sessions/{id}/events` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Only events with a greater seq (seqs are signed 64-bit in every store).
    #[param(minimum = 0, maximum = 9223372036854775807_u64)]
    pub after: Option<u64>,
    /// Page size (default 100, max 1000).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
    /// `sse` to stream without an `Accept` header.
    pub stream: Option<String>,
    /// Stream token (SSE only).
    pub token: Option<String>,
    /// Wire format of the events: `keel` (default), `v1` (seed 000's flat legacy dicts) or
    /// `paths` (seed 004's `{"path": "/agent/edit/…", "event": …}`); events a format has no
    /// name for are left out.
    #[param(schema_with = wire_format_schema)]
    pub format: Option<WireFormat>,
}

/// `GET /v1/sessions/{id}/ws` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct WsQuery {
    /// Only events with a greater seq (seqs are signed 64-bit in every store).
    #[param(minimum = 0, maximum = 9223372036854775807_u64)]
    pub after: Option<u64>,
    /// Stream token.
    pub token: Option<String>,
    /// Wire format of the events, as for `GET /v1/sessions/{id}/events`.
    #[param(schema_with = wire_format_schema)]
    pub format: Option<WireFormat>,
}

/// The `format` query parameter's schema: one of [`WireFormat::NAMES`].
fn wire_format_schema() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .description(Some(
            "Wire format: `keel` (Keel's events), `v1` (seed 000's flat legacy dicts) or `paths` \
             (seed 004's event paths); events a format has no name for are left out.",
        ))
        .enum_values(Some(WireFormat::NAMES))
        .default(Some(WireFormat::Keel.name().into()))
        .build()
}

/// `POST /v1/projects/{project_id}/timeline/import` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ImportLogQuery {
    /// Where the log came from (a file name), kept in the new session's title (default `upload`).
    pub source: Option<String>,
}

/// `POST /v1/projects/{project_id}/timeline/import` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ImportLogResult {
    /// The new session holding the imported events; absent when no line was imported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Lines imported, one timeline record each.
    pub imported: usize,
    /// Blank lines skipped.
    pub blank_lines: usize,
    /// Lines skipped as unreadable (not UTF-8, a NUL byte, longer than 16 KiB).
    pub bad_lines: Vec<BadLineView>,
}

/// A log line that was not imported.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct BadLineView {
    /// 1-based line number.
    pub line: usize,
    /// Why it was skipped.
    pub error: String,
}

/// A page of stored events.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventPage {
    /// Events in seq order (keel-events JSON; see `schemas/events.schema.json`).
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<serde_json::Value>,
    /// Pass as `after` for the next page.
    pub next_after: u64,
    /// More events follow.
    pub has_more: bool,
}

/// `POST /v1/sessions/{id}/approvals/{approval_id}` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApprovalBody {
    /// The decision.
    pub decision: Decision,
    /// Why.
    #[serde(default)]
    pub reason: Option<String>,
    /// The replacement for `modify`.
    #[serde(default)]
    pub modified: Option<serde_json::Value>,
}

/// An approval decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Go ahead.
    Approve,
    /// Do not.
    Reject,
    /// Go ahead with `modified`.
    Modify,
    /// Go ahead, and write allow rules for the same subject into the project's
    /// `.keel/rules.toml` (one per command of a command line, or one for the tool; none for a
    /// plan): they are in the response's `rules_written` and the resolve event's reason.
    Always,
}

/// `POST …/approvals/{approval_id}` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ApprovalResult {
    /// The approval.
    pub approval_id: String,
    /// The decision recorded.
    pub decision: Decision,
    /// False when the same decision had been given already.
    pub applied: bool,
    /// The rules an `always` wrote, with the file each is in (absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_written: Vec<RuleView>,
}

/// `POST …/questions/{question_id}` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    /// The answer.
    pub answer: String,
}

/// `POST …/questions/{question_id}` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AnswerResult {
    /// The question.
    pub question_id: String,
    /// The answer recorded.
    pub answer: String,
    /// False when the same answer had been given already.
    pub applied: bool,
}

/// `POST /v1/sessions/{id}/file-runs` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FileRunBody {
    /// Script path, relative to the session's root: `/`-separated names, none of them `.` or
    /// `..`, without NUL characters.
    #[schema(
        min_length = 1,
        pattern = r"^([^/\u0000.][^/\u0000]*|\.[^/\u0000.][^/\u0000]*|\.\.[^/\u0000]+)(/([^/\u0000.][^/\u0000]*|\.[^/\u0000.][^/\u0000]*|\.\.[^/\u0000]+))*$"
    )]
    pub path: String,
    /// Arguments for the script, each passed as one argv entry (never through a shell); none
    /// may hold a NUL character.
    #[serde(default)]
    #[schema(schema_with = argument_list_schema)]
    pub args: Vec<String>,
}

/// The `args` schema of a file run: strings without NUL characters (argv cannot hold them).
fn argument_list_schema() -> utoipa::openapi::Array {
    utoipa::openapi::ArrayBuilder::new()
        .items(
            utoipa::openapi::ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::Type::String)
                .pattern(Some("^[^\\u0000]*$")),
        )
        .description(Some(
            "Arguments for the script, each passed as one argv entry (never through a shell); \
             none may hold a NUL character.",
        ))
        .build()
}

/// `POST /v1/sessions/{id}/file-runs` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct FileRunStarted {
    /// Id shared by the run's `exec.file.*` events.
    pub run_id: String,
}

/// `GET /v1/projects/{project_id}/timeline` query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TimelineQuery {
    /// Window size (default 100; above 1000 counts as 1000, 0 as 1).
    #[param(value_type = Option<u64>, minimum = 0, maximum = 4294967295_u64)]
    pub limit: Option<u32>,
}

/// `GET /v1/projects/{project_id}/timeline` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Timeline {
    /// Oldest first (see `schemas/timeline.schema.json`).
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<serde_json::Value>,
}

/// `POST /v1/stream-tokens` body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamTokenBody {
    /// The session whose stream the token opens.
    pub session_id: String,
}

/// `POST /v1/stream-tokens` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct StreamToken {
    /// The token, for `?token=`.
    pub token: String,
    /// When it expires.
    pub expires_at: DateTime<Utc>,
}

/// `GET /v1/sessions/{id}/files` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct FileList {
    /// Root-relative, `/`-separated paths, sorted.
    pub files: Vec<String>,
    /// More files exist than were listed.
    pub truncated: bool,
}

/// One approval rule (`GET /v1/sessions/{id}/rules`, `DELETE …/rules/{scope}/{index}`).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RuleView {
    /// `project` or `user`.
    pub scope: String,
    /// The rules file it is in.
    pub file: String,
    /// Its number in that file, from 1 (what revoking takes).
    pub index: usize,
    /// The line of its `[[rule]]` header, from 1.
    pub line: usize,
    /// `allow`, `ask` or `deny`.
    pub decision: String,
    /// The command prefix (`match`), for command rules.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub prefix: Option<Vec<String>>,
    /// The tool, for tool rules.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool rule's path globs (empty: every call).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// The web host glob, for `fetch_url` host rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Whether it may allow what the dangerous-command check flags.
    pub override_safety: bool,
    /// One line: `ask git push`, `deny tool write_file migrations/**`.
    pub summary: String,
}

impl RuleView {
    /// The view of a loaded rule.
    pub fn new(rule: &keel_tools::Rule) -> Self {
        let (prefix, tool, paths, host) = match &rule.spec.target {
            keel_tools::RuleTarget::Command { prefix } => {
                (Some(prefix.clone()), None, Vec::new(), None)
            }
            keel_tools::RuleTarget::Tool { tool, paths } => {
                (None, Some(tool.clone()), paths.clone(), None)
            }
            keel_tools::RuleTarget::Host { host } => (None, None, Vec::new(), Some(host.clone())),
        };
        Self {
            scope: rule.scope.as_str().to_owned(),
            file: rule.file.display().to_string(),
            index: rule.index,
            line: rule.line,
            decision: rule.spec.decision.as_str().to_owned(),
            prefix,
            tool,
            paths,
            host,
            override_safety: rule.spec.override_safety,
            summary: rule.describe(),
        }
    }
}

/// `GET /v1/sessions/{id}/rules` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RuleList {
    /// The rules, the project's first.
    pub rules: Vec<RuleView>,
    /// The files read (the project's, then the user's when the server has one).
    pub files: Vec<String>,
}

/// One checkpoint of a session, as `GET /v1/sessions/{id}/checkpoints` lists it (and
/// `keel checkpoints list --json`: both print keel-tools' `CheckpointSize`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CheckpointView {
    /// Checkpoint id: `POST …/rewind` and `POST …/fork` take it.
    pub id: String,
    /// The turn it was made before.
    pub turn_id: String,
    /// The session whose turn it covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// Files it restores.
    pub files: usize,
    /// Bytes it holds (its file and the blobs it refers to).
    pub bytes: u64,
}

/// `GET /v1/sessions/{id}/checkpoints` response: keel-tools' `CheckpointUsage` for the
/// session, the shape `keel checkpoints list --json` prints.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CheckpointList {
    /// The session's checkpoints, oldest first.
    pub checkpoints: Vec<CheckpointView>,
    /// Bytes all checkpoints of the session's root take.
    pub total_bytes: u64,
    /// The root's bound (`checkpoint_max_mb`): past it the oldest checkpoints are pruned.
    pub max_bytes: u64,
}

impl From<keel_tools::CheckpointUsage> for CheckpointList {
    fn from(usage: keel_tools::CheckpointUsage) -> Self {
        Self {
            checkpoints: usage
                .checkpoints
                .into_iter()
                .map(|c| CheckpointView {
                    id: c.id,
                    turn_id: c.turn_id,
                    session_id: c.session_id,
                    created_at: c.created_at,
                    files: c.files,
                    bytes: c.bytes,
                })
                .collect(),
            total_bytes: usage.total_bytes,
            max_bytes: usage.max_bytes,
        }
    }
}

/// `POST /v1/sessions/{id}/rewind` body.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RewindBody {
    /// The checkpoint: its turn and every later one are undone.
    pub checkpoint: String,
    /// `files`, `conversation` or `both` (default).
    #[serde(default)]
    #[schema(pattern = "^(files|conversation|both)$")]
    pub scope: Option<String>,
}

/// `POST /v1/sessions/{id}/rewind` response: the `run.checkpoint.rewind` it recorded.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RewindResult {
    /// The checkpoint rewound to.
    pub checkpoint_id: String,
    /// `files`, `conversation` or `both`.
    pub scope: String,
    /// The turns undone, oldest first.
    pub turn_ids: Vec<String>,
    /// First seq of the undone turns' events (they stay in the log).
    pub from_seq: u64,
    /// Last seq of the undone turns' events.
    pub to_seq: u64,
    /// Messages in the history afterwards, when it was rewound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    /// Files given back their earlier content.
    pub files_restored: Vec<String>,
    /// Files removed because they did not exist before.
    pub files_removed: Vec<String>,
}

impl From<keel_events::RunCheckpointRewind> for RewindResult {
    fn from(p: keel_events::RunCheckpointRewind) -> Self {
        Self {
            checkpoint_id: p.checkpoint_id,
            scope: p.scope.as_str().to_owned(),
            turn_ids: p.turn_ids,
            from_seq: p.from_seq,
            to_seq: p.to_seq,
            messages: p.messages,
            files_restored: p.files_restored,
            files_removed: p.files_removed,
        }
    }
}

/// One staged path of a shadow session's batch.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct StagedChangeView {
    /// Workspace-relative path (for a move, where the file goes).
    pub path: String,
    /// `created`, `updated`, `deleted` or `moved` (the file at `from` moves to `path`).
    pub kind: String,
    /// For a move, the path the file comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Lines added.
    pub lines_added: u64,
    /// Lines removed.
    pub lines_removed: u64,
    /// Unified diff against the real file, when both sides are text and it is small enough.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Why applying it now would be refused (the real file changed since the agent saw it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict: Option<String>,
}

/// `GET /v1/sessions/{id}/shadow` response: what a shadow session staged.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShadowBatchView {
    /// Session id.
    pub session: String,
    /// The staged paths, sorted.
    pub changes: Vec<StagedChangeView>,
    /// The combined unified diff.
    pub diff: String,
}

impl From<keel_tools::Batch> for ShadowBatchView {
    fn from(batch: keel_tools::Batch) -> Self {
        Self {
            session: batch.session,
            changes: batch
                .changes
                .into_iter()
                .map(|c| StagedChangeView {
                    path: c.path,
                    kind: match c.kind {
                        keel_tools::ChangeKind::Created => "created",
                        keel_tools::ChangeKind::Updated => "updated",
                        keel_tools::ChangeKind::Deleted => "deleted",
                        keel_tools::ChangeKind::Moved => "moved",
                    }
                    .to_owned(),
                    from: c.from,
                    lines_added: c.lines_added,
                    lines_removed: c.lines_removed,
                    diff: c.diff,
                    conflict: c.conflict,
                })
                .collect(),
            diff: batch.diff,
        }
    }
}

/// `POST /v1/sessions/{id}/fork` body.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ForkBody {
    /// Fork at this checkpoint of the session (the history before its turn); absent: the
    /// whole history.
    #[serde(default)]
    pub at: Option<String>,
}

/// `POST /v1/sessions/{id}/shadow/apply` body (optional: no body applies everything).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShadowApplyBody {
    /// Staged paths to apply; absent: all of them.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
}

/// A staged path that was not applied.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShadowConflictView {
    /// Workspace-relative path.
    pub path: String,
    /// What happened to the real file.
    pub reason: String,
}

/// `POST /v1/sessions/{id}/shadow/apply` response.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShadowApplyView {
    /// Session id.
    pub session: String,
    /// Paths written to (or removed from) the real tree.
    pub applied: Vec<String>,
    /// Paths left alone because the real file changed meanwhile (they stay staged).
    pub conflicts: Vec<ShadowConflictView>,
    /// Paths still staged.
    pub remaining: Vec<String>,
    /// Whether the shadow workspace was removed (nothing left staged).
    pub closed: bool,
}

impl From<keel_tools::ApplyReport> for ShadowApplyView {
    fn from(report: keel_tools::ApplyReport) -> Self {
        Self {
            session: report.session,
            applied: report.applied,
            conflicts: report
                .conflicts
                .into_iter()
                .map(|c| ShadowConflictView {
                    path: c.path,
                    reason: c.reason,
                })
                .collect(),
            remaining: report.remaining,
            closed: report.closed,
        }
    }
}

/// `POST /v1/sessions/{id}/shadow/discard` body (optional: no body discards everything).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShadowDiscardBody {
    /// Staged paths to discard (a move by either of its paths); absent or empty: all of them.
    #[serde(default)]
    pub paths: Option<Vec<String>>,
}

/// `POST /v1/sessions/{id}/shadow/discard` response.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ShadowDiscarded {
    /// Session id.
    pub session: String,
    /// Always true: the staged changes asked for are gone and the real tree is unchanged.
    pub discarded: bool,
    /// With `paths`: the staged paths thrown away; absent when everything was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
    /// Paths still staged.
    #[serde(default)]
    pub remaining: Vec<String>,
    /// Whether the shadow workspace was removed (nothing left staged).
    #[serde(default)]
    pub closed: bool,
}

/// One entry of a project's memory (`GET /v1/sessions/{id}/memory`,
/// `DELETE …/memory/{entry_id}`): the entry as `.keel/memory.json` stores it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MemoryEntryView {
    /// Stable id, `mem_` and 8 hex digits (what forgetting takes).
    pub id: String,
    /// `fact`, `convention` or `decision`.
    pub kind: String,
    /// What is remembered.
    pub text: String,
    /// Lower-case labels.
    #[serde(default)]
    pub tags: Vec<String>,
    /// When it was first recorded; absent for entries carried over from the first file
    /// format without a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<DateTime<Utc>>,
    /// The session that recorded it, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

impl From<&keel_context::MemoryEntry> for MemoryEntryView {
    fn from(entry: &keel_context::MemoryEntry) -> Self {
        Self {
            id: entry.id.clone(),
            kind: entry.kind.as_str().to_owned(),
            text: entry.text.clone(),
            tags: entry.tags.clone(),
            created_at: entry.created_at,
            session_id: entry.session_id.clone(),
        }
    }
}

/// `GET /v1/sessions/{id}/memory` response: what the session's project remembers.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct MemoryList {
    /// The entries, the one recorded longest ago first (as `keel memory list`).
    pub entries: Vec<MemoryEntryView>,
    /// The memory file (`<root>/.keel/memory.json`; it may not exist yet).
    pub file: String,
}
