//! One live connection to a server: a stdio child in its own process group or a streamable
//! HTTP session, initialised, with its tools listed.

use std::collections::HashMap;
use std::path::Path;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use keel_sandbox::{Confinement, Sandbox, SandboxPolicy};
use keel_tools::process::{GroupGuard, scrubbed_env};
use nix::sys::signal::Signal;
use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams};
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::process::Child;

use crate::config::{ServerSpec, Transport, expand_vars};

/// How many bytes of a server's standard error (its last ones) a failure message quotes.
const STDERR_TAIL: usize = 2048;

/// How many bytes of a server's first output are kept to say what it sent instead of MCP.
const FIRST_OUTPUT: usize = 200;

/// What the connection tells the manager: the server's tools changed.
pub(crate) type OnToolsChanged = Arc<dyn Fn() + Send + Sync>;

/// The client side of a connection: answers the server's requests with the defaults and
/// passes `tools/list_changed` on.
pub(crate) struct Handler {
    on_tools_changed: OnToolsChanged,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.on_tools_changed)();
    }

    fn get_info(&self) -> InitializeRequestParams {
        InitializeRequestParams::new(
            ClientCapabilities::default(),
            Implementation::new("keel", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// A started server.
pub(crate) struct Connection {
    pub(crate) service: RunningService<RoleClient, Handler>,
    /// The stdio child: its group is killed when the connection is dropped.
    child: Option<(Child, GroupGuard)>,
    /// The stdio child's sandbox (its private temp dir lives as long as the connection).
    _confinement: Option<Confinement>,
    /// Said once when the server's sandbox is only partly enforced here.
    pub(crate) sandbox_warning: Option<String>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("pid", &self.child.as_ref().and_then(|(c, _)| c.id()))
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Starts `spec` (a relative `cwd` is taken from `root`; a stdio child confined by
    /// `sandbox`, see [`ServerSpec::sandbox_policy`]) and initialises it within its start-up
    /// time.
    pub(crate) async fn start(
        spec: &ServerSpec,
        root: &Path,
        sandbox: &SandboxPolicy,
        on_tools_changed: OnToolsChanged,
    ) -> Result<Self, String> {
        let handler = Handler { on_tools_changed };
        match &spec.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let launch = Launch {
                    command,
                    args,
                    env,
                    cwd: cwd.as_deref(),
                    sandbox: spec.sandbox_policy(sandbox),
                };
                start_stdio(spec, root, handler, launch).await
            }
            Transport::Http {
                url,
                headers,
                bearer_token_env_var,
            } => start_http(spec, handler, url, headers, bearer_token_env_var.as_deref()).await,
        }
    }

    /// The child's process id (stdio servers).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(|(c, _)| c.id())
    }

    /// Whether the connection is gone (the child exited, the stream closed).
    pub(crate) fn is_closed(&self) -> bool {
        self.service.is_closed()
    }

    /// Ends the connection: the service is cancelled and the child's whole group killed.
    pub(crate) async fn shutdown(mut self) {
        if let Some((child, group)) = &mut self.child {
            group.signal(Signal::SIGKILL);
            let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
        }
        let _ = tokio::time::timeout(Duration::from_secs(2), self.service.cancel()).await;
    }
}

/// The last bytes of what a child wrote to standard error.
#[derive(Debug, Default)]
struct StderrTail(Vec<u8>);

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
        if self.0.len() > STDERR_TAIL {
            let cut = self.0.len() - STDERR_TAIL;
            self.0.drain(..cut);
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0).trim().to_owned()
    }
}

/// Standard output, with its first bytes kept to quote when the server does not speak MCP.
struct Recording<R> {
    inner: R,
    first: Arc<Mutex<Vec<u8>>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Recording<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let new = &buf.filled()[before..];
            if let Ok(mut first) = self.first.lock()
                && first.len() < FIRST_OUTPUT
            {
                let take = (FIRST_OUTPUT - first.len()).min(new.len());
                first.extend_from_slice(&new[..take]);
            }
        }
        poll
    }
}

/// How a stdio child is started.
struct Launch<'a> {
    command: &'a str,
    args: &'a [String],
    env: &'a std::collections::BTreeMap<String, String>,
    cwd: Option<&'a Path>,
    sandbox: SandboxPolicy,
}

