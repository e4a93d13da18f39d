//! `LspManager`: a session's language servers, one per language, started the first time a file
//! of theirs is edited or checked; a server that fails is restarted once, then left off.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use keel_events::{CountChange, Diagnostic, EditDiagnostics, Emitter, LogLevel, SystemLog};
use keel_tools::process::CommandSandbox;
use lsp_types::Url;

use crate::config::LspSettings;
use crate::convert::{self, MAX_SHOWN};
use crate::error::StartError;
use crate::language::Language;
use crate::server::Server;

/// What an edit did to one file, by its path relative to the workspace root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The file was written (created or changed).
    Changed(String),
    /// The file is gone (moved away).
    Removed(String),
}

/// Diagnostics asked for outside an edit (`diagnostics`, `keel lsp check`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Every diagnostic of the files asked about, most severe first.
    pub diagnostics: Vec<Diagnostic>,
    /// The servers that answered.
    pub servers: Vec<String>,
    /// Files no server covers (their language has none, or it is off).
    pub uncovered: Vec<String>,
    /// Whether a server did not answer within the wait.
    pub timed_out: bool,
}

/// A running server and what it has been through.
struct Running {
    server: Arc<Server>,
    /// Whether its one restart was used.
    restarted: bool,
    /// Whether it has answered once (the first wait is the longer start wait).
    warm: Arc<AtomicBool>,
}

/// A language's server, as far as the session knows.
enum Slot {
    Running(Running),
    /// Not installed, turned off, or failed twice: the session goes on without it.
    Off,
}

struct Inner {
    root: PathBuf,
    settings: LspSettings,
    sandbox: CommandSandbox,
    emitter: std::sync::Mutex<Option<Emitter>>,
    slots: tokio::sync::Mutex<HashMap<Language, Slot>>,
}

/// A session's language servers (cheap to clone: clones share them).
#[derive(Clone)]
pub struct LspManager {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for LspManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspManager")
            .field("root", &self.inner.root)
            .finish_non_exhaustive()
    }
}

/// A server picked for some files.
struct Picked {
    server: Arc<Server>,
    warm: Arc<AtomicBool>,
    language: Language,
}

