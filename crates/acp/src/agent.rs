//! The ACP agent on a connection: `initialize`, `session/new`, `session/load` (with the stored
//! turns replayed), each followed by the session's custom commands as an
//! `available_commands_update`; `session/prompt` (run off the dispatch loop, so permission
//! requests and cancels get through while it runs; `/NAME ARGS` expands a custom command) and
//! `session/cancel`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate,
    CancelNotification, ContentBlock, Implementation, InitializeRequest, InitializeResponse,
    LoadSessionRequest, LoadSessionResponse, NewSessionRequest, NewSessionResponse,
    PromptCapabilities, PromptRequest, PromptResponse, SessionId, SessionNotification,
    SessionUpdate, StopReason, UnstructuredCommandInput,
};
use agent_client_protocol::{Agent, Client, ConnectTo, Error, ErrorCode, Stdio};
use keel_events::{AgentStatus, Event, EventHandler};
use keel_extensions::{Command, Commands};
use tokio_util::sync::CancellationToken;

use crate::host::{HostedSession, OpenRequest, SessionHost};
use crate::permission::AcpApprover;
use crate::updates::{CurrentToolCall, UpdateMapper};

/// Why the agent stopped abnormally.
#[derive(Debug, thiserror::Error)]
#[error("the ACP connection failed: {0}")]
pub struct AcpError(String);

/// One open session and how to cancel its running prompt.
struct Slot {
    session: tokio::sync::Mutex<Box<dyn HostedSession>>,
    /// The session's custom commands.
    commands: Commands,
    /// The running turn's cancel token.
    cancel: Mutex<Option<CancellationToken>>,
    /// A cancel that arrived before the prompt's turn started.
    cancel_requested: AtomicBool,
}

impl Slot {
    fn cancel(&self) {
        self.cancel_requested.store(true, Ordering::SeqCst);
        if let Some(token) = self
            .cancel
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            token.cancel();
        }
    }
}

type Sessions = Arc<Mutex<HashMap<String, Arc<Slot>>>>;

/// Serves `host`'s sessions to the ACP client on standard input and output until it leaves.
pub async fn serve_stdio<H: SessionHost>(host: H) -> Result<(), AcpError> {
    serve(host, Stdio::new()).await
}