async fn start_stdio(
    spec: &ServerSpec,
    root: &Path,
    handler: Handler,
    launch: Launch<'_>,
) -> Result<Connection, String> {
    let Launch {
        command,
        args,
        env,
        cwd,
        sandbox,
    } = launch;
    let mut vars = scrubbed_env(std::env::vars_os());
    for (name, value) in env {
        let value = expand_vars(value, |v| std::env::var(v).ok())
            .map_err(|e| format!("env `{name}`: {e}"))?;
        vars.push((name.into(), value.into()));
    }
    let dir = match cwd {
        Some(dir) => root.join(dir),
        None => root.to_owned(),
    };
    if !dir.is_dir() {
        return Err(format!("its cwd `{}` is not a folder", dir.display()));
    }
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args)
        .current_dir(&dir)
        .env_clear()
        .envs(vars)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let (confinement, sandbox_warning) = if sandbox.is_off() {
        (None, None)
    } else {
        let described = sandbox.describe();
        let sandbox = Sandbox::new(sandbox, root)
            .map_err(|e| format!("it cannot be sandboxed ({described}): {e}"))?;
        let confinement = sandbox
            .confine(&mut cmd)
            .map_err(|e| format!("it cannot be sandboxed ({described}): {e}"))?;
        (Some(confinement), sandbox.warning())
    };
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            format!("`{command}` was not found (is it installed and on PATH?)")
        }
        std::io::ErrorKind::PermissionDenied => {
            format!("`{command}` cannot be run: permission denied")
        }
        _ => format!("`{command}` could not be started: {e}"),
    })?;
    let group = GroupGuard::new(child.id());
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("its standard input and output could not be opened".to_owned());
    };
    let tail = Arc::new(Mutex::new(StderrTail::default()));
    if let Some(mut stderr) = child.stderr.take() {
        let tail = tail.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut tail) = tail.lock() {
                    tail.push(&buf[..n]);
                }
            }
        });
    }
    let first = Arc::new(Mutex::new(Vec::new()));
    let stdout = Recording {
        inner: stdout,
        first: first.clone(),
    };
    let started = tokio::time::timeout(spec.startup_timeout, handler.serve((stdout, stdin))).await;
    let timed_out = started.is_err();
    let failure = match started {
        Ok(Ok(service)) => {
            return Ok(Connection {
                service,
                child: Some((child, group)),
                _confinement: confinement,
                sandbox_warning,
            });
        }
        Ok(Err(e)) => format!("initialisation failed: {e}"),
        Err(_) => format!(
            "it did not answer `initialize` within {}s",
            spec.startup_timeout.as_secs()
        ),
    };
    // After a time-out the child only exits because its input was closed: the time-out is
    // the reason. Otherwise a closed pipe means the child is on its way out.
    let exited = if timed_out {
        None
    } else {
        match child.try_wait() {
            Ok(Some(status)) => Some(status),
            _ => tokio::time::timeout(Duration::from_millis(300), child.wait())
                .await
                .ok()
                .and_then(Result::ok),
        }
    };
    // Then it is ended, and its stderr reader given a moment to take the last words.
    group.signal(Signal::SIGKILL);
    let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut reason = match exited {
        Some(status) => format!("it exited ({status}) before answering `initialize`"),
        None => failure,
    };
    let first = first
        .lock()
        .map(|f| String::from_utf8_lossy(&f).trim().to_owned())
        .unwrap_or_default();
    if !first.is_empty() && !first.starts_with('{') {
        reason.push_str(&format!(
            "; its output is not MCP JSON-RPC: `{}`",
            first.lines().next().unwrap_or_default()
        ));
    }
    let stderr = tail.lock().map(|t| t.text()).unwrap_or_default();
    if !stderr.is_empty() {
        reason.push_str(&format!("; stderr: {stderr}"));
    }
    Err(reason)
}

async fn start_http(
    spec: &ServerSpec,
    handler: Handler,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    bearer_token_env_var: Option<&str>,
) -> Result<Connection, String> {
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let value = expand_vars(value, |v| std::env::var(v).ok())
            .map_err(|e| format!("header `{name}`: {e}"))?;
        let header_name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| format!("header name `{name}`: {e}"))?;
        let header_value = reqwest::header::HeaderValue::from_str(&value)
            .map_err(|e| format!("header `{name}`: {e}"))?;
        custom.insert(header_name, header_value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    if let Some(var) = bearer_token_env_var {
        let token = std::env::var(var)
            .ok()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| format!("its bearer token variable `{var}` is not set"))?;
        config = config.auth_header(token);
    }
    let client = reqwest::Client::builder()
        .connect_timeout(spec.startup_timeout)
        .build()
        .map_err(|e| format!("no HTTP client: {e}"))?;
    let transport = StreamableHttpClientTransport::with_client(client, config);
    match tokio::time::timeout(spec.startup_timeout, handler.serve(transport)).await {
        Ok(Ok(service)) => Ok(Connection {
            service,
            child: None,
            _confinement: None,
            sandbox_warning: None,
        }),
        Ok(Err(e)) => Err(format!("initialisation at {url} failed: {e}")),
        Err(_) => Err(format!(
            "{url} did not answer `initialize` within {}s",
            spec.startup_timeout.as_secs()
        )),
    }
}
