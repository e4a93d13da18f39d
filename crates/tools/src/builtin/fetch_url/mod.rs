//! `fetch_url`: a web page for the model, HTML as Markdown, text and JSON as they are.
//!
//! - Off when the sandbox denies network (`network = false`, the default under a sandbox),
//!   with a message saying how to allow it.
//! - Governed like commands: approval rules by host (`[[rule]] host = "docs.rs"`, deny / ask
//!   / allow); otherwise asked about unless the approval policy is `never`. "Always" writes an
//!   allow rule for the host.
//! - Only public addresses: a host resolving to a loopback, private, link-local or other
//!   special address is refused unless an allow rule names the host. The connection goes to
//!   the addresses checked (no second lookup to rebind), redirects are followed only within the
//!   same host (at most [`MAX_REDIRECTS`]); a redirect elsewhere is reported to the model,
//!   which may fetch the new address (asked about again).
//! - Capped: [`TIMEOUT`] in all, [`MAX_BYTES`] of body, `max_chars` characters of text.

mod address;
mod convert;

use std::net::SocketAddr;
use std::time::Duration;

use async_trait::async_trait;
use keel_events::{ApprovalDecision, ApprovalKind};
use keel_protocol::ApprovalPolicy;
use reqwest::Url;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::approval_rules::RuleDecision;
use crate::tool::{ToolContext, ToolResult, TypedTool};

/// Characters of text returned when the call does not say.
pub const DEFAULT_MAX_CHARS: usize = 20_000;
/// Most characters a call may ask for.
pub const MAX_CHARS_LIMIT: usize = 100_000;
/// Most bytes of a body read.
pub const MAX_BYTES: usize = 5 * 1024 * 1024;
/// Most redirects followed (within one host).
pub const MAX_REDIRECTS: usize = 5;
/// The whole fetch, redirects included.
pub const TIMEOUT: Duration = Duration::from_secs(30);

/// Arguments of `fetch_url`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchUrlArgs {
    /// The page's address: an http:// or https:// URL.
    pub url: String,
    /// Most characters of the page to return (default 20,000; at most 100,000).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub max_chars: Option<usize>,
}

/// Fetches a web page.
#[derive(Debug, Clone, Copy)]
pub struct FetchUrl {
    network: bool,
}

impl FetchUrl {
    /// The tool, offered to the model only when `network` (the session's sandbox lets
    /// commands use the network); it can still be called, and then says why it is off.
    pub fn new(network: bool) -> Self {
        Self { network }
    }
}

impl Default for FetchUrl {
    /// Offered: no sandbox denies the network.
    fn default() -> Self {
        Self::new(true)
    }
}

#[async_trait]
impl TypedTool for FetchUrl {
    type Args = FetchUrlArgs;

    fn name(&self) -> &'static str {
        "fetch_url"
    }

    fn description(&self) -> &'static str {
        "Fetch a web page (HTTP GET) and read it: HTML comes back as Markdown, text and JSON as they are. Use it for documentation, an issue or an API reference the task points at. Only public http(s) addresses; long pages are cut at max_chars characters."
    }

    fn usable(&self) -> bool {
        self.network
    }

    async fn run(&self, ctx: &ToolContext, args: FetchUrlArgs) -> ToolResult {
        if !ctx.sandbox.network_allowed() {
            return ToolResult::error(
                "fetch_url is off: the sandbox denies network access (`network = true` in keel.toml, or `--sandbox off`, allows it).",
            );
        }
        let url = match Url::parse(args.url.trim()) {
            Ok(url) if matches!(url.scheme(), "http" | "https") && url.host_str().is_some() => url,
            Ok(url) => {
                return ToolResult::error(format!(
                    "Cannot fetch `{url}`: only http:// and https:// URLs with a host are fetched."
                ));
            }
            Err(e) => return ToolResult::error(format!("`{}` is not a URL: {e}.", args.url)),
        };
        let host = url.host_str().unwrap_or_default().to_owned();
        let allowed_by_rule = match approve(ctx, &url, &host).await {
            Ok(by_rule) => by_rule,
            Err(refused) => return refused,
        };
        let max_chars = args
            .max_chars
            .unwrap_or(DEFAULT_MAX_CHARS)
            .clamp(1, MAX_CHARS_LIMIT);
        let fetch = fetch(url.clone(), &host, allowed_by_rule);
        let fetched = tokio::select! {
            () = ctx.cancel.cancelled() => return ToolResult::error("Cancelled."),
            fetched = tokio::time::timeout(TIMEOUT, fetch) => match fetched {
                Ok(fetched) => fetched,
                Err(_) => Err(format!("no complete answer within {} s", TIMEOUT.as_secs())),
            },
        };
        match fetched {
            Ok(page) => page.into_result(max_chars),
            Err(why) => ToolResult::error(format!("Cannot fetch {url}: {why}.")),
        }
    }
}