/// Serves `host`'s sessions to the ACP client at the other end of `transport`.
pub async fn serve<H: SessionHost>(
    host: H,
    transport: impl ConnectTo<Agent> + 'static,
) -> Result<(), AcpError> {
    let host = Arc::new(host);
    let sessions: Sessions = Arc::default();
    let (new_host, new_sessions) = (Arc::clone(&host), Arc::clone(&sessions));
    let (load_host, load_sessions) = (Arc::clone(&host), Arc::clone(&sessions));
    let prompt_sessions = Arc::clone(&sessions);
    let cancel_sessions = Arc::clone(&sessions);
    let images = host.accepts_images();
    let served = Agent
        .v1()
        .name("keel")
        .on_receive_request(
            async move |_init: InitializeRequest, responder, _cx| {
                responder.respond(
                    InitializeResponse::new(ProtocolVersion::V1)
                        .agent_capabilities(
                            AgentCapabilities::new()
                                .load_session(true)
                                .prompt_capabilities(PromptCapabilities::new().image(images)),
                        )
                        .agent_info(
                            Implementation::new("keel", env!("CARGO_PKG_VERSION")).title("Keel"),
                        ),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| match open(
                &new_host,
                &new_sessions,
                cx.clone(),
                request.cwd,
                None,
            )
            .await
            {
                Ok(opened) => {
                    responder.respond(NewSessionResponse::new(opened.id.clone()))?;
                    announce_commands(&cx, &opened)
                }
                Err(e) => responder.respond_with_error(e),
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                let id = request.session_id.0.to_string();
                match open(
                    &load_host,
                    &load_sessions,
                    cx.clone(),
                    request.cwd.clone(),
                    Some(id),
                )
                .await
                {
                    Ok(opened) => {
                        // The stored turns, shown as they happened, before the answer.
                        let mut mapper = UpdateMapper::new(request.cwd, CurrentToolCall::default());
                        for event in &opened.history {
                            for update in mapper.map(event, true) {
                                cx.send_notification(SessionNotification::new(
                                    opened.id.clone(),
                                    update,
                                ))?;
                            }
                        }
                        responder.respond(LoadSessionResponse::new())?;
                        announce_commands(&cx, &opened)
                    }
                    Err(e) => responder.respond_with_error(e),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                let id = request.session_id.0.to_string();
                let slot = prompt_sessions
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&id)
                    .cloned();
                let Some(slot) = slot else {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::INVALID_PARAMS,
                        format!("unknown session `{id}`: open it with session/new or session/load"),
                    ));
                };
                if let Some(kind) = unsupported_content(&request.prompt) {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::INVALID_PARAMS,
                        format!(
                            "this agent does not take {kind} in prompts (its prompt capabilities \
                             say so): describe it in words or attach the file as a resource"
                        ),
                    ));
                }
                let images = match prompt_images(&request.prompt) {
                    Ok(images) => images,
                    Err(e) => {
                        return responder.respond_with_error(Error::new(
                            ErrorCode::INVALID_PARAMS,
                            e.to_string(),
                        ));
                    }
                };
                let text = prompt_text(&request.prompt);
                if text.trim().is_empty() && images.is_empty() {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::INVALID_PARAMS,
                        "the prompt has no text",
                    ));
                }
                let command = match expand_command(&slot.commands, &text) {
                    Ok(command) => command,
                    Err(message) => {
                        return responder
                            .respond_with_error(Error::new(ErrorCode::INVALID_PARAMS, message));
                    }
                };
                let text = command.as_ref().map_or(text, |(_, prompt)| prompt.clone());
                slot.cancel_requested.store(false, Ordering::SeqCst);
                cx.spawn(async move {
                    let mut session = slot.session.lock().await;
                    let token = session.cancel_handle();
                    *slot.cancel.lock().unwrap_or_else(|p| p.into_inner()) = Some(token.clone());
                    if slot.cancel_requested.load(Ordering::SeqCst) {
                        token.cancel();
                    }
                    let input = keel_protocol::TurnInput::new(text, images);
                    let end = session
                        .prompt(input, command.as_ref().map(|(c, _)| c))
                        .await;
                    *slot.cancel.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    drop(session);
                    match end.status {
                        Some(AgentStatus::Completed) => {
                            responder.respond(PromptResponse::new(StopReason::EndTurn))
                        }
                        Some(AgentStatus::Cancelled) | None => {
                            responder.respond(PromptResponse::new(StopReason::Cancelled))
                        }
                        Some(AgentStatus::MaxIterations) => {
                            responder.respond(PromptResponse::new(StopReason::MaxTurnRequests))
                        }
                        Some(AgentStatus::Failed) => responder.respond_with_error(Error::new(
                            ErrorCode::INTERNAL_ERROR,
                            format!("the turn failed: {}", end.result),
                        )),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: CancelNotification, _cx| {
                let id = cancel.session_id.0.to_string();
                let slot = cancel_sessions
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&id)
                    .cloned();
                if let Some(slot) = slot {
                    slot.cancel();
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(transport)
        .await;
    // Store what the sessions left.
    let slots: Vec<Arc<Slot>> = sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .drain()
        .map(|(_, slot)| slot)
        .collect();
    for slot in slots {
        if let Ok(slot) = Arc::try_unwrap(slot) {
            slot.session.into_inner().close().await;
        }
    }
    served.map_err(|e| AcpError(e.to_string()))
}

/// A session just opened.
struct Opened {
    id: SessionId,
    history: Vec<Event>,
    commands: Commands,
}

/// Sends the session's custom commands as an `available_commands_update` (none: nothing sent).
fn announce_commands(cx: &ConnectionTo<Client>, opened: &Opened) -> Result<(), Error> {
    if opened.commands.is_empty() {
        return Ok(());
    }
    let commands = opened
        .commands
        .all()
        .iter()
        .map(|command| {
            let hint = command
                .argument_hint
                .clone()
                .unwrap_or_else(|| "arguments".to_owned());
            AvailableCommand::new(command.name.clone(), command.description.clone()).input(Some(
                AvailableCommandInput::Unstructured(UnstructuredCommandInput::new(hint)),
            ))
        })
        .collect();
    cx.send_notification(SessionNotification::new(
        opened.id.clone(),
        SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands)),
    ))
}

/// The custom command a `/NAME ARGS` prompt names, with its expansion; `None` for any other
/// prompt (a `/…` naming no command of the session is sent as written). A template that cannot
/// be expanded is the error's message.
fn expand_command(commands: &Commands, text: &str) -> Result<Option<(Command, String)>, String> {
    match commands.expand_prompt(text) {
        None => Ok(None),
        Some((command, Ok(prompt))) => Ok(Some((command.clone(), prompt))),
        Some((command, Err(e))) => Err(format!("/{} not run: {e}", command.name)),
    }
}

/// Opens a session in `cwd` (new, or the stored `resume`) whose events and approvals go to the
/// client over `cx`.
async fn open<H: SessionHost>(
    host: &Arc<H>,
    sessions: &Sessions,
    cx: ConnectionTo<Client>,
    cwd: PathBuf,
    resume: Option<String>,
) -> Result<Opened, Error> {
    if !cwd.is_absolute() {
        return Err(Error::new(
            ErrorCode::INVALID_PARAMS,
            format!("cwd `{}` must be an absolute path", cwd.display()),
        ));
    }
    let id_cell = Arc::new(OnceLock::new());
    let current = CurrentToolCall::default();
    let events = AcpEvents {
        cx: cx.clone(),
        session: Arc::clone(&id_cell),
        mapper: UpdateMapper::new(cwd.clone(), current.clone()),
    };
    let approver = AcpApprover::new(cx, Arc::clone(&id_cell), current);
    let session = host
        .open(OpenRequest {
            cwd,
            resume,
            events: Box::new(events),
            approver: Arc::new(approver),
        })
        .await
        .map_err(|e| Error::new(ErrorCode::INVALID_PARAMS, e))?;
    let id = session.session_id();
    let session_id = SessionId::new(id.clone());
    let _ = id_cell.set(session_id.clone());
    let history = session.history();
    let commands = session.commands();
    sessions.lock().unwrap_or_else(|p| p.into_inner()).insert(
        id,
        Arc::new(Slot {
            session: tokio::sync::Mutex::new(session),
            commands: commands.clone(),
            cancel: Mutex::new(None),
            cancel_requested: AtomicBool::new(false),
        }),
    );
    Ok(Opened {
        id: session_id,
        history,
        commands,
    })
}

/// The kind of the first content block a prompt may not carry here (audio): the agent offers
/// no such prompt capability, and dropping them silently would answer a different question.
fn unsupported_content(prompt: &[ContentBlock]) -> Option<&'static str> {
    prompt.iter().find_map(|block| match block {
        ContentBlock::Audio(_) => Some("audio"),
        _ => None,
    })
}

