//! One running language server: a stdio child in its own process group and the session's
//! sandbox, spoken to through async-lsp, its published diagnostics kept by file.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_lsp::router::Router;
use async_lsp::{MainLoop, ServerSocket};
use keel_sandbox::{Confinement, Sandbox, SandboxPolicy};
use keel_tools::process::{CommandSandbox, GroupGuard, scrubbed_env};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit,
    Initialized, Progress, PublishDiagnostics,
};
use lsp_types::request::{Initialize, Shutdown, WorkspaceConfiguration};
use lsp_types::{
    ClientCapabilities, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, InitializeParams, InitializedParams,
    NumberOrString, ProgressParamsValue, PublishDiagnosticsClientCapabilities,
    TextDocumentClientCapabilities, TextDocumentContentChangeEvent, TextDocumentIdentifier,
    TextDocumentItem, TextDocumentSyncClientCapabilities, Url, VersionedTextDocumentIdentifier,
    WindowClientCapabilities, WorkDoneProgress, WorkspaceFolder,
};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use crate::error::StartError;
use crate::language::Language;

/// How many bytes of a server's standard error (its last ones) a failure message quotes.
const STDERR_TAIL: usize = 1024;

/// What a server published for one file.
#[derive(Debug, Clone)]
pub(crate) struct Published {
    /// The document version the diagnostics are for, when the server says.
    pub(crate) version: Option<i32>,
    /// When it arrived (counted across the server's publications).
    pub(crate) seq: u64,
    pub(crate) diagnostics: Vec<lsp_types::Diagnostic>,
}

/// The server's publications by file.
#[derive(Debug, Default)]
struct Store {
    files: HashMap<Url, Published>,
    seq: u64,
    /// Work the server announced and has not ended (`$/progress`: loading, indexing).
    busy: std::collections::HashSet<String>,
}

/// The client's side of the connection: keeps `publishDiagnostics`, answers the server's
/// requests with defaults.
struct ClientState {
    store: Arc<Mutex<Store>>,
    changed: Arc<watch::Sender<u64>>,
}

/// Ends the client's loop before its socket goes: async-lsp's loop panics when every socket is
/// dropped while it still runs.
struct Stop;

/// A document as the server last saw it.
#[derive(Debug, Clone, Copy)]
struct Open {
    version: i32,
}

/// A started and initialised server.
pub(crate) struct Server {
    /// The server's program name, for messages (`pyright-langserver`).
    pub(crate) name: String,
    language: Language,
    root: PathBuf,
    socket: ServerSocket,
    store: Arc<Mutex<Store>>,
    changed: watch::Receiver<u64>,
    docs: tokio::sync::Mutex<HashMap<Url, Open>>,
    mainloop: JoinHandle<()>,
    child: tokio::sync::Mutex<tokio::process::Child>,
    stderr: Arc<Mutex<Vec<u8>>>,
    _group: GroupGuard,
    _confinement: Option<Confinement>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.name)
            .field("language", &self.language)
            .finish_non_exhaustive()
    }
}

/// The sandbox a server runs in: the session's mode, writable roots and fallback, the network
/// allowed (as for MCP servers: rust-analyzer's `cargo metadata` may fetch).
fn server_policy(sandbox: &CommandSandbox) -> Result<Option<SandboxPolicy>, StartError> {
    match sandbox {
        CommandSandbox::Off => Ok(None),
        CommandSandbox::Confined(s) => Ok(Some(SandboxPolicy {
            network: true,
            ..s.policy().clone()
        })),
        CommandSandbox::Refused(why) => {
            Err(StartError::Failed(format!("it cannot be sandboxed: {why}")))
        }
    }
}