/// Whether the fetch may go ahead: `Ok(true)` when an allow rule names the host (which also
/// lets it reach a private address), `Ok(false)` when the policy or a person allowed it, else
/// the refusal.
async fn approve(ctx: &ToolContext, url: &Url, host: &str) -> Result<bool, ToolResult> {
    let reason = match ctx.rules.check_host(host) {
        Some(rule) if rule.decision == RuleDecision::Deny => {
            return Err(ToolResult::error(format!(
                "Refused to run: {} denies fetching from {host}.",
                rule.rule.location()
            )));
        }
        Some(rule) if rule.decision == RuleDecision::Allow => return Ok(true),
        Some(rule) => rule.reason,
        None if ctx.approval == ApprovalPolicy::Never => return Ok(false),
        None => format!("fetching a page sends its address to {host}"),
    };
    let reply = ctx
        .request_approval(ApprovalKind::Tool, format!("fetch_url {url}"), reason)
        .await;
    match reply.decision {
        ApprovalDecision::Approve => Ok(false),
        ApprovalDecision::Reject | ApprovalDecision::Modify => {
            let why = reply
                .reason
                .filter(|r| !r.trim().is_empty())
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            Err(ToolResult::error(format!(
                "The user denied fetching {url}{why}."
            )))
        }
    }
}

/// A fetched page, before it is cut to size.
#[derive(Debug)]
struct Page {
    url: Url,
    status: u16,
    content_type: String,
    text: String,
    cut_bytes: bool,
}

impl Page {
    fn into_result(self, max_chars: usize) -> ToolResult {
        let total = self.text.chars().count();
        let mut text: String = self.text.chars().take(max_chars).collect();
        let mut notes = Vec::new();
        if total > max_chars {
            text.push_str(&format!(
                "\n\n[… cut at {max_chars} of {total} characters; ask with a larger max_chars for more]"
            ));
            notes.push(format!("first {max_chars} of {total} characters"));
        } else {
            notes.push(format!("{total} characters"));
        }
        if self.cut_bytes {
            notes.push(format!("body cut at {} MB", MAX_BYTES / (1024 * 1024)));
        }
        let kind = if self.content_type.is_empty() {
            "no content type".to_owned()
        } else {
            self.content_type
        };
        ToolResult::ok_with(
            format!(
                "Fetched {} ({}, {kind}; {}).",
                self.url,
                self.status,
                notes.join(", ")
            ),
            text,
        )
    }
}

/// GETs `url`, following redirects within `host`.
async fn fetch(mut url: Url, host: &str, allowed_by_rule: bool) -> Result<Page, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    for _ in 0..=MAX_REDIRECTS {
        let addrs = addresses(&url, allowed_by_rule).await?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .resolve_to_addrs(host, &addrs)
            .user_agent(concat!("keel/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| e.to_string())?;
        let mut response = client
            .get(url.clone())
            .header(
                reqwest::header::ACCEPT,
                "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5",
            )
            .send()
            .await
            .map_err(|e| error_chain(&e))?;
        let status = response.status();
        if status.is_redirection() {
            let Some(next) = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|l| l.to_str().ok())
                .and_then(|l| url.join(l).ok())
            else {
                return Err(format!("{status} without a usable Location"));
            };
            if next.host_str() != Some(host) || !matches!(next.scheme(), "http" | "https") {
                return Err(format!(
                    "it redirects ({status}) to {next}, another host: fetch that address if it is what you want"
                ));
            }
            url = next;
            continue;
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let mut body = Vec::new();
        let mut cut_bytes = false;
        while let Some(chunk) = response.chunk().await.map_err(|e| error_chain(&e))? {
            let room = MAX_BYTES - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                cut_bytes = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        if !status.is_success() {
            let text = String::from_utf8_lossy(&body);
            let quoted: String = text.trim().chars().take(300).collect();
            return Err(format!("the server answered {status}: {quoted}"));
        }
        let text = convert::to_text(&content_type, &body)?;
        return Ok(Page {
            url,
            status: status.as_u16(),
            content_type,
            text,
            cut_bytes,
        });
    }
    Err(format!("more than {MAX_REDIRECTS} redirects"))
}

/// The addresses `url`'s host resolves to, all public unless `allowed_by_rule`.
async fn addresses(url: &Url, allowed_by_rule: bool) -> Result<Vec<SocketAddr>, String> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(443);
    // `[::1]` is written with brackets in a URL, not in a lookup.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((bare, port))
        .await
        .map_err(|e| format!("{host} cannot be resolved: {e}"))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    if !allowed_by_rule && let Some(private) = addrs.iter().find(|a| !address::is_public(a.ip())) {
        return Err(format!(
            "{host} is {}, a loopback, private or special address; fetch_url reaches only public addresses unless a rule allows the host (`[[rule]] host = \"{host}\"` with `decision = \"allow\"` in .keel/rules.toml)",
            private.ip()
        ));
    }
    Ok(addrs)
}

/// An error and its causes on one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