impl LspManager {
    /// The servers for a workspace at `root` under `settings`, each confined by `sandbox`
    /// (the session's; the network allowed). Nothing starts until a file needs it.
    pub fn new(root: impl Into<PathBuf>, settings: LspSettings, sandbox: CommandSandbox) -> Self {
        let root = root.into();
        let root = root.canonicalize().unwrap_or(root);
        Self {
            inner: Arc::new(Inner {
                root,
                settings,
                sandbox,
                emitter: std::sync::Mutex::new(None),
                slots: tokio::sync::Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Reports servers that cannot start, crash or are left off as `system.log` on `emitter`.
    pub fn report_to(&self, emitter: Emitter) {
        if let Ok(mut slot) = self.inner.emitter.lock() {
            *slot = Some(emitter);
        }
    }

    /// The workspace root (canonical).
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    fn log(&self, level: LogLevel, language: Language, message: String) {
        tracing::info!(%language, "{message}");
        let emitter = self.inner.emitter.lock().ok().and_then(|e| e.clone());
        if let Some(emitter) = emitter {
            let mut metadata = serde_json::Map::new();
            metadata.insert("lsp".to_owned(), language.name().into());
            emitter.emit(SystemLog {
                level,
                message,
                metadata: Some(metadata),
            });
        }
    }

    /// Starts `language`'s server: the configured command, or the first default installed.
    async fn start(&self, language: Language) -> Result<Server, StartError> {
        let settings = &self.inner.settings;
        let mut missing = Vec::new();
        for command in settings.commands(language) {
            match Server::start(
                language,
                &command,
                &self.inner.root,
                &self.inner.sandbox,
                settings.start_wait(language),
            )
            .await
            {
                Ok(server) => return Ok(server),
                Err(StartError::NotFound(program)) => missing.push(program),
                Err(e) => return Err(e),
            }
        }
        Err(StartError::NotFound(missing.join("` or `")))
    }

    /// Starts `language`'s server (`restarted`: this is its one restart), restarting once on
    /// failure: the slot it ends in.
    async fn launch(&self, language: Language, restarted: bool) -> Slot {
        let started = self.start(language).await;
        let (failure, restarted) = match started {
            Ok(server) => {
                return Slot::Running(Running {
                    server: Arc::new(server),
                    restarted,
                    warm: Arc::new(AtomicBool::new(false)),
                });
            }
            Err(StartError::NotFound(program)) => {
                self.log(
                    LogLevel::Warn,
                    language,
                    format!(
                        "no {language} language server: `{program}` was not found (is it installed and on PATH?); edits go on without {language} diagnostics"
                    ),
                );
                return Slot::Off;
            }
            Err(StartError::Failed(why)) => (why, restarted),
        };
        if restarted {
            self.log(
                LogLevel::Warn,
                language,
                format!(
                    "the {language} language server failed again ({failure}); it is left off for this session"
                ),
            );
            return Slot::Off;
        }
        self.log(
            LogLevel::Warn,
            language,
            format!(
                "the {language} language server failed to start ({failure}); restarting it once"
            ),
        );
        Box::pin(self.launch(language, true)).await
    }

    /// `language`'s server, started (or restarted once) when needed; `None` when it is off.
    async fn server(&self, language: Language) -> Option<Picked> {
        let mut slots = self.inner.slots.lock().await;
        let slot = match slots.remove(&language) {
            None if !self.inner.settings.enabled(language) => Slot::Off,
            None => self.launch(language, false).await,
            Some(Slot::Running(running)) if !running.server.is_alive() => {
                let why = running.server.exit_reason().await;
                if running.restarted {
                    self.log(
                        LogLevel::Warn,
                        language,
                        format!(
                            "the {language} language server ({}) stopped again: {why}; it is left off for this session",
                            running.server.name
                        ),
                    );
                    Slot::Off
                } else {
                    self.log(
                        LogLevel::Warn,
                        language,
                        format!(
                            "the {language} language server ({}) stopped: {why}; restarting it once",
                            running.server.name
                        ),
                    );
                    self.launch(language, true).await
                }
            }
            Some(slot) => slot,
        };
        let picked = match &slot {
            Slot::Running(running) => Some(Picked {
                server: running.server.clone(),
                warm: running.warm.clone(),
                language,
            }),
            Slot::Off => None,
        };
        slots.insert(language, slot);
        picked
    }

    fn absolute(&self, rel: &str) -> PathBuf {
        self.inner.root.join(rel)
    }

    /// Tells the servers of the edited files what changed and waits (bounded) for what they
    /// say: the edited files' errors and warnings and the change elsewhere. `None` when no
    /// server covers any of them.
    pub async fn after_edit(&self, edits: &[Edit]) -> Option<EditDiagnostics> {
        let mut by_language: Vec<(Language, Vec<&Edit>)> = Vec::new();
        for edit in edits {
            let (Edit::Changed(rel) | Edit::Removed(rel)) = edit;
            let Some(language) = Language::of(Path::new(rel)) else {
                continue;
            };
            match by_language.iter_mut().find(|(l, _)| *l == language) {
                Some((_, list)) => list.push(edit),
                None => by_language.push((language, vec![edit])),
            }
        }
        let mut answer: Option<EditDiagnostics> = None;
        let mut all: Vec<Diagnostic> = Vec::new();
        let (mut before, mut after) = (0u32, 0u32);
        for (language, edits) in by_language {
            let Some(picked) = self.server(language).await else {
                continue;
            };
            let edited: BTreeSet<Url> = edits
                .iter()
                .filter_map(|e| match e {
                    Edit::Changed(rel) => Url::from_file_path(self.absolute(rel)).ok(),
                    Edit::Removed(_) => None,
                })
                .collect();
            before += problems_elsewhere(&picked.server, &edited);
            let mark = picked.server.mark();
            let (targets, _) = self.sync(&picked, &edits).await;
            let timed_out = !self.wait(&picked, &targets, mark).await;
            let published = picked.server.published();
            for uri in &edited {
                if let Some(p) = published.get(uri) {
                    all.extend(
                        p.diagnostics
                            .iter()
                            .map(|d| convert::diagnostic(&self.inner.root, uri, d))
                            .filter(|d| d.severity.is_problem()),
                    );
                }
            }
            after += problems_elsewhere(&picked.server, &edited);
            let entry = answer.get_or_insert_with(EditDiagnostics::default);
            entry.servers.push(picked.server.name.clone());
            entry.timed_out |= timed_out;
        }
        let mut answer = answer?;
        convert::sort(&mut all);
        let shown = all.len().min(MAX_SHOWN);
        answer.omitted = u32::try_from(all.len() - shown).unwrap_or(u32::MAX);
        all.truncate(shown);
        answer.items = all;
        answer.elsewhere = (before != after).then_some(CountChange { before, after });
        Some(answer)
    }

    /// Sends the edits to `picked`'s server: the (URI, version) pairs to wait for, and the
    /// files that could not be read.
    async fn sync(&self, picked: &Picked, edits: &[&Edit]) -> (Vec<(Url, i32)>, Vec<String>) {
        let mut targets = Vec::new();
        let mut unread = Vec::new();
        for edit in edits {
            match edit {
                Edit::Removed(rel) => picked.server.close(&self.absolute(rel)).await,
                Edit::Changed(rel) => {
                    let path = self.absolute(rel);
                    let text = match tokio::fs::read_to_string(&path).await {
                        Ok(text) => text,
                        Err(_) => {
                            unread.push(rel.clone());
                            continue;
                        }
                    };
                    match picked.server.sync(&path, text).await {
                        Ok(target) => targets.push(target),
                        Err(why) => tracing::debug!(path = %rel, "not sent to the server: {why}"),
                    }
                }
            }
        }
        (targets, unread)
    }

    /// Waits for `targets`' diagnostics: the start wait the first time, then the warm wait.
    /// Whether all came in time.
    async fn wait(&self, picked: &Picked, targets: &[(Url, i32)], mark: u64) -> bool {
        if targets.is_empty() {
            return true;
        }
        let settings = &self.inner.settings;
        let limit = if picked.warm.load(Ordering::Relaxed) && !picked.server.is_busy() {
            settings.wait(picked.language)
        } else {
            settings.start_wait(picked.language)
        };
        let answered = picked.server.wait_for(targets, mark, limit).await;
        // Warm once it answered with nothing left loading: rust-analyzer answers its first
        // file before it has loaded the project.
        if answered && !picked.server.is_busy() {
            picked.warm.store(true, Ordering::Relaxed);
        }
        answered
    }

    /// The current diagnostics (all severities) of `paths` (relative to the root, or
    /// absolute under it): each file opened on its server and its answer waited for. With no
    /// paths, those of every file opened so far.
    pub async fn check(&self, paths: &[String]) -> Report {
        let mut report = Report::default();
        if paths.is_empty() {
            let slots = self.inner.slots.lock().await;
            for slot in slots.values() {
                if let Slot::Running(running) = slot {
                    report.servers.push(running.server.name.clone());
                    for (uri, p) in running.server.published() {
                        report.diagnostics.extend(
                            p.diagnostics
                                .iter()
                                .map(|d| convert::diagnostic(&self.inner.root, &uri, d)),
                        );
                    }
                }
            }
            convert::sort(&mut report.diagnostics);
            return report;
        }
        let mut by_language: Vec<(Language, Vec<Edit>)> = Vec::new();
        for path in paths {
            let rel = Path::new(path)
                .strip_prefix(&self.inner.root)
                .map_or_else(|_| path.clone(), |p| p.to_string_lossy().into_owned());
            let Some(language) = Language::of(Path::new(&rel)) else {
                report.uncovered.push(rel);
                continue;
            };
            match by_language.iter_mut().find(|(l, _)| *l == language) {
                Some((_, list)) => list.push(Edit::Changed(rel)),
                None => by_language.push((language, vec![Edit::Changed(rel)])),
            }
        }
        for (language, files) in by_language {
            let Some(picked) = self.server(language).await else {
                report.uncovered.extend(files.into_iter().map(|e| match e {
                    Edit::Changed(rel) | Edit::Removed(rel) => rel,
                }));
                continue;
            };
            let edits: Vec<&Edit> = files.iter().collect();
            let mark = picked.server.mark();
            let (targets, unread) = self.sync(&picked, &edits).await;
            report.uncovered.extend(unread);
            report.timed_out |= !self.wait(&picked, &targets, mark).await;
            let published = picked.server.published();
            for (uri, _) in &targets {
                if let Some(p) = published.get(uri) {
                    report.diagnostics.extend(
                        p.diagnostics
                            .iter()
                            .map(|d| convert::diagnostic(&self.inner.root, uri, d)),
                    );
                }
            }
            report.servers.push(picked.server.name.clone());
        }
        convert::sort(&mut report.diagnostics);
        report
    }

    /// Whether `rel`'s language has a server running now.
    pub async fn covers(&self, rel: &str) -> bool {
        let Some(language) = Language::of(Path::new(rel)) else {
            return false;
        };
        matches!(
            self.inner.slots.lock().await.get(&language),
            Some(Slot::Running(_))
        )
    }

    /// Shuts every server down.
    pub async fn shutdown(&self) {
        let slots: Vec<Slot> = self
            .inner
            .slots
            .lock()
            .await
            .drain()
            .map(|(_, s)| s)
            .collect();
        for slot in slots {
            if let Slot::Running(running) = slot
                && let Ok(server) = Arc::try_unwrap(running.server)
            {
                server.shutdown().await;
            }
        }
    }
}

/// Errors and warnings the server reports in files other than `edited`.
fn problems_elsewhere(server: &Server, edited: &BTreeSet<Url>) -> u32 {
    let count = server
        .published()
        .iter()
        .filter(|(uri, _)| !edited.contains(uri))
        .flat_map(|(_, p)| p.diagnostics.iter())
        .filter(|d| {
            d.severity.is_none_or(|s| {
                s == lsp_types::DiagnosticSeverity::ERROR
                    || s == lsp_types::DiagnosticSeverity::WARNING
            })
        })
        .count();
    u32::try_from(count).unwrap_or(u32::MAX)
}