/// The prompt's image blocks as images for the model, in order: each named by its `uri`, else
/// `image N`, its format read from its bytes (the declared `mimeType` is not trusted); the
/// first that is no PNG, JPEG, GIF or WebP, too large or not base64 is the error.
fn prompt_images(
    prompt: &[ContentBlock],
) -> Result<Vec<keel_protocol::Image>, keel_protocol::ImageError> {
    prompt
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(image) => Some(image),
            _ => None,
        })
        .enumerate()
        .map(|(i, image)| {
            let name = image
                .uri
                .clone()
                .unwrap_or_else(|| format!("image {}", i + 1));
            keel_protocol::Image::from_base64(name, &image.data)
        })
        .collect()
}

/// The prompt as one text: text blocks as they are, resources by their text or link.
fn prompt_text(prompt: &[ContentBlock]) -> String {
    let mut text = String::new();
    for block in prompt {
        let piece = match block {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::ResourceLink(link) => format!("@{}", link.uri),
            ContentBlock::Resource(resource) => serde_json::to_value(&resource.resource)
                .ok()
                .and_then(|r| {
                    let uri = r.get("uri")?.as_str()?.to_owned();
                    let body = r.get("text")?.as_str()?.to_owned();
                    Some(format!("{uri}:\n{body}"))
                })
                .unwrap_or_default(),
            _ => String::new(),
        };
        if piece.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&piece);
    }
    text
}

/// A session's events, sent to the client as `session/update` notifications.
struct AcpEvents {
    cx: ConnectionTo<Client>,
    session: Arc<OnceLock<SessionId>>,
    mapper: UpdateMapper,
}

impl EventHandler for AcpEvents {
    fn handle(&mut self, event: &Event) {
        let Some(session_id) = self.session.get() else {
            return;
        };
        for update in self.mapper.map(event, false) {
            // A closed connection: nobody is left to tell.
            let _ = self
                .cx
                .send_notification(SessionNotification::new(session_id.clone(), update));
        }
    }
}