impl Server {
    /// Starts `command` for `language` in `root` (confined by `sandbox`) and initialises it
    /// within `limit`.
    pub(crate) async fn start(
        language: Language,
        command: &[String],
        root: &Path,
        sandbox: &CommandSandbox,
        limit: Duration,
    ) -> Result<Self, StartError> {
        let Some((program, args)) = command.split_first() else {
            return Err(StartError::Failed("its command is empty".to_owned()));
        };
        let name = Path::new(program)
            .file_name()
            .map_or_else(|| program.clone(), |n| n.to_string_lossy().into_owned());
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args)
            .current_dir(root)
            .env_clear()
            .envs(scrubbed_env(std::env::vars_os()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let confinement = match server_policy(sandbox)? {
            None => None,
            Some(policy) => {
                let described = policy.describe();
                let sandbox = Sandbox::new(policy, root).map_err(|e| {
                    StartError::Failed(format!("it cannot be sandboxed ({described}): {e}"))
                })?;
                Some(sandbox.confine(&mut cmd).map_err(|e| {
                    StartError::Failed(format!("it cannot be sandboxed ({described}): {e}"))
                })?)
            }
        };
        let mut child = cmd.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StartError::NotFound(program.clone()),
            _ => StartError::Failed(format!("`{program}` could not be started: {e}")),
        })?;
        let group = GroupGuard::new(child.id());
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(StartError::Failed(
                "its standard input and output could not be opened".to_owned(),
            ));
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut pipe) = child.stderr.take() {
            let tail = stderr.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n) = pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut tail) = tail.lock() {
                        tail.extend_from_slice(&buf[..n]);
                        let excess = tail.len().saturating_sub(STDERR_TAIL);
                        tail.drain(..excess);
                    }
                }
            });
        }
        let store = Arc::new(Mutex::new(Store::default()));
        let (changed_tx, changed) = watch::channel(0u64);
        let state = ClientState {
            store: store.clone(),
            changed: Arc::new(changed_tx),
        };
        let (mainloop, socket) = MainLoop::new_client(|_| client_router(state));
        let mainloop = tokio::spawn(async move {
            if let Err(e) = mainloop
                .run_buffered(stdout.compat(), stdin.compat_write())
                .await
            {
                tracing::debug!("language server connection ended: {e}");
            }
        });
        let server = Self {
            name,
            language,
            root: root.to_owned(),
            socket,
            store,
            changed,
            docs: tokio::sync::Mutex::new(HashMap::new()),
            mainloop,
            child: tokio::sync::Mutex::new(child),
            stderr,
            _group: group,
            _confinement: confinement,
        };
        match tokio::time::timeout(limit, server.initialize()).await {
            Ok(Ok(())) => Ok(server),
            Ok(Err(e)) => Err(StartError::Failed(server.failure(&e).await)),
            Err(_) => Err(StartError::Failed(format!(
                "it did not answer `initialize` within {}s",
                limit.as_secs()
            ))),
        }
    }

    async fn initialize(&self) -> Result<(), String> {
        let root = Url::from_file_path(&self.root)
            .map_err(|()| format!("`{}` is not an absolute path", self.root.display()))?;
        let folder_name = self
            .root
            .file_name()
            .map_or_else(|| "root".to_owned(), |n| n.to_string_lossy().into_owned());
        #[allow(deprecated)] // root_uri: older servers read only it
        let params = InitializeParams {
            process_id: Some(std::process::id()),
            root_uri: Some(root.clone()),
            workspace_folders: Some(vec![WorkspaceFolder {
                uri: root,
                name: folder_name,
            }]),
            capabilities: ClientCapabilities {
                text_document: Some(TextDocumentClientCapabilities {
                    synchronization: Some(TextDocumentSyncClientCapabilities {
                        did_save: Some(true),
                        ..TextDocumentSyncClientCapabilities::default()
                    }),
                    publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                        version_support: Some(true),
                        ..PublishDiagnosticsClientCapabilities::default()
                    }),
                    ..TextDocumentClientCapabilities::default()
                }),
                // Progress tells when a server is still loading the project.
                window: Some(WindowClientCapabilities {
                    work_done_progress: Some(true),
                    ..WindowClientCapabilities::default()
                }),
                ..ClientCapabilities::default()
            },
            initialization_options: initialization_options(self.language),
            ..InitializeParams::default()
        };
        self.socket
            .request::<Initialize>(params)
            .await
            .map_err(|e| format!("`initialize` failed: {e}"))?;
        self.socket
            .notify::<Initialized>(InitializedParams {})
            .map_err(|e| format!("`initialized` could not be sent: {e}"))
    }

    /// Why the server failed: `reason`, how it exited and the end of its standard error.
    async fn failure(&self, reason: &str) -> String {
        let status = {
            let mut child = self.child.lock().await;
            tokio::time::timeout(Duration::from_millis(300), child.wait())
                .await
                .ok()
                .and_then(Result::ok)
        };
        let mut text = match status {
            Some(status) => format!("it exited ({status})"),
            None => reason.to_owned(),
        };
        let tail = self
            .stderr
            .lock()
            .map(|t| String::from_utf8_lossy(&t).trim().to_owned())
            .unwrap_or_default();
        if !tail.is_empty() {
            let last = tail.lines().last().unwrap_or_default();
            text.push_str(&format!("; its last words: {last}"));
        }
        text
    }

    /// Whether the server is still there.
    pub(crate) fn is_alive(&self) -> bool {
        !self.mainloop.is_finished()
    }

    /// Why it is gone, for the report.
    pub(crate) async fn exit_reason(&self) -> String {
        self.failure("its connection closed").await
    }

    /// Whether the server has announced work it has not ended (loading, indexing).
    pub(crate) fn is_busy(&self) -> bool {
        self.store.lock().is_ok_and(|s| !s.busy.is_empty())
    }

    /// The count of publications so far: diagnostics published after it are newer.
    pub(crate) fn mark(&self) -> u64 {
        self.store.lock().map(|s| s.seq).unwrap_or_default()
    }

    /// Tells the server `path` now holds `text` (opened, or changed to a new version, then
    /// saved): the file's URI and version.
    pub(crate) async fn sync(&self, path: &Path, text: String) -> Result<(Url, i32), String> {
        let uri = Url::from_file_path(path)
            .map_err(|()| format!("`{}` is not an absolute path", path.display()))?;
        let mut docs = self.docs.lock().await;
        let sent = match docs.get(&uri).copied() {
            Some(open) => {
                let version = open.version.saturating_add(1);
                self.socket
                    .notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
                        text_document: VersionedTextDocumentIdentifier {
                            uri: uri.clone(),
                            version,
                        },
                        content_changes: vec![TextDocumentContentChangeEvent {
                            range: None,
                            range_length: None,
                            text,
                        }],
                    })
                    .map(|()| version)
            }
            None => self
                .socket
                .notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
                    text_document: TextDocumentItem {
                        uri: uri.clone(),
                        language_id: self.language.language_id(path).to_owned(),
                        version: 1,
                        text,
                    },
                })
                .map(|()| 1),
        };
        let version = sent.map_err(|e| format!("the server is gone: {e}"))?;
        docs.insert(uri.clone(), Open { version });
        self.socket
            .notify::<DidSaveTextDocument>(DidSaveTextDocumentParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                text: None,
            })
            .map_err(|e| format!("the server is gone: {e}"))?;
        Ok((uri, version))
    }

    /// Tells the server `path` is gone (moved away or deleted).
    pub(crate) async fn close(&self, path: &Path) {
        let Ok(uri) = Url::from_file_path(path) else {
            return;
        };
        if self.docs.lock().await.remove(&uri).is_some() {
            let _ = self
                .socket
                .notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
                    text_document: TextDocumentIdentifier { uri: uri.clone() },
                });
        }
        if let Ok(mut store) = self.store.lock() {
            store.files.remove(&uri);
        }
    }

    /// Waits until the server published diagnostics for every one of `targets` (a URI and the
    /// version sent) after `mark`, at most `limit`: whether all came.
    pub(crate) async fn wait_for(
        &self,
        targets: &[(Url, i32)],
        mark: u64,
        limit: Duration,
    ) -> bool {
        let mut changed = self.changed.clone();
        let answered = |store: &Store| {
            targets.iter().all(|(uri, version)| {
                store
                    .files
                    .get(uri)
                    .is_some_and(|p| p.seq > mark && p.version.is_none_or(|v| v >= *version))
            })
        };
        let wait = async {
            loop {
                changed.borrow_and_update();
                if self.store.lock().is_ok_and(|s| answered(&s)) {
                    return true;
                }
                if changed.changed().await.is_err() {
                    return false;
                }
            }
        };
        tokio::time::timeout(limit, wait).await.unwrap_or(false)
    }

    /// What the server last published for each file.
    pub(crate) fn published(&self) -> HashMap<Url, Published> {
        self.store
            .lock()
            .map(|s| s.files.clone())
            .unwrap_or_default()
    }

    /// Asks the server to shut down, then ends its group.
    pub(crate) async fn shutdown(self) {
        let polite = async {
            let _ = self.socket.request::<Shutdown>(()).await;
            let _ = self.socket.notify::<Exit>(());
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), polite).await;
        // Dropping `self` ends the loop (`Drop`); the group is killed with it.
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Queued before the socket goes, so the loop sees it and ends instead of panicking.
        let _ = self.socket.emit(Stop);
    }
}

/// What a server is told at start. rust-analyzer: no `cargo check` on save and no cache
/// priming — both keep it busy for seconds after a start or a save and hold back its own
/// analysis, which answers an edit within tens of milliseconds (the edit-latency bench; its
/// stale `cargo check` results would also outlive the edit that fixed them).
fn initialization_options(language: Language) -> Option<serde_json::Value> {
    match language {
        Language::Rust => Some(serde_json::json!({
            "checkOnSave": false,
            "cachePriming": { "enable": false },
        })),
        _ => None,
    }
}

/// The client's router: diagnostics kept, `workspace/configuration` answered with nothing set,
/// every other request with `null`, every other notification ignored.
fn client_router(state: ClientState) -> Router<ClientState> {
    let mut router = Router::new(state);
    router
        .notification::<PublishDiagnostics>(|state, params| {
            if let Ok(mut store) = state.store.lock() {
                store.seq += 1;
                let seq = store.seq;
                store.files.insert(
                    params.uri,
                    Published {
                        version: params.version,
                        seq,
                        diagnostics: params.diagnostics,
                    },
                );
                state.changed.send_replace(seq);
            }
            ControlFlow::Continue(())
        })
        .notification::<Progress>(|state, params| {
            let token = match params.token {
                NumberOrString::Number(n) => n.to_string(),
                NumberOrString::String(s) => s,
            };
            if let Ok(mut store) = state.store.lock() {
                match params.value {
                    ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(_)) => {
                        store.busy.insert(token);
                    }
                    ProgressParamsValue::WorkDone(WorkDoneProgress::End(_)) => {
                        store.busy.remove(&token);
                    }
                    ProgressParamsValue::WorkDone(WorkDoneProgress::Report(_)) => {}
                }
            }
            ControlFlow::Continue(())
        })
        .request::<WorkspaceConfiguration, _>(|_, params| {
            let items = vec![serde_json::Value::Null; params.items.len()];
            async move { Ok(items) }
        })
        .unhandled_request(|_, _| async { Ok(serde_json::Value::Null) })
        .unhandled_notification(|_, _| ControlFlow::Continue(()))
        .event::<Stop>(|_, _| ControlFlow::Break(Ok(())))
        .unhandled_event(|_, _| ControlFlow::Continue(()));
    router
}
